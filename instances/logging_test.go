// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package instances_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/instances"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// An embedder's logger, passed in the context, receives both this package's logs and the OCI
// calls behind them, with the embedder's own key-value pairs.
func TestLogsGoToTheLoggerInTheContext(t *testing.T) {
	srv := ocitest.New(ocitest.Options{})
	defer srv.Close()
	seeded := srv.Seeded()
	client, err := ociclient.New(ociclient.ForServer(srv))
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := instances.New(instances.Options{Compute: client.Compute, VirtualNetwork: client.VirtualNetwork,
		CompartmentID: seeded.Compartment, Region: srv.Region()})
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		lines []string
	)
	logger := funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, prefix+" "+args)
	}, funcr.Options{Verbosity: 4})
	ctx := logr.NewContext(context.Background(), logger.WithValues("controller", "mine"))

	node := &v1.Node{Spec: v1.NodeSpec{ProviderID: instances.ProviderID(seeded.Instances["node-1"])}}
	if exists, err := nodes.InstanceExists(ctx, node); !exists || err != nil {
		t.Fatalf("InstanceExists = %v, %v; want true", exists, err)
	}
	mu.Lock()
	defer mu.Unlock()
	var own, oci bool
	for _, l := range lines {
		if !strings.Contains(l, `"controller"="mine"`) {
			t.Errorf("line without the context logger's values: %s", l)
		}
		own = own || strings.Contains(l, "Instance exists")
		oci = oci || strings.Contains(l, `"operation"="GetInstance"`)
	}
	if !own || !oci {
		t.Errorf("logged instances' line: %v, ociclient's GetInstance line: %v; want both in:\n%s", own, oci, strings.Join(lines, "\n"))
	}
}
