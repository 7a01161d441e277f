// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/internal/freeform"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

const (
	testSubnet1     = "ocid1.subnet.oc1.phx.aaaa"
	testSubnet2     = "ocid1.subnet.oc1.phx.bbbb"
	testCompartment = "ocid1.compartment.oc1..cccc"
	testCluster     = "prod"
)

func testConfig() *config.Config {
	return &config.Config{
		CompartmentID: testCompartment,
		LoadBalancer: config.LoadBalancer{
			Subnet1: testSubnet1,
			Subnet2: testSubnet2,
		},
	}
}

// svcOpt changes a test Service.
type svcOpt func(*v1.Service)

// testService is a TCP Service web/default with port 80 → node port 30080.
func testService(opts ...svcOpt) *v1.Service {
	s := &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: types.UID("0b7f4d5e-1c2a-4e8b-9f10-aa11bb22cc33"), Annotations: map[string]string{}},
		Spec: v1.ServiceSpec{
			Type:                  v1.ServiceTypeLoadBalancer,
			ExternalTrafficPolicy: v1.ServiceExternalTrafficPolicyCluster,
			SessionAffinity:       v1.ServiceAffinityNone,
			Ports:                 []v1.ServicePort{{Name: "http", Protocol: v1.ProtocolTCP, Port: 80, NodePort: 30080}},
		},
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

func withAnnotation(a annotation.Name, v string) svcOpt {
	return func(s *v1.Service) { s.Annotations[string(a)] = v }
}

func withPorts(ports ...v1.ServicePort) svcOpt {
	return func(s *v1.Service) { s.Spec.Ports = ports }
}

func tcpPort(name string, port, nodePort int32) v1.ServicePort {
	return v1.ServicePort{Name: name, Protocol: v1.ProtocolTCP, Port: port, NodePort: nodePort}
}

// nodeOpt changes a test Node.
type nodeOpt func(*v1.Node)

// testNode is a Ready Node with InternalIP 10.0.0.<n>. Its providerID is in OCI's form but names
// no instance (these tests' load balancers reach Nodes by address; a network load balancer sends
// such a Node by address, not by instance target).
func testNode(n int, opts ...nodeOpt) *v1.Node {
	node := &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%d", n), Labels: map[string]string{"pool": "web"}},
		Spec:       v1.NodeSpec{ProviderID: fmt.Sprintf("oci://ocid1.testnode.oc1..node-%d", n)},
		Status: v1.NodeStatus{
			Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
			Addresses: []v1.NodeAddress{
				{Type: v1.NodeHostName, Address: fmt.Sprintf("node-%d", n)},
				{Type: v1.NodeInternalIP, Address: fmt.Sprintf("10.0.0.%d", n)},
				{Type: v1.NodeExternalIP, Address: fmt.Sprintf("203.0.113.%d", n)},
			},
		},
	}
	for _, o := range opts {
		o(node)
	}
	return node
}

func nodes(ns ...int) []*v1.Node {
	out := make([]*v1.Node, len(ns))
	for i, n := range ns {
		out[i] = testNode(n)
	}
	return out
}

func notReady(n *v1.Node) { n.Status.Conditions[0].Status = v1.ConditionFalse }

func labelled(k, v string) nodeOpt { return func(n *v1.Node) { n.Labels[k] = v } }

// testTLS is fake PEM material: Desired and Diff treat it as opaque text.
func testTLS(version string) TLSSecret {
	return TLSSecret{
		Certificate: "-----BEGIN CERTIFICATE-----\nweb-" + version + "\n-----END CERTIFICATE-----",
		Key:         config.Secret("-----BEGIN PRIVATE KEY-----\nkey-" + version + "\n-----END PRIVATE KEY-----"),
	}
}

// mustDesired is Desired for a Service expected to be valid, with the test cluster as owner.
func mustDesired(t interface {
	Helper()
	Fatalf(string, ...any)
}, svc *v1.Service, ns []*v1.Node, secrets Secrets) *model.Spec {
	t.Helper()
	s, err := Desired(svc, ns, testConfig(), Known{Secrets: secrets})
	if err != nil {
		t.Fatalf("Desired: %v", err)
	}
	s.Owner.Cluster = testCluster
	return s
}

// asObserved turns a desired Spec into what Observe would report for a load balancer built from
// it: an ID, ownership, NSG and rule-set tags, no private keys and no desired-only fields.
func asObserved(d *model.Spec) *model.Spec {
	o := d.Clone()
	o.ID = "ocid1.loadbalancer.oc1.phx.test"
	o.FreeformTags, _ = freeform.WithOwner(d.FreeformTags, d.Owner)
	o.FreeformTags, _ = freeform.WithNSGs(o.FreeformTags, d.NetworkSecurityGroups)
	o.FreeformTags, _ = freeform.WithRuleSets(o.FreeformTags, ruleSetNames(d.RuleSets))
	o.Defaulted = model.Defaulted{}
	o.Ports, o.SourceCIDRs, o.SecurityListMode, o.IPFamilies, o.IPMode, o.ExcludedNodes, o.AdoptID = nil, nil, "", nil, nil, nil, ""
	for name, c := range o.Certificates {
		c.PrivateKey, c.Passphrase = "", ""
		o.Certificates[name] = c
	}
	return o
}

func intstrFromInt(i int) intstr.IntOrString { return intstr.FromInt32(int32(i)) }
