// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// instanceJSON is a trimmed real response of GET /opc/v2/instance/ (OCIDs made up).
const instanceJSON = `{
  "availabilityDomain": "Uocm:PHX-AD-1",
  "faultDomain": "FAULT-DOMAIN-2",
  "compartmentId": "ocid1.compartment.oc1..aaaaaaaanodes",
  "displayName": "node-1",
  "hostname": "node-1",
  "id": "ocid1.instance.oc1.phx.aaaaaaaanode1",
  "image": "ocid1.image.oc1.phx.aaaaaaaaimage",
  "metadata": {"ssh_authorized_keys": "ssh-rsa AAAA", "user_data": "c2VjcmV0"},
  "region": "phx",
  "canonicalRegionName": "us-phoenix-1",
  "ociAdName": "phx-ad-1",
  "regionInfo": {"realmKey": "oc1", "realmDomainComponent": "oraclecloud.com", "regionKey": "PHX", "regionIdentifier": "us-phoenix-1"},
  "shape": "VM.Standard.E4.Flex",
  "state": "Running",
  "timeCreated": 1700000000000,
  "freeformTags": {"role": "worker"},
  "definedTags": {"Ops": {"Tier": "web"}}
}`

// metadataServer serves body at /opc/v2/instance/ only to requests carrying the v2 header,
// as the real service does, and counts requests.
func metadataServer(t *testing.T, status int, body string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Method != http.MethodGet || r.URL.Path != "/opc/v2/instance/" {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("Authorization") != "Bearer Oracle" {
			http.Error(w, "missing Authorization: Bearer Oracle", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestMetadataClientReadsTheInstanceDocument(t *testing.T) {
	srv, calls := metadataServer(t, http.StatusOK, instanceJSON)
	got, err := (&MetadataClient{BaseURL: srv.URL, HTTPClient: srv.Client()}).Instance(context.Background())
	if err != nil {
		t.Fatalf("Instance: %v", err)
	}
	want := InstanceMetadata{
		ID:                  "ocid1.instance.oc1.phx.aaaaaaaanode1",
		DisplayName:         "node-1",
		Hostname:            "node-1",
		CompartmentID:       "ocid1.compartment.oc1..aaaaaaaanodes",
		AvailabilityDomain:  "Uocm:PHX-AD-1",
		FaultDomain:         "FAULT-DOMAIN-2",
		Region:              "phx",
		CanonicalRegionName: "us-phoenix-1",
		RegionInfo:          &RegionInfo{RealmKey: "oc1", RealmDomainComponent: "oraclecloud.com", RegionKey: "PHX", RegionIdentifier: "us-phoenix-1"},
		Shape:               "VM.Standard.E4.Flex",
		State:               "Running",
		Image:               "ocid1.image.oc1.phx.aaaaaaaaimage",
		TimeCreated:         1700000000000,
		FreeformTags:        map[string]string{"role": "worker"},
		DefinedTags:         map[string]map[string]any{"Ops": {"Tier": "web"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("InstanceMetadata mismatch (-want +got):\n%s", diff)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("metadata requests = %d, want 1", n)
	}
}

func TestMetadataClientAcceptsABaseURLWithTrailingSlash(t *testing.T) {
	srv, _ := metadataServer(t, http.StatusOK, instanceJSON)
	if _, err := (&MetadataClient{BaseURL: srv.URL + "/"}).Instance(context.Background()); err != nil {
		t.Fatalf("Instance: %v", err)
	}
}

func TestMetadataClientSurfacesFailures(t *testing.T) {
	t.Run("status", func(t *testing.T) {
		srv, _ := metadataServer(t, http.StatusInternalServerError, `{"code":"InternalError"}`)
		_, err := (&MetadataClient{BaseURL: srv.URL}).Instance(context.Background())
		var se *MetadataStatusError
		if !errors.As(err, &se) || se.StatusCode != http.StatusInternalServerError {
			t.Fatalf("error = %v, want *MetadataStatusError with 500", err)
		}
		if se.URL != srv.URL+"/opc/v2/instance/" {
			t.Errorf("URL = %q, want the instance path", se.URL)
		}
		if want := "instance metadata " + se.URL + ": HTTP 500 Internal Server Error"; se.Error() != want {
			t.Errorf("Error() = %q, want %q", se.Error(), want)
		}
	})
	t.Run("bad JSON", func(t *testing.T) {
		srv, _ := metadataServer(t, http.StatusOK, `{"id": `)
		if _, err := (&MetadataClient{BaseURL: srv.URL}).Instance(context.Background()); err == nil {
			t.Fatal("Instance accepted truncated JSON")
		}
	})
	t.Run("canceled context", func(t *testing.T) {
		srv, calls := metadataServer(t, http.StatusOK, instanceJSON)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := (&MetadataClient{BaseURL: srv.URL}).Instance(ctx)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error = %v, want context.Canceled", err)
		}
		if n := calls.Load(); n != 0 {
			t.Errorf("metadata requests = %d, want 0 after cancel", n)
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		base := srv.URL
		srv.Close()
		if _, err := (&MetadataClient{BaseURL: base}).Instance(context.Background()); err == nil {
			t.Fatal("Instance succeeded against a closed server")
		}
	})
}

// fakeMetadata is an InstanceMetadataSource that counts calls.
type fakeMetadata struct {
	md    InstanceMetadata
	err   error
	calls int
}

func (f *fakeMetadata) Instance(context.Context) (InstanceMetadata, error) {
	f.calls++
	return f.md, f.err
}

func TestCompleteInfersRegionAndCompartment(t *testing.T) {
	const nodes = "ocid1.compartment.oc1..aaaaaaaanodes"
	tests := []struct {
		name            string
		region, comp    string
		md              InstanceMetadata
		wantRegion      string
		wantCompartment string
		wantCalls       int
	}{
		{"both missing, canonical name preferred", "", "",
			InstanceMetadata{Region: "phx", CanonicalRegionName: "us-phoenix-1", CompartmentID: nodes},
			"us-phoenix-1", nodes, 1},
		{"short region key used when no canonical name", "", "",
			InstanceMetadata{Region: "phx", CompartmentID: nodes},
			"phx", nodes, 1},
		{"only region missing keeps the compartment", "", compartmentID,
			InstanceMetadata{CanonicalRegionName: "us-ashburn-1", CompartmentID: nodes},
			"us-ashburn-1", compartmentID, 1},
		{"only compartment missing keeps the region", "eu-frankfurt-1", "",
			InstanceMetadata{CanonicalRegionName: "us-ashburn-1", CompartmentID: nodes},
			"eu-frankfurt-1", nodes, 1},
		{"nothing missing makes no call", "eu-frankfurt-1", compartmentID,
			InstanceMetadata{CanonicalRegionName: "us-ashburn-1", CompartmentID: nodes},
			"eu-frankfurt-1", compartmentID, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Config{Auth: Auth{Region: tt.region}, CompartmentID: tt.comp}
			src := &fakeMetadata{md: tt.md}
			if err := c.complete(context.Background(), src); err != nil {
				t.Fatalf("complete: %v", err)
			}
			if c.Auth.Region != tt.wantRegion || c.CompartmentID != tt.wantCompartment {
				t.Errorf("region, compartment = %q, %q; want %q, %q", c.Auth.Region, c.CompartmentID, tt.wantRegion, tt.wantCompartment)
			}
			if src.calls != tt.wantCalls {
				t.Errorf("metadata calls = %d, want %d", src.calls, tt.wantCalls)
			}
		})
	}
}

func TestCompleteThroughHTTPThenValidate(t *testing.T) {
	srv, calls := metadataServer(t, http.StatusOK, instanceJSON)
	cfg, _ := mustParse(t, "useInstancePrincipals: true\nloadBalancer:\n  subnet1: "+subnet1ID+"\n")
	if err := cfg.complete(context.Background(), &MetadataClient{BaseURL: srv.URL}); err != nil {
		t.Fatalf("complete: %v", err)
	}
	if cfg.Auth.Region != "us-phoenix-1" || cfg.CompartmentID != "ocid1.compartment.oc1..aaaaaaaanodes" {
		t.Errorf("region, compartment = %q, %q", cfg.Auth.Region, cfg.CompartmentID)
	}
	if err := cfg.Validate(); err != nil {
		t.Errorf("Validate after complete: %v", err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("metadata requests = %d, want 1", n)
	}
}

func TestCompleteFailsWithoutChangingTheConfig(t *testing.T) {
	boom := errors.New("metadata down")
	tests := []struct {
		name string
		src  *fakeMetadata
		want error
	}{
		{"source error", &fakeMetadata{err: boom}, boom},
		{"no region", &fakeMetadata{md: InstanceMetadata{CompartmentID: compartmentID}}, ErrIncompleteMetadata},
		{"no compartment", &fakeMetadata{md: InstanceMetadata{CanonicalRegionName: "us-phoenix-1"}}, ErrIncompleteMetadata},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Config
			err := c.complete(context.Background(), tt.src)
			if !errors.Is(err, tt.want) {
				t.Fatalf("complete error = %v, want %v", err, tt.want)
			}
			if c.Auth.Region != "" || c.CompartmentID != "" {
				t.Errorf("complete changed the config on failure: region %q, compartment %q", c.Auth.Region, c.CompartmentID)
			}
		})
	}
}
