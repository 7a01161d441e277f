// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzLoad feeds arbitrary bytes to the parser. Properties: no panic anywhere in Parse, Load,
// Validate or formatting; a parsed Config is defaulted; Validate returns nil or a non-empty
// *ValidationError, and the same one each time; Load returns a Config exactly when Parse does
// and the file's checks pass. Seeds live in testdata/fuzz/FuzzLoad.
func FuzzLoad(f *testing.F) {
	f.Add([]byte("auth:\n  region: us-phoenix-1\n"))
	f.Add([]byte("useInstancePrincipals: true\nloadBalancer: {subnet1: ocid1.subnet.oc1.phx.aaaa, naming: {scheme: name, prefix: p}}\n"))
	f.Add([]byte("auth: {useInstancePrincipals: true, key_passphrase: x}\nloadBalancer: {disableSecurityListManagement: true}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, _, err := Parse(bytes.NewReader(data))
		if loaded, _, lerr := Load(bytes.NewReader(data)); (loaded != nil) != (lerr == nil) ||
			(lerr == nil) != (err == nil && cfg.validate(checkFile) == nil) {
			t.Fatalf("Load = %v, %v; Parse = %v", loaded, lerr, err)
		}
		if err != nil {
			if cfg != nil {
				t.Fatalf("Parse returned a Config with error %v", err)
			}
			return
		}
		if cfg == nil {
			t.Fatal("Parse returned neither a Config nor an error")
		}
		lb := &cfg.LoadBalancer
		if lb.SecurityListManagementMode == "" || lb.Naming.Scheme == "" || len(lb.DefaultSourceCIDRs) == 0 {
			t.Fatalf("parsed Config is not defaulted: %+v", lb)
		}
		_ = fmt.Sprintf("%+v %#v", cfg, cfg)

		err1, err2 := cfg.Validate(), cfg.Validate()
		if err1 == nil {
			if err2 != nil {
				t.Fatalf("Validate is not deterministic: nil then %v", err2)
			}
			return
		}
		var ve1, ve2 *ValidationError
		if !errors.As(err1, &ve1) || !errors.As(err2, &ve2) || len(ve1.Errors) == 0 {
			t.Fatalf("Validate error = %v, want a non-empty *ValidationError", err1)
		}
		if diff := cmp.Diff(ve1.Errors, ve2.Errors); diff != "" {
			t.Fatalf("Validate is not deterministic (-first +second):\n%s", diff)
		}
	})
}
