// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"net/http"
	"strconv"
)

// registerAdminWorkRequests serves the admin API's work-request routes (see registerAdmin).
func (s *Server) registerAdminWorkRequests() {
	s.mux.HandleFunc("POST /ocitest/workrequests/hold", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Operation string `json:"operation"`
			Times     int    `json:"times"`
		}
		if !readJSON(w, r, &body) {
			return
		}
		if body.Times < 0 {
			writeError(w, r, http.StatusBadRequest, "InvalidParameter", "times must not be negative")
			return
		}
		held := 0 // guarded by s.mu: match runs under it
		match := func(wr WorkRequestInfo) bool {
			if (body.Operation != "" && wr.Operation != body.Operation) || (body.Times > 0 && held >= body.Times) {
				return false
			}
			held++
			return true
		}
		writeJSON(w, r, http.StatusCreated, map[string]int{"id": s.addWorkRule(wrFaultRule{match: match, hold: true})})
	})
	s.mux.HandleFunc("DELETE /ocitest/workrequests/hold/{id}", func(w http.ResponseWriter, r *http.Request) {
		id, err := strconv.Atoi(r.PathValue("id"))
		if err != nil || !s.removeWorkRule(id) {
			writeError(w, r, http.StatusNotFound, "NotFound", "no hold "+r.PathValue("id"))
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	s.mux.HandleFunc("POST /ocitest/workrequests/complete", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, r, http.StatusOK, map[string]int{"completed": s.CompleteWorkRequests()})
	})
}
