// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// TestDesiredReadsOnlyTheSlimExisting: the node-sync memo (unchanged.go) keeps only slim's part
// of the load balancer found, so lb.Desired must build the same Spec from it as from the whole
// load balancer, for the cases where what exists decides (an upstream name kept, one subnet of
// two named). A Desired that starts reading more of Known.Existing fails here.
func TestDesiredReadsOnlyTheSlimExisting(t *testing.T) {
	cfg := &config.Config{ClusterID: "prod", CompartmentID: "ocid1.compartment.oc1..c"}
	cfg.LoadBalancer.Subnet1, cfg.LoadBalancer.Subnet2 = "ocid1.subnet.oc1..lb1", "ocid1.subnet.oc1..lb2"
	cfg.LoadBalancer.Naming.Prefix = "prod-" // the scheme's name is prod-<uid>; upstream's, with no prefix, <uid>
	cfg.SetDefaults()
	svc := &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "0c9a4f7e-2b1d-4e3c-8a5f-6d7e8f9a0b1c", Annotations: map[string]string{}},
		Spec: v1.ServiceSpec{Type: v1.ServiceTypeLoadBalancer,
			Ports: []v1.ServicePort{{Name: "http", Protocol: v1.ProtocolTCP, Port: 80, NodePort: 30080}}},
	}
	nodes := []*v1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: v1.NodeStatus{
		Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
		Addresses:  []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: "10.0.10.5"}}}}}
	twoSubnets := svc.DeepCopy()
	twoSubnets.Annotations[string(annotation.Subnet1)] = "ocid1.subnet.oc1..a"
	twoSubnets.Annotations[string(annotation.Subnet2)] = "ocid1.subnet.oc1..b"

	for _, tc := range []struct {
		name     string
		svc      *v1.Service
		existing func(*model.Spec)
		regional map[string]bool
	}{
		{name: "named as upstream names it", svc: svc, existing: func(s *model.Spec) {
			s.Name = lb.UpstreamName(svc, "", model.KindLoadBalancer) // kept under the uid scheme
		}},
		// A load balancer made in both subnets stays there, although the first is regional.
		{name: "in both subnets named, the first regional", svc: twoSubnets, regional: map[string]bool{"ocid1.subnet.oc1..a": true},
			existing: func(s *model.Spec) { s.Subnets = []string{"ocid1.subnet.oc1..a", "ocid1.subnet.oc1..b"} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			whole, err := lb.Desired(tc.svc, nodes, cfg, lb.Known{})
			if err != nil {
				t.Fatal(err)
			}
			// What OCI reports besides: an ID, other backends, a listener, tags.
			whole.ID = "ocid1.loadbalancer.oc1..x"
			whole.BackendSets["TCP-80"] = model.BackendSet{Name: "TCP-80", Policy: "IP_HASH", Backends: []model.Backend{{IP: "10.0.10.9", Port: 30080}}}
			whole.Listeners["TCP-8080"] = model.Listener{Name: "TCP-8080", Port: 8080, Protocol: "TCP", BackendSet: "TCP-80"}
			whole.FreeformTags = map[string]string{"team": "web"}
			tc.existing(whole)

			fromWhole, err := lb.Desired(tc.svc, nodes, cfg, lb.Known{Existing: whole, SubnetRegional: tc.regional})
			if err != nil {
				t.Fatal(err)
			}
			fromSlim, err := lb.Desired(tc.svc, nodes, cfg, lb.Known{Existing: slim(whole), SubnetRegional: tc.regional})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(fromWhole, fromSlim); diff != "" {
				t.Errorf("Desired from the whole load balancer (-) and from slim (+):\n%s", diff)
			}
			fresh, err := lb.Desired(tc.svc, nodes, cfg, lb.Known{SubnetRegional: tc.regional})
			if err != nil {
				t.Fatal(err)
			}
			if cmp.Equal(fresh, fromWhole) {
				t.Error("the case does not depend on what exists: it proves nothing")
			}
		})
	}
}
