// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package instances_test

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/oci-ccm/oci-ccm/instances"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// Look up the instance behind a new Node (found by name, no providerID yet), then ask whether a
// Node still exists: only an instance OCI has proven gone makes the answer false.
func Example() {
	srv := ocitest.New(ocitest.Options{})
	defer srv.Close()
	seeded := srv.Seeded() // every server starts with ocitest.DefaultTenancy
	client, err := ociclient.New(ociclient.ForServer(srv))
	if err != nil {
		fmt.Println(err)
		return
	}
	nodes, err := instances.New(instances.Options{
		Compute: client.Compute, VirtualNetwork: client.VirtualNetwork,
		CompartmentID: seeded.Compartment, Region: srv.Region(),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()

	md, err := nodes.InstanceMetadata(ctx, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-2"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(md.ProviderID == instances.ProviderID(seeded.Instances["node-2"]), md.InstanceType, md.Zone, md.Region)
	for _, a := range md.NodeAddresses {
		if a.Type == v1.NodeInternalIP {
			fmt.Println(a.Type, a.Address)
		}
	}

	srv.RemoveInstance(seeded.Instances["node-2"]) // gone from OCI, listings included
	client.InvalidateCaches()                      // reads are cached for a minute (Options.CacheTTL)
	exists, err := nodes.InstanceExists(ctx, &v1.Node{Spec: v1.NodeSpec{ProviderID: md.ProviderID}})
	fmt.Println(exists, err)
	// Output:
	// true VM.Standard.E4.Flex PHX-AD-2 us-phoenix-1
	// InternalIP 10.0.10.3
	// false <nil>
}
