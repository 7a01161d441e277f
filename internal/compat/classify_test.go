// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"errors"
	"testing"
)

func TestAKeyOciCCMWouldIgnoreSilentlyFailsGeneration(t *testing.T) {
	_, err := classifyAnnotation(upstreamAnnotation{Key: "oci.oraclecloud.com/not-a-real-annotation", Value: "x"})
	if !errors.Is(err, errUnknown) {
		t.Fatalf("classify = %v, want errUnknown", err)
	}
}

func TestAConfigKeyOciCCMDoesNotKnowFailsGeneration(t *testing.T) {
	if _, err := classifyConfigKey(upstreamConfigKey{Key: "loadBalancer.notAKey", YAML: "loadBalancer: {notAKey: 1}"}); err == nil {
		t.Fatal("classify of an unknown config key succeeded")
	}
}

func TestEveryUpstreamKeyHasAStatus(t *testing.T) {
	if _, _, err := render(); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, a := range upstreamAnnotations {
		if seen[a.Key] {
			t.Errorf("annotation %s listed twice", a.Key)
		}
		seen[a.Key] = true
	}
}
