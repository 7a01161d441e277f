// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package apicheck

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// libraryPackages are the packages a third party imports to build on oci-ccm.
var libraryPackages = []string{
	"github.com/oci-ccm/oci-ccm/config",
	"github.com/oci-ccm/oci-ccm/ociclient",
	"github.com/oci-ccm/oci-ccm/lb",
	"github.com/oci-ccm/oci-ccm/lb/model",
	"github.com/oci-ccm/oci-ccm/lb/binding",
	"github.com/oci-ccm/oci-ccm/seclist",
	"github.com/oci-ccm/oci-ccm/instances",
}

// unwanted are import path prefixes a library user must not link by importing
// libraryPackages: the metrics stack (only the binary's adapter, internal/prommetrics, needs
// it) and the test server (ociclient.ForServer names an interface, not *ocitest.Server).
var unwanted = []string{
	"github.com/prometheus/",
	"k8s.io/component-base/metrics",
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest",
	"net/http/httptest",
}

func TestLibraryPackagesDoNotLinkPrometheusOrTheTestServer(t *testing.T) {
	for _, pkg := range libraryPackages {
		t.Run(pkg[strings.LastIndex(pkg, "/")+1:], func(t *testing.T) {
			out, err := exec.Command("go", "list", "-deps", pkg).Output()
			if err != nil {
				t.Fatalf("go list -deps %s: %v", pkg, err)
			}
			var got []string
			for dep := range strings.Lines(string(out)) {
				dep = strings.TrimSpace(dep)
				for _, prefix := range unwanted {
					if strings.HasPrefix(dep, prefix) {
						got = append(got, dep)
					}
				}
			}
			if diff := cmp.Diff([]string(nil), got); diff != "" {
				t.Errorf("%s links packages a library user should not get (-want +got):\n%s", pkg, diff)
			}
		})
	}
}

// TestLBAndSeclistDoNotKnowEachOther keeps the Service orchestrator (ccm/service) the one place
// that passes between a load balancer and its security rules what each needs: nothing under lb
// (not even its model or annotations) links seclist, and seclist links nothing under lb.
func TestLBAndSeclistDoNotKnowEachOther(t *testing.T) {
	const module = "github.com/oci-ccm/oci-ccm/"
	for _, pkg := range []string{module + "lb/...", module + "seclist"} {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		other := module + "seclist"
		if pkg == module+"seclist" {
			other = module + "lb"
		}
		var got []string
		for dep := range strings.Lines(string(out)) {
			if dep = strings.TrimSpace(dep); dep == other || strings.HasPrefix(dep, other+"/") {
				got = append(got, dep)
			}
		}
		if len(got) > 0 {
			t.Errorf("%s links %v", pkg, got)
		}
	}
}

// TestTheLBPackageIsPure keeps the root of lb the pure model of a Service's load balancer: what
// it links talks neither to OCI (no ociclient, no SDK service package: the SDK's common package
// comes with config's auth) nor to the engine and products that do.
func TestTheLBPackageIsPure(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/oci-ccm/oci-ccm/lb").Output()
	if err != nil {
		t.Fatalf("go list -deps lb: %v", err)
	}
	var got []string
	for dep := range strings.Lines(string(out)) {
		dep = strings.TrimSpace(dep)
		sdk, isSDK := strings.CutPrefix(dep, "github.com/oracle/oci-go-sdk/v65/")
		switch {
		case isSDK && sdk != "common" && !strings.HasPrefix(sdk, "common/"),
			strings.HasPrefix(dep, "github.com/oci-ccm/oci-ccm/ociclient"),
			strings.HasPrefix(dep, "github.com/oci-ccm/oci-ccm/lb/engine"),
			strings.HasPrefix(dep, "github.com/oci-ccm/oci-ccm/lb/oci"):
			got = append(got, dep)
		}
	}
	if len(got) > 0 {
		t.Errorf("lb links what talks to OCI: %v", got)
	}
}
