// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

func nlbService(opts ...svcOpt) *v1.Service {
	return testService(append([]svcOpt{withAnnotation(annotation.LoadBalancerType, "nlb")}, opts...)...)
}

func udpPort(name string, port, nodePort int32) v1.ServicePort {
	return v1.ServicePort{Name: name, Protocol: v1.ProtocolUDP, Port: port, NodePort: nodePort}
}

func withProviderID(id string) nodeOpt { return func(n *v1.Node) { n.Spec.ProviderID = id } }

func withIPv6(addr string) nodeOpt {
	return func(n *v1.Node) {
		n.Status.Addresses = append(n.Status.Addresses, v1.NodeAddress{Type: v1.NodeInternalIP, Address: addr})
	}
}

func local(s *v1.Service) {
	s.Spec.ExternalTrafficPolicy = v1.ServiceExternalTrafficPolicyLocal
	s.Spec.HealthCheckNodePort = 32000
}

func families(policy v1.IPFamilyPolicy, fams ...v1.IPFamily) svcOpt {
	return func(s *v1.Service) { s.Spec.IPFamilyPolicy, s.Spec.IPFamilies = &policy, fams }
}

var kubeProxyCheck = model.HealthCheck{Protocol: "HTTP", Port: KubeProxyHealthPort, Path: "/healthz", ReturnCode: 200, Retries: 3, IntervalMillis: 10000, TimeoutMillis: 3000}

