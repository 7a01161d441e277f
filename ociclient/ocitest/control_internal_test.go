// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
)

// Work-request polls have no operation in this file's APIs, so the test registers one.
func TestControlPollsShareTheReadBucket(t *testing.T) {
	// IAM off: the operations the test registers have no IAM rule, so any policy refuses them.
	s := New(Options{AllowAll: true})
	t.Cleanup(s.Close)
	ok := func(w http.ResponseWriter, r *http.Request) { writeJSON(w, r, http.StatusOK, map[string]string{}) }
	s.handle("TestPoll", ClassPoll, "GET /ctltest/poll", ok)
	s.handle("TestRead", ClassRead, "GET /ctltest/read", ok)
	s.SetRateLimit(ClassPoll, 0.001, 1)

	var got []int
	for _, path := range []string{"/ctltest/poll", "/ctltest/read"} {
		req, err := http.NewRequestWithContext(t.Context(), "GET", s.URL()+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
		if err := common.DefaultRequestSigner(s.ConfigurationProvider()).Sign(req); err != nil {
			t.Fatal(err)
		}
		resp, err := s.HTTPClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got = append(got, resp.StatusCode)
	}
	if diff := cmp.Diff([]int{200, 429}, got); diff != "" {
		t.Errorf("poll then read with one shared token (-want +got):\n%s", diff)
	}
	if c := s.Calls(); c.Class(ClassPoll) != 1 || c.Class(ClassRead) != 1 {
		t.Errorf("polls %d reads %d, want 1 each (the classes stay apart in accounting)", c.Class(ClassPoll), c.Class(ClassRead))
	}
}

func TestControlParsesSignatureParameters(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    map[string]string
		wantErr bool
	}{
		{name: "SDK form", in: `version="1",headers="date (request-target) host",keyId="t/u/f",algorithm="rsa-sha256",signature="c2ln"`,
			want: map[string]string{"version": "1", "headers": "date (request-target) host", "keyId": "t/u/f", "algorithm": "rsa-sha256", "signature": "c2ln"}},
		{name: "spaces and a bare token", in: ` keyId="k", headers="date",  signature="s" , version=1`,
			want: map[string]string{"keyId": "k", "headers": "date", "signature": "s", "version": "1"}},
		{name: "unterminated quote", in: `keyId="k,headers="date",signature="s"`, wantErr: true},
		{name: "no signature", in: `keyId="k",headers="date"`, wantErr: true},
		{name: "junk after value", in: `keyId="k"x,headers="date",signature="s"`, wantErr: true},
		{name: "no equals", in: `keyId`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseSignatureParams(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err %v, want error %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); !tt.wantErr && diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// A panic under the lock (a fault of the fake's own) releases it: the call that hit it fails,
// and the calls after it are answered rather than left hanging until the test times out.
func TestUnderLockReleasesTheLockOnAPanic(t *testing.T) {
	s := &Server{}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("underLock swallowed the panic")
			}
		}()
		underLock(s, func() int { panic("a fault of the fake") })
	}()
	if !s.mu.TryLock() {
		t.Fatal("Server.mu is still held after a panic under underLock")
	}
	s.mu.Unlock()
	if got := underLock(s, func() int { return 7 }); got != 7 {
		t.Errorf("underLock returned %d, want 7", got)
	}
}
