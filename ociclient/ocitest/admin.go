// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/oracle/oci-go-sdk/v65/core"
)

// The admin API lets a test drive a server running in another process (cmd/ocitest) the way Go
// tests drive one in-process. It lives under /ocitest/, a prefix no OCI API uses; its requests
// are not signed, not counted and never faulted. JSON in, JSON out:
//
//	GET    /ocitest/calls                  Calls as JSON (see Calls.MarshalJSON)
//	DELETE /ocitest/calls                  ResetCalls
//	POST   /ocitest/faults                 InjectFault; body: Fault as JSON, latency as a Go
//	                                       duration string ("200ms"); answers {"id": N}
//	DELETE /ocitest/faults/{id}            remove one fault
//	DELETE /ocitest/faults                 ClearFaults
//	POST   /ocitest/ratelimit              SetRateLimit; body {"class":"read","qps":2,"burst":1,
//	                                       "retryAfter":true}; qps 0 removes the limit
//	POST   /ocitest/tokenexchange/apps     AddTokenExchangeApp; body {"clientId":"...",
//	                                       "clientSecret":"..."}
//	POST   /ocitest/instances/{id}/state   SetInstanceState; body {"state":"TERMINATED"}
//	DELETE /ocitest/instances/{id}         RemoveInstance
//	PUT    /ocitest/policy                 SetPolicy; body {"statements": ["Allow ...", ...]};
//	                                       400 InvalidParameter naming the bad statement
//	GET    /ocitest/policy                 {"statements": [...]}, or {"allowAll": true} with IAM off
//	DELETE /ocitest/policy                 DenyAll: no statements, nothing allowed
//	POST   /ocitest/workrequests/hold      HoldWorkRequests; body {"operation":"CreateLoadBalancer",
//	                                       "times":1} ("" any operation, 0 times: every one);
//	                                       answers {"id": N}
//	DELETE /ocitest/workrequests/hold/{id} stop holding new work requests (held ones stay held)
//	POST   /ocitest/workrequests/complete  CompleteWorkRequests; answers {"completed": N}
//	PUT    /ocitest/health                 SetBackendHealth; body {"id":"<(N)LB OCID>","backendSet":
//	                                       "TCP-80","backend":"10.0.10.2:30080","status":"OK"};
//	                                       400 for another status, 404 for a missing backend
func (s *Server) registerAdmin() {
	s.registerAdminPolicy()
	s.registerAdminWorkRequests()
	s.mux.HandleFunc("PUT /ocitest/health", s.adminSetBackendHealth)
	s.mux.HandleFunc("GET /ocitest/calls", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, r, http.StatusOK, s.Calls())
	})
	s.mux.HandleFunc("DELETE /ocitest/calls", func(w http.ResponseWriter, r *http.Request) {
		s.ResetCalls()
		w.WriteHeader(http.StatusNoContent)
	})
	s.mux.HandleFunc("POST /ocitest/faults", s.adminInjectFault)
	s.mux.HandleFunc("DELETE /ocitest/faults/{id}", func(w http.ResponseWriter, r *http.Request) {
		id, err := strconv.Atoi(r.PathValue("id"))
		if err != nil || !s.ctl.removeFault(id) {
			writeError(w, r, http.StatusNotFound, "NotFound", "no fault "+r.PathValue("id"))
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	s.mux.HandleFunc("DELETE /ocitest/faults", func(w http.ResponseWriter, r *http.Request) {
		s.ClearFaults()
		w.WriteHeader(http.StatusNoContent)
	})
	s.mux.HandleFunc("POST /ocitest/ratelimit", s.adminRateLimit)
	s.mux.HandleFunc("POST /ocitest/tokenexchange/apps", func(w http.ResponseWriter, r *http.Request) {
		var body struct{ ClientID, ClientSecret string }
		if !readJSON(w, r, &body) {
			return
		}
		if body.ClientID == "" || body.ClientSecret == "" {
			writeError(w, r, http.StatusBadRequest, "InvalidParameter", "clientId and clientSecret are required")
			return
		}
		s.AddTokenExchangeApp(body.ClientID, body.ClientSecret)
		w.WriteHeader(http.StatusNoContent)
	})
	s.mux.HandleFunc("POST /ocitest/instances/{id}/state", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			State core.InstanceLifecycleStateEnum `json:"state"`
		}
		if !readJSON(w, r, &body) {
			return
		}
		if _, ok := core.GetMappingInstanceLifecycleStateEnum(string(body.State)); !ok {
			writeError(w, r, http.StatusBadRequest, "InvalidParameter", fmt.Sprintf("unknown instance state %q", body.State))
			return
		}
		if !s.SetInstanceState(r.PathValue("id"), body.State) {
			notFound(w, r, "instance", r.PathValue("id"))
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	s.mux.HandleFunc("DELETE /ocitest/instances/{id}", func(w http.ResponseWriter, r *http.Request) {
		if !s.RemoveInstance(r.PathValue("id")) {
			notFound(w, r, "instance", r.PathValue("id"))
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

// adminFault is a Fault on the wire, with the latency as a duration string.
type adminFault struct {
	Fault
	Latency string `json:"latency,omitempty"`
}

func (s *Server) adminInjectFault(w http.ResponseWriter, r *http.Request) {
	var body adminFault
	if !readJSON(w, r, &body) {
		return
	}
	f := body.Fault
	if body.Latency != "" {
		d, err := time.ParseDuration(body.Latency)
		if err != nil || d < 0 {
			writeError(w, r, http.StatusBadRequest, "InvalidParameter", fmt.Sprintf("latency %q is not a non-negative duration", body.Latency))
			return
		}
		f.Latency = d
	}
	switch {
	case f.Status != 0 && (f.Status < 400 || f.Status > 599):
		writeError(w, r, http.StatusBadRequest, "InvalidParameter", "status must be 0 or 400-599")
		return
	case f.Times < 0:
		writeError(w, r, http.StatusBadRequest, "InvalidParameter", "times must not be negative")
		return
	case f.Probability < 0 || f.Probability > 1:
		writeError(w, r, http.StatusBadRequest, "InvalidParameter", "probability must be within 0-1")
		return
	}
	writeJSON(w, r, http.StatusCreated, map[string]int{"id": s.ctl.addFault(f)})
}

func (s *Server) adminRateLimit(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Class      Class   `json:"class"`
		QPS        float64 `json:"qps"`
		Burst      int     `json:"burst"`
		RetryAfter *bool   `json:"retryAfter"`
	}
	if !readJSON(w, r, &body) {
		return
	}
	if body.Class != ClassRead && body.Class != ClassWrite && body.Class != ClassPoll {
		writeError(w, r, http.StatusBadRequest, "InvalidParameter", "class must be read, write or poll")
		return
	}
	s.SetRateLimit(body.Class, body.QPS, body.Burst)
	if body.RetryAfter != nil {
		s.SetRateLimitRetryAfter(*body.RetryAfter)
	}
	w.WriteHeader(http.StatusNoContent)
}
