// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"strings"
	"testing"
)

func TestRunPrintsTheCreateThenAnOrderedPortChange(t *testing.T) {
	var out strings.Builder
	if err := run(&out); err != nil {
		t.Fatal(err)
	}
	first, second, ok := strings.Cut(out.String(), "Port 80 → 8080:")
	if !ok {
		t.Fatalf("no port-change plan in:\n%s", out.String())
	}
	for _, tc := range []struct {
		plan, name, want string
	}{
		{first, "create", `1. + load balancer "shop-web"`},
		{first, "create", `+ listener "TCP-80": TCP :80 → backend set "TCP-80"`},
		{second, "port change", `4 changes`},
		{second, "port change", `1. + backend set "TCP-8080"`},
		{second, "port change", `- listener "TCP-80"`},
		{second, "port change", `+ listener "TCP-8080" (after 1)`},
		{second, "port change", `- backend set "TCP-80" (after 3)`},
	} {
		if !strings.Contains(tc.plan, tc.want) {
			t.Errorf("%s plan lacks %q:\n%s", tc.name, tc.want, tc.plan)
		}
	}
	// The observed load balancer is the one the first plan makes: nothing else may differ.
	for _, unwanted := range []string{"+ load balancer", "update load balancer", "~ load balancer", "shape of"} {
		if strings.Contains(second, unwanted) {
			t.Errorf("port-change plan has an unexpected change %q:\n%s", unwanted, second)
		}
	}
}