// TestNLBDesiredBuildsListenersAndBackendSetsPerPortAndProtocol covers the listeners, backend
// sets, backends and health check a network load balancer Service asks for.
func TestNLBDesiredBuildsListenersAndBackendSetsPerPortAndProtocol(t *testing.T) {
	withTarget := []*v1.Node{testNode(1, withProviderID("oci://ocid1.instance.oc1.phx.one")), testNode(2, withProviderID("ocid1.instance.oc1.phx.two")), testNode(3)}
	for _, tc := range []struct {
		name      string
		svc       *v1.Service
		nodes     []*v1.Node
		listeners map[string]model.Listener
		sets      map[string]model.BackendSet
		ports     []model.Port
	}{
		{
			name: "TCP port, backends by instance from the providerID, else by address",
			svc:  nlbService(), nodes: withTarget,
			listeners: map[string]model.Listener{"TCP-80": {Name: "TCP-80", Protocol: "TCP", Port: 80, BackendSet: "TCP-80"}},
			sets: map[string]model.BackendSet{"TCP-80": {Name: "TCP-80", Policy: "FIVE_TUPLE", HealthCheck: kubeProxyCheck, Backends: []model.Backend{
				{IP: "10.0.0.1", Port: 30080, TargetID: "ocid1.instance.oc1.phx.one"},
				{IP: "10.0.0.2", Port: 30080, TargetID: "ocid1.instance.oc1.phx.two"},
				{IP: "10.0.0.3", Port: 30080}}}},
			ports: []model.Port{{Protocol: v1.ProtocolTCP, Listener: 80, NodePort: 30080, HealthCheck: KubeProxyHealthPort}},
		},
		{
			name: "UDP port",
			svc:  nlbService(withPorts(udpPort("dns", 53, 30053))), nodes: nodes(1),
			listeners: map[string]model.Listener{"UDP-53": {Name: "UDP-53", Protocol: "UDP", Port: 53, BackendSet: "UDP-53"}},
			sets: map[string]model.BackendSet{"UDP-53": {Name: "UDP-53", Policy: "FIVE_TUPLE", HealthCheck: kubeProxyCheck,
				Backends: []model.Backend{{IP: "10.0.0.1", Port: 30053}}}},
			ports: []model.Port{{Protocol: v1.ProtocolUDP, Listener: 53, NodePort: 30053, HealthCheck: KubeProxyHealthPort}},
		},
		{
			name: "the same port on TCP and UDP is one TCP_AND_UDP listener; a TCP port beside it its own",
			svc:  nlbService(withPorts(tcpPort("dns-tcp", 53, 30053), udpPort("dns", 53, 30053), tcpPort("web", 80, 30080))), nodes: nodes(1),
			listeners: map[string]model.Listener{
				"TCP_AND_UDP-53": {Name: "TCP_AND_UDP-53", Protocol: "TCP_AND_UDP", Port: 53, BackendSet: "TCP_AND_UDP-53"},
				"TCP-80":         {Name: "TCP-80", Protocol: "TCP", Port: 80, BackendSet: "TCP-80"}},
			sets: map[string]model.BackendSet{
				"TCP_AND_UDP-53": {Name: "TCP_AND_UDP-53", Policy: "FIVE_TUPLE", HealthCheck: kubeProxyCheck, Backends: []model.Backend{{IP: "10.0.0.1", Port: 30053}}},
				"TCP-80":         {Name: "TCP-80", Policy: "FIVE_TUPLE", HealthCheck: kubeProxyCheck, Backends: []model.Backend{{IP: "10.0.0.1", Port: 30080}}}},
			ports: []model.Port{{Protocol: v1.ProtocolTCP, Listener: 53, NodePort: 30053, HealthCheck: KubeProxyHealthPort},
				{Protocol: v1.ProtocolUDP, Listener: 53, NodePort: 30053, HealthCheck: KubeProxyHealthPort},
				{Protocol: v1.ProtocolTCP, Listener: 80, NodePort: 30080, HealthCheck: KubeProxyHealthPort}},
		},
		{
			name: "externalTrafficPolicy Local: healthCheckNodePort, source preserved; annotations override the check, policy and PROXY v2",
			svc: nlbService(local, withAnnotation(annotation.NLBHealthCheckRetries, "5"), withAnnotation(annotation.NLBHealthCheckInterval, "30000"),
				withAnnotation(annotation.NLBHealthCheckTimeout, "4000"), withAnnotation(annotation.NLBBackendPolicy, "two_tuple"),
				withAnnotation(annotation.NLBProxyProtocolV2, "true")),
			nodes:     nodes(1),
			listeners: map[string]model.Listener{"TCP-80": {Name: "TCP-80", Protocol: "TCP", Port: 80, BackendSet: "TCP-80", ProxyProtocolVersion: 2}},
			sets: map[string]model.BackendSet{"TCP-80": {Name: "TCP-80", Policy: "TWO_TUPLE", PreserveSource: true,
				HealthCheck: model.HealthCheck{Protocol: "HTTP", Port: 32000, Path: "/healthz", ReturnCode: 200, Retries: 5, IntervalMillis: 30000, TimeoutMillis: 4000},
				Backends:    []model.Backend{{IP: "10.0.0.1", Port: 30080}}}},
			ports: []model.Port{{Protocol: v1.ProtocolTCP, Listener: 80, NodePort: 30080, HealthCheck: 32000}},
		},
		{
			name: "IPv6 single stack: IPv6 listener and backends by address, named -IPv6 as upstream names them",
			svc:  nlbService(families(v1.IPFamilyPolicySingleStack, v1.IPv6Protocol)),
			nodes: []*v1.Node{testNode(1, withProviderID("oci://ocid1.instance.oc1.phx.one"), withIPv6("fd00::1")),
				testNode(2, withIPv6("fd00::2"))},
			listeners: map[string]model.Listener{"TCP-80-IPv6": {Name: "TCP-80-IPv6", Protocol: "TCP", Port: 80, BackendSet: "TCP-80-IPv6", IPv6: true}},
			sets: map[string]model.BackendSet{"TCP-80-IPv6": {Name: "TCP-80-IPv6", Policy: "FIVE_TUPLE", IPv6: true, HealthCheck: kubeProxyCheck,
				Backends: []model.Backend{{IP: "fd00::1", Port: 30080}, {IP: "fd00::2", Port: 30080}}}},
			ports: []model.Port{{Protocol: v1.ProtocolTCP, Listener: 80, NodePort: 30080, HealthCheck: KubeProxyHealthPort}},
		},
		{
			// As upstream reads it (load_balancer_spec.go, getBackends): a Node's InternalIP is
			// optional for IPv6, so its IPv6 ExternalIP stands in.
			name: "IPv6 backends by the ExternalIP of a Node with no IPv6 InternalIP",
			svc:  nlbService(families(v1.IPFamilyPolicySingleStack, v1.IPv6Protocol)),
			nodes: []*v1.Node{testNode(1, withProviderID("oci://ocid1.instance.oc1.phx.one"), func(n *v1.Node) {
				n.Status.Addresses = append(n.Status.Addresses, v1.NodeAddress{Type: v1.NodeExternalIP, Address: "2001:db8::1"})
			}), testNode(2, withIPv6("fd00::2"), func(n *v1.Node) {
				n.Status.Addresses = append(n.Status.Addresses, v1.NodeAddress{Type: v1.NodeExternalIP, Address: "2001:db8::2"})
			})},
			listeners: map[string]model.Listener{"TCP-80-IPv6": {Name: "TCP-80-IPv6", Protocol: "TCP", Port: 80, BackendSet: "TCP-80-IPv6", IPv6: true}},
			sets: map[string]model.BackendSet{"TCP-80-IPv6": {Name: "TCP-80-IPv6", Policy: "FIVE_TUPLE", IPv6: true, HealthCheck: kubeProxyCheck,
				Backends: []model.Backend{{IP: "2001:db8::1", Port: 30080}, {IP: "fd00::2", Port: 30080}}}},
			ports: []model.Port{{Protocol: v1.ProtocolTCP, Listener: 80, NodePort: 30080, HealthCheck: KubeProxyHealthPort}},
		},
		{
			name:  "RequireDualStack: an IPv4 and an IPv6 listener per port",
			svc:   nlbService(families(v1.IPFamilyPolicyRequireDualStack, v1.IPv4Protocol, v1.IPv6Protocol)),
			nodes: []*v1.Node{testNode(1, withProviderID("oci://ocid1.instance.oc1.phx.one"), withIPv6("fd00::1"))},
			listeners: map[string]model.Listener{
				"TCP-80":      {Name: "TCP-80", Protocol: "TCP", Port: 80, BackendSet: "TCP-80"},
				"TCP-80-IPv6": {Name: "TCP-80-IPv6", Protocol: "TCP", Port: 80, BackendSet: "TCP-80-IPv6", IPv6: true}},
			sets: map[string]model.BackendSet{
				"TCP-80": {Name: "TCP-80", Policy: "FIVE_TUPLE", HealthCheck: kubeProxyCheck,
					Backends: []model.Backend{{IP: "10.0.0.1", Port: 30080, TargetID: "ocid1.instance.oc1.phx.one"}}},
				"TCP-80-IPv6": {Name: "TCP-80-IPv6", Policy: "FIVE_TUPLE", IPv6: true, HealthCheck: kubeProxyCheck,
					Backends: []model.Backend{{IP: "fd00::1", Port: 30080}}}},
			ports: []model.Port{{Protocol: v1.ProtocolTCP, Listener: 80, NodePort: 30080, HealthCheck: KubeProxyHealthPort}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec, err := Desired(tc.svc, tc.nodes, testConfig(), Known{})
			if err != nil {
				t.Fatal(err)
			}
			if spec.Kind != model.KindNetworkLoadBalancer {
				t.Errorf("Kind = %q, want nlb", spec.Kind)
			}
			if diff := cmp.Diff(tc.listeners, spec.Listeners, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("listeners (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.sets, spec.BackendSets, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("backend sets (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.ports, spec.Ports); diff != "" {
				t.Errorf("ports (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNLBDesiredSettings covers the network load balancer's own settings and their defaults.
func TestNLBDesiredSettings(t *testing.T) {
	type settings struct {
		Internal                   bool
		Subnets                    []string
		DefaultedSubnets           bool
		NSGs                       []string
		Mode                       config.SecurityListMode
		Families                   []v1.IPFamily
		PreserveSource             bool
		AssignedIPv4, AssignedIPv6 string
		Freeform                   map[string]string
		Defined                    map[string]map[string]any
		ReservedIP                 string
	}
	base := settings{Subnets: []string{testSubnet1}, DefaultedSubnets: true, Mode: config.SecurityListModeNone, Families: []v1.IPFamily{v1.IPv4Protocol}}
	with := func(f func(*settings)) settings { s := base; f(&s); return s }
	for _, tc := range []struct {
		name string
		svc  *v1.Service
		want settings
	}{
		{"defaults: config subnet1, security lists not managed, IPv4", nlbService(), base},
		{"internal in its own subnet", nlbService(withAnnotation(annotation.NLBInternal, "true"), withAnnotation(annotation.NLBSubnet, "ocid1.subnet.oc1.phx.nlb")),
			with(func(s *settings) {
				s.Internal, s.Subnets, s.DefaultedSubnets = true, []string{"ocid1.subnet.oc1.phx.nlb"}, false
			})},
		// As upstream (getNetworkSecurityGroupIds reads the network load balancer's own
		// annotation only): groups attached at the switch could close the NLB to its clients.
		{"the load balancer's NSG annotation is not read", nlbService(withAnnotation(annotation.NetworkSecurityGroups, "ocid1.networksecuritygroup.oc1.a")), base},
		{"NSGs from the NLB annotation", nlbService(withAnnotation(annotation.NLBNetworkSecurityGroups, "ocid1.networksecuritygroup.oc1.b,ocid1.networksecuritygroup.oc1.a")),
			with(func(s *settings) {
				s.NSGs = []string{"ocid1.networksecuritygroup.oc1.a", "ocid1.networksecuritygroup.oc1.b"}
			})},
		{"security-list mode from the NLB annotation", nlbService(withAnnotation(annotation.NLBSecurityListManagementMode, "All")),
			with(func(s *settings) { s.Mode = config.SecurityListModeAll })},
		{"security-rule-management-mode wins", nlbService(withAnnotation(annotation.NLBSecurityListManagementMode, "All"), withAnnotation(annotation.SecurityRuleManagementMode, "SL-Frontend")),
			with(func(s *settings) { s.Mode = config.SecurityListModeFrontend })},
		{"PreferDualStack is served by the first family (the subnet may have no IPv6 prefix)",
			nlbService(families(v1.IPFamilyPolicyPreferDualStack, v1.IPv4Protocol, v1.IPv6Protocol)), base},
		{"RequireDualStack with both assigned addresses",
			nlbService(families(v1.IPFamilyPolicyRequireDualStack, v1.IPv6Protocol, v1.IPv4Protocol),
				withAnnotation(annotation.NLBAssignedPrivateIPv4, "10.0.0.20"), withAnnotation(annotation.NLBAssignedIPv6, "FD00::20")),
			with(func(s *settings) {
				s.Families, s.AssignedIPv4, s.AssignedIPv6 = []v1.IPFamily{v1.IPv4Protocol, v1.IPv6Protocol}, "10.0.0.20", "fd00::20"
			})},
		{"preserve source defaults on with Local", nlbService(local), with(func(s *settings) { s.PreserveSource = true })},
		{"preserve source may be turned off with Local", nlbService(local, withAnnotation(annotation.NLBPreserveSource, "false")), base},
		{"tag overrides", nlbService(withAnnotation(annotation.NLBInitialFreeformTags, `{"b":"2"}`), withAnnotation(annotation.NLBInitialDefinedTags, `{"ops":{"t":"1"}}`)),
			with(func(s *settings) {
				s.Freeform, s.Defined = map[string]string{"b": "2"}, map[string]map[string]any{"ops": {"t": "1"}}
			})},
		// The upstream CCM reads its older spellings when the current ones are absent
		// (load_balancer_spec.go, getLoadBalancerTags).
		{"the older tag spellings", nlbService(withAnnotation(nlbAnnotationPrefix+"freeform-tags", `{"b":"2"}`), withAnnotation(nlbAnnotationPrefix+"defined-tags", `{"ops":{"t":"1"}}`)),
			with(func(s *settings) {
				s.Freeform, s.Defined = map[string]string{"b": "2"}, map[string]map[string]any{"ops": {"t": "1"}}
			})},
		{"the current tag spelling wins over the older one", nlbService(withAnnotation(nlbAnnotationPrefix+"freeform-tags", `{"a":"1"}`), withAnnotation(annotation.NLBInitialFreeformTags, `{"b":"2"}`)),
			with(func(s *settings) { s.Freeform = map[string]string{"b": "2"} })},
		// and never reads the load balancer's tag annotations on a network load balancer.
		{"the load balancer's tag overrides are not read", nlbService(withAnnotation(annotation.InitialFreeformTags, `{"a":"1"}`), withAnnotation(annotation.InitialDefinedTags, `{"ops":{"t":"1"}}`)),
			base},
		{"reserved public IP", nlbService(func(s *v1.Service) { s.Spec.LoadBalancerIP = "203.0.113.50" }), with(func(s *settings) { s.ReservedIP = "203.0.113.50" })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec, err := Desired(tc.svc, nodes(1), testConfig(), Known{})
			if err != nil {
				t.Fatal(err)
			}
			got := settings{Internal: spec.Internal, Subnets: spec.Subnets, DefaultedSubnets: spec.Defaulted.Subnets, NSGs: spec.NetworkSecurityGroups,
				Mode: spec.SecurityListMode, Families: spec.IPFamilies, PreserveSource: spec.PreserveSource, AssignedIPv4: spec.AssignedIPv4,
				AssignedIPv6: spec.AssignedIPv6, Freeform: spec.FreeformTags, Defined: spec.DefinedTags, ReservedIP: spec.ReservedIP}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("settings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNLBDesiredRefusesBadValuesNamingAnnotationValueAndWhatIsAllowed: each bad value is one
// Problem naming the field, the value and what is allowed.
func TestNLBDesiredRefusesBadValuesNamingAnnotationValueAndWhatIsAllowed(t *testing.T) {
	for _, tc := range []struct {
		name    string
		svc     *v1.Service
		field   string
		value   string
		allowed string // a part of Problem.Allowed
	}{
		{"interval below OCI's minimum", nlbService(withAnnotation(annotation.NLBHealthCheckInterval, "5000")), string(annotation.NLBHealthCheckInterval), "5000", "10000 to 1800000"},
		{"interval above the maximum", nlbService(withAnnotation(annotation.NLBHealthCheckInterval, "1800001")), string(annotation.NLBHealthCheckInterval), "1800001", "10000 to 1800000"},
		{"retries", nlbService(withAnnotation(annotation.NLBHealthCheckRetries, "0")), string(annotation.NLBHealthCheckRetries), "0", "at least 1"},
		{"timeout", nlbService(withAnnotation(annotation.NLBHealthCheckTimeout, "x")), string(annotation.NLBHealthCheckTimeout), "x", "1 to 600000"},
		{"backend policy", nlbService(withAnnotation(annotation.NLBBackendPolicy, "ROUND_ROBIN")), string(annotation.NLBBackendPolicy), "ROUND_ROBIN", "TWO_TUPLE, THREE_TUPLE, FIVE_TUPLE"},
		{"preserve source with Cluster", nlbService(withAnnotation(annotation.NLBPreserveSource, "true")), string(annotation.NLBPreserveSource), "true", "externalTrafficPolicy Local"},
		{"preserve source not a bool", nlbService(local, withAnnotation(annotation.NLBPreserveSource, "yes")), string(annotation.NLBPreserveSource), "yes", "true or false"},
		{"ppv2 not a bool", nlbService(withAnnotation(annotation.NLBProxyProtocolV2, "2")), string(annotation.NLBProxyProtocolV2), "2", "true or false"},
		{"internal not a bool", nlbService(withAnnotation(annotation.NLBInternal, "private")), string(annotation.NLBInternal), "private", "true or false"},
		{"subnet not an OCID", nlbService(withAnnotation(annotation.NLBSubnet, "subnet-1")), string(annotation.NLBSubnet), "subnet-1", "ocid1.subnet."},
		{"NSG not an OCID", nlbService(withAnnotation(annotation.NLBNetworkSecurityGroups, "sg-1")), string(annotation.NLBNetworkSecurityGroups), "sg-1", "ocid1.networksecuritygroup."},
		{"security-list mode", nlbService(withAnnotation(annotation.NLBSecurityListManagementMode, "Some")), string(annotation.NLBSecurityListManagementMode), "Some", "All, Frontend, Backend, None"},
		{"node label selector", nlbService(withAnnotation(annotation.NLBNodeLabelSelector, "a in (")), string(annotation.NLBNodeLabelSelector), "a in (", "label selector"},
		{"freeform tags", nlbService(withAnnotation(annotation.NLBInitialFreeformTags, "team=edge")), string(annotation.NLBInitialFreeformTags), "team=edge", "JSON object"},
		{"defined tags", nlbService(withAnnotation(annotation.NLBInitialDefinedTags, `{"a":"b"}`)), string(annotation.NLBInitialDefinedTags), `{"a":"b"}`, "JSON object of tag namespaces"},
		{"external-ip-only is read as a bool", nlbService(withAnnotation(annotation.NLBExternalIPOnly, "public")), string(annotation.NLBExternalIPOnly), "public", "true or false"},
		{"assigned IPv4 not IPv4", nlbService(withAnnotation(annotation.NLBAssignedPrivateIPv4, "fd00::1")), string(annotation.NLBAssignedPrivateIPv4), "fd00::1", "IPv4 address"},
		{"assigned IPv6 on an IPv4 Service", nlbService(withAnnotation(annotation.NLBAssignedIPv6, "fd00::1")), string(annotation.NLBAssignedIPv6), "fd00::1", "do not include IPv6"},
		{"SCTP port", nlbService(withPorts(v1.ServicePort{Protocol: v1.ProtocolSCTP, Port: 9, NodePort: 30009})), "spec.ports[0].protocol", "SCTP", "TCP or UDP"},
		{"TCP and UDP of one port on two node ports", nlbService(withPorts(tcpPort("a", 53, 30053), udpPort("b", 53, 30054))), "spec.ports[1].nodePort", "30054", "30053"},
		{"a load balancer annotation", nlbService(withAnnotation(annotation.Internal, "true")), string(annotation.Internal), "true", "use " + string(annotation.NLBInternal)},
		{"adopting a load balancer", nlbService(withAnnotation(annotation.AdoptLoadBalancerID, "ocid1.loadbalancer.oc1.x")), string(annotation.AdoptLoadBalancerID), "ocid1.loadbalancer.oc1.x", "ocid1.networkloadbalancer."},
		{"a network load balancer annotation on a load balancer", testService(withAnnotation(annotation.NLBBackendPolicy, "TWO_TUPLE")), string(annotation.NLBBackendPolicy), "TWO_TUPLE", "load-balancer-type: nlb"},
		{"an unknown network load balancer annotation", nlbService(withAnnotation(nlbAnnotationPrefix+"is-fast", "true")), nlbAnnotationPrefix + "is-fast", "true", "does not know"},
		{"the older tag spelling not JSON", nlbService(withAnnotation(nlbAnnotationPrefix+"defined-tags", "ops.t=1")), nlbAnnotationPrefix + "defined-tags", "ops.t=1", "JSON object"},
		{"a bad family", nlbService(families(v1.IPFamilyPolicySingleStack, "IPv5")), "spec.ipFamilies[0]", "IPv5", "IPv4 or IPv6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Desired(tc.svc, nodes(1), testConfig(), Known{})
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Desired = %v, want a *ValidationError", err)
			}
			var got []string
			for _, p := range ve.Problems {
				got = append(got, fmt.Sprintf("%s=%q: %s", p.Field, p.Value, p.Allowed))
			}
			if len(ve.Problems) != 1 || ve.Problems[0].Field != tc.field || ve.Problems[0].Value != tc.value || !strings.Contains(ve.Problems[0].Allowed, tc.allowed) {
				t.Errorf("problems = %q, want one for %s=%q allowing %q", got, tc.field, tc.value, tc.allowed)
			}
		})
	}
}

// TestNLBDefaultSourceRangesFollowTheFamilies: with no source ranges, or only Kubernetes'
// default 0.0.0.0/0, a network load balancer admits every address of its families, as the
// upstream CCM does: ::/0 for IPv6, both for dual stack. Other ranges, given or the config's
// defaults, apply as written; a classic load balancer (IPv4 only) admits 0.0.0.0/0.
func TestNLBDefaultSourceRangesFollowTheFamilies(t *testing.T) {
	v6 := families(v1.IPFamilyPolicySingleStack, v1.IPv6Protocol)
	dual := families(v1.IPFamilyPolicyRequireDualStack, v1.IPv4Protocol, v1.IPv6Protocol)
	ranges := func(r ...string) svcOpt { return func(s *v1.Service) { s.Spec.LoadBalancerSourceRanges = r } }
	cfgDefault := testConfig()
	cfgDefault.LoadBalancer.DefaultSourceCIDRs = []string{"10.0.0.0/8"}
	cfgAny := testConfig()
	cfgAny.LoadBalancer.DefaultSourceCIDRs = []string{"0.0.0.0/0"} // as config.Config.SetDefaults sets it
	for _, tc := range []struct {
		name string
		svc  *v1.Service
		cfg  *config.Config
		want []string
	}{
		{"IPv4", nlbService(), testConfig(), []string{"0.0.0.0/0"}},
		{"IPv6", nlbService(v6), testConfig(), []string{"::/0"}},
		{"dual stack", nlbService(dual), testConfig(), []string{"0.0.0.0/0", "::/0"}},
		{"IPv6 with only 0.0.0.0/0 given", nlbService(v6, ranges("0.0.0.0/0")), testConfig(), []string{"::/0"}},
		{"dual stack with only 0.0.0.0/0 given", nlbService(dual, withAnnotation(annotation.SourceRanges, "0.0.0.0/0")), testConfig(),
			[]string{"0.0.0.0/0", "::/0"}},
		{"IPv6 with ranges given", nlbService(v6, ranges("2001:db8::/32")), testConfig(), []string{"2001:db8::/32"}},
		{"IPv6 with the config's defaults", nlbService(v6), cfgDefault, []string{"10.0.0.0/8"}},
		{"IPv6 with the config's default 0.0.0.0/0", nlbService(v6), cfgAny, []string{"::/0"}},
		{"classic load balancer, PreferDualStack", testService(families(v1.IPFamilyPolicyPreferDualStack, v1.IPv4Protocol, v1.IPv6Protocol)),
			testConfig(), []string{"0.0.0.0/0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec, err := Desired(tc.svc, nil, tc.cfg, Known{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, spec.SourceCIDRs); diff != "" {
				t.Errorf("SourceCIDRs (-want +got):\n%s", diff)
			}
		})
	}
}
