// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package test

import (
	"bytes"
	"os"
	"testing"
)

// deployCRD is the plain manifest of the BackendSetBinding resource, which the e2e suite applies
// to a real kube-apiserver; the chart installs the same file from crds/.
const deployCRD = "../../deploy/backendsetbinding-crd.yaml"

// TestTheChartInstallsTheBackendSetBindingCRDOfTheDeployManifests: Helm installs what is in a
// chart's crds/ before its templates (and never upgrades or deletes it); the file must be the one
// the end-to-end suite proves, byte for byte.
func TestTheChartInstallsTheBackendSetBindingCRDOfTheDeployManifests(t *testing.T) {
	want, err := os.ReadFile(deployCRD)
	if err != nil {
		t.Fatal(err)
	}
	crds := loadV2(t, chartDir).CRDObjects()
	if len(crds) != 1 {
		t.Fatalf("the chart has %d CRD files, want 1 (crds/backendsetbinding-crd.yaml)", len(crds))
	}
	if got := crds[0].File.Data; !bytes.Equal(got, want) {
		t.Errorf("the chart's %s differs from %s: copy it (cp %s ../oci-ccm/crds/)", crds[0].Name, deployCRD, deployCRD)
	}
}
