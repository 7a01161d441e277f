// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

func TestDesiredBuildsUpstreamCompatibleSpecForPlainTCPService(t *testing.T) {
	got := mustDesired(t, testService(), nodes(2, 1), nil)
	hc := model.HealthCheck{Protocol: "HTTP", Port: 10256, Path: "/healthz", ReturnCode: 200, Retries: 3, IntervalMillis: 10000, TimeoutMillis: 3000}
	want := &model.Spec{
		Kind:          model.KindLoadBalancer,
		Name:          "0b7f4d5e-1c2a-4e8b-9f10-aa11bb22cc33",
		CompartmentID: testCompartment,
		Subnets:       []string{testSubnet1, testSubnet2},
		Shape:         model.Shape{Name: "flexible", MinMbps: 10, MaxMbps: 100},
		Listeners: map[string]model.Listener{
			"TCP-80": {Name: "TCP-80", Protocol: "TCP", Port: 80, BackendSet: "TCP-80", IdleTimeoutSeconds: 300},
		},
		BackendSets: map[string]model.BackendSet{
			"TCP-80": {Name: "TCP-80", Policy: "ROUND_ROBIN", HealthCheck: hc,
				Backends: []model.Backend{{IP: "10.0.0.1", Port: 30080}, {IP: "10.0.0.2", Port: 30080}}},
		},
		Certificates:     map[string]model.Certificate{},
		Owner:            model.Owner{Cluster: testCluster, Service: "default/web", UID: "0b7f4d5e-1c2a-4e8b-9f10-aa11bb22cc33"},
		Defaulted:        model.Defaulted{Subnets: true, Shape: true, Compartment: true},
		Ports:            []model.Port{{Protocol: v1.ProtocolTCP, Listener: 80, NodePort: 30080, HealthCheck: 10256}},
		SourceCIDRs:      []string{"0.0.0.0/0"},
		SecurityListMode: config.SecurityListModeAll,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Desired (-want +got):\n%s", diff)
	}
}

func TestDesiredHealthCheck(t *testing.T) {
	local := func(s *v1.Service) {
		s.Spec.ExternalTrafficPolicy = v1.ServiceExternalTrafficPolicyLocal
		s.Spec.HealthCheckNodePort = 31999
	}
	tests := []struct {
		name string
		svc  *v1.Service
		want model.HealthCheck
	}{
		{"cluster traffic policy probes kube-proxy", testService(),
			model.HealthCheck{Protocol: "HTTP", Port: 10256, Path: "/healthz", ReturnCode: 200, Retries: 3, IntervalMillis: 10000, TimeoutMillis: 3000}},
		{"local traffic policy probes the health-check node port", testService(local),
			model.HealthCheck{Protocol: "HTTP", Port: 31999, Path: "/healthz", ReturnCode: 200, Retries: 3, IntervalMillis: 10000, TimeoutMillis: 3000}},
		{"annotations override retries, interval and timeout", testService(local,
			withAnnotation(annotation.HealthCheckRetries, "5"),
			withAnnotation(annotation.HealthCheckInterval, "5000"),
			withAnnotation(annotation.HealthCheckTimeout, "2000")),
			model.HealthCheck{Protocol: "HTTP", Port: 31999, Path: "/healthz", ReturnCode: 200, Retries: 5, IntervalMillis: 5000, TimeoutMillis: 2000}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := mustDesired(t, tc.svc, nodes(1), nil)
			if diff := cmp.Diff(tc.want, got.BackendSets["TCP-80"].HealthCheck); diff != "" {
				t.Errorf("health check (-want +got):\n%s", diff)
			}
			if got.Ports[0].HealthCheck != tc.want.Port {
				t.Errorf("Ports[0].HealthCheck = %d, want %d", got.Ports[0].HealthCheck, tc.want.Port)
			}
		})
	}
}

func TestDesiredReportsEveryBadValueNamingTheField(t *testing.T) {
	tests := []struct {
		name   string
		svc    *v1.Service
		fields []string
	}{
		{"internal not a bool", testService(withAnnotation(annotation.Internal, "yes")), []string{string(annotation.Internal)}},
		{"unknown shape", testService(withAnnotation(annotation.Shape, "huge")), []string{string(annotation.Shape)}},
		{"flex bandwidth above OCI's maximum", testService(withAnnotation(annotation.ShapeFlexMax, "9000")), []string{string(annotation.ShapeFlexMax)}},
		{"flex bandwidth not a number", testService(withAnnotation(annotation.ShapeFlexMin, "fast")), []string{string(annotation.ShapeFlexMin)}},
		{"subnet not an OCID", testService(withAnnotation(annotation.Subnet1, "subnet-a")), []string{string(annotation.Subnet1)}},
		{"ssl port not a port of the Service", testService(withAnnotation(annotation.SSLPorts, "443"), withAnnotation(annotation.TLSSecret, "web-tls")),
			[]string{string(annotation.SSLPorts)}},
		{"ssl ports without a secret", testService(withAnnotation(annotation.SSLPorts, "80")), []string{string(annotation.SSLPorts)}},
		{"tls secret missing", testService(withAnnotation(annotation.SSLPorts, "80"), withAnnotation(annotation.TLSSecret, "absent")),
			[]string{string(annotation.TLSSecret)}},
		{"unknown backend protocol", testService(withAnnotation(annotation.BackendProtocol, "UDP")), []string{string(annotation.BackendProtocol)}},
		{"GRPC without TLS", testService(withAnnotation(annotation.BackendProtocol, "GRPC")), []string{string(annotation.BackendProtocol)}},
		{"retries not a number", testService(withAnnotation(annotation.HealthCheckRetries, "three")), []string{string(annotation.HealthCheckRetries)}},
		{"interval too short", testService(withAnnotation(annotation.HealthCheckInterval, "10")), []string{string(annotation.HealthCheckInterval)}},
		{"timeout zero", testService(withAnnotation(annotation.HealthCheckTimeout, "0")), []string{string(annotation.HealthCheckTimeout)}},
		{"idle timeout too long", testService(withAnnotation(annotation.ConnectionIdleTimeout, "9000")), []string{string(annotation.ConnectionIdleTimeout)}},
		{"proxy protocol 3", testService(withAnnotation(annotation.ProxyProtocolVersion, "3")), []string{string(annotation.ProxyProtocolVersion)}},
		{"proxy protocol with HTTP", testService(withAnnotation(annotation.ProxyProtocolVersion, "2"), withAnnotation(annotation.BackendProtocol, "HTTP")),
			[]string{string(annotation.ProxyProtocolVersion)}},
		{"unknown security list mode", testService(withAnnotation(annotation.SecurityListManagementMode, "Some")),
			[]string{string(annotation.SecurityListManagementMode)}},
		{"unknown policy", testService(withAnnotation(annotation.Policy, "RANDOM")), []string{string(annotation.Policy)}},
		{"NSG not an OCID", testService(withAnnotation(annotation.NetworkSecurityGroups, "ocid1.subnet.oc1..x")), []string{string(annotation.NetworkSecurityGroups)}},
		{"six NSGs", testService(withAnnotation(annotation.NetworkSecurityGroups,
			"ocid1.networksecuritygroup.a,ocid1.networksecuritygroup.b,ocid1.networksecuritygroup.c,ocid1.networksecuritygroup.d,ocid1.networksecuritygroup.e,ocid1.networksecuritygroup.f")),
			[]string{string(annotation.NetworkSecurityGroups)}},
		{"freeform tags not JSON", testService(withAnnotation(annotation.InitialFreeformTags, "team=web")), []string{string(annotation.InitialFreeformTags)}},
		{"defined tags not nested", testService(withAnnotation(annotation.InitialDefinedTags, `{"a":"b"}`)), []string{string(annotation.InitialDefinedTags)}},
		{"bad node selector", testService(withAnnotation(annotation.NodeLabelSelector, "a in (")), []string{string(annotation.NodeLabelSelector)}},
		{"unknown load balancer type", testService(withAnnotation(annotation.LoadBalancerType, "alb")), []string{string(annotation.LoadBalancerType)}},
		{"listener ssl config unknown field", testService(withAnnotation(annotation.ListenerSSLConfig, `{"Cipher":"x"}`)), []string{string(annotation.ListenerSSLConfig)}},
		{"backend ssl config bad protocol", testService(withAnnotation(annotation.BackendSetSSLConfig, `{"Protocols":["SSLv3"]}`)), []string{string(annotation.BackendSetSSLConfig)}},
		{"bad source range annotation", testService(withAnnotation(annotation.SourceRanges, "10.0.0.0/33")), []string{string(annotation.SourceRanges)}},
		{"bad ip mode", testService(withAnnotation(annotation.IngressIPMode, "Direct")), []string{string(annotation.IngressIPMode)}},
		{"adopt id not a load balancer", testService(withAnnotation(annotation.AdoptLoadBalancerID, "ocid1.subnet.x")), []string{string(annotation.AdoptLoadBalancerID)}},
		{"session affinity ClientIP", testService(func(s *v1.Service) { s.Spec.SessionAffinity = v1.ServiceAffinityClientIP }),
			[]string{"spec.sessionAffinity"}},
		{"IPv6 only", testService(func(s *v1.Service) { s.Spec.IPFamilies = []v1.IPFamily{v1.IPv6Protocol} }), []string{"spec.ipFamilies"}},
		{"loadBalancerIP not an address", testService(func(s *v1.Service) { s.Spec.LoadBalancerIP = "my-ip" }), []string{"spec.loadBalancerIP"}},
		{"loadBalancerIP on internal", testService(withAnnotation(annotation.Internal, "true"), func(s *v1.Service) { s.Spec.LoadBalancerIP = "192.0.2.10" }),
			[]string{"spec.loadBalancerIP"}},
		{"bad source range in spec", testService(func(s *v1.Service) { s.Spec.LoadBalancerSourceRanges = []string{"nope"} }),
			[]string{"spec.loadBalancerSourceRanges"}},
		{"UDP port", testService(withPorts(v1.ServicePort{Protocol: v1.ProtocolUDP, Port: 53, NodePort: 30053})), []string{"spec.ports[0].protocol"}},
		{"no node port", testService(withPorts(tcpPort("http", 80, 0))), []string{"spec.ports[0].nodePort"}},
		{"local traffic without health-check port", testService(func(s *v1.Service) { s.Spec.ExternalTrafficPolicy = v1.ServiceExternalTrafficPolicyLocal }),
			[]string{"spec.healthCheckNodePort"}},
		{"every problem at once", testService(
			withAnnotation(annotation.Internal, "maybe"),
			withAnnotation(annotation.Shape, "tiny"),
			withAnnotation(annotation.Policy, "RANDOM"),
			func(s *v1.Service) { s.Spec.SessionAffinity = v1.ServiceAffinityClientIP }),
			[]string{string(annotation.Internal), string(annotation.Shape), "spec.sessionAffinity", string(annotation.Policy)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Desired(tc.svc, nodes(1), testConfig(), Known{Secrets: Secrets{{Namespace: "default", Name: "web-tls"}: testTLS("v1")}})
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("Desired error = %v, want a *ValidationError", err)
			}
			var fields []string
			for _, p := range verr.Problems {
				fields = append(fields, p.Field)
				if p.Allowed == "" {
					t.Errorf("problem %q says nothing about what is allowed", p.Field)
				}
			}
			if diff := cmp.Diff(tc.fields, fields); diff != "" {
				t.Errorf("problem fields (-want +got):\n%s\nerror: %v", diff, err)
			}
			var p *Problem
			if !errors.As(err, &p) {
				t.Errorf("errors.As(err, *Problem) failed for %v", err)
			}
		})
	}
}

// TestEmptyAnnotationsTheUpstreamCCMDefaultsAreDefaults: an annotation set to "" means its
// default where the upstream CCM reads it so (load_balancer_spec.go: getLoadBalancerType,
// getSecurityListManagementMode, and the backend protocol, idle timeout and PROXY protocol
// version in getListenersOciLoadBalancer), so a Service it accepted is not refused here.
func TestEmptyAnnotationsTheUpstreamCCMDefaultsAreDefaults(t *testing.T) {
	want, err := Desired(testService(), nodes(2), testConfig(), Known{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []annotation.Name{annotation.LoadBalancerType, annotation.BackendProtocol, annotation.SecurityListManagementMode,
		annotation.ConnectionIdleTimeout, annotation.ProxyProtocolVersion} {
		t.Run(string(a), func(t *testing.T) {
			got, err := Desired(testService(withAnnotation(a, "")), nodes(2), testConfig(), Known{})
			if err != nil {
				t.Fatalf("%s: \"\": %v", a, err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: \"\" is not the default (-default +got):\n%s", a, diff)
			}
		})
	}
}

// TestFlexibleShapeBandwidthIsReadAsTheUpstreamCCMReadsIt (load_balancer_spec.go, getLBShape,
// and load_balancer_util.go, parseFlexibleShapeBandwidth): a bandwidth below OCI's 10 Mbps is
// 10, a maximum below the minimum is the minimum, punctuation and a "Mbps" suffix are dropped,
// and the flex annotations beside a fixed shape are not read. Services the upstream CCM served
// are not refused.
func TestFlexibleShapeBandwidthIsReadAsTheUpstreamCCMReadsIt(t *testing.T) {
	for _, tc := range []struct {
		name string
		ann  map[annotation.Name]string
		want model.Shape
	}{
		{"below 10 Mbps", map[annotation.Name]string{annotation.ShapeFlexMin: "0", annotation.ShapeFlexMax: "5"}, model.Shape{Name: "flexible", MinMbps: 10, MaxMbps: 10}},
		{"maximum below the minimum", map[annotation.Name]string{annotation.ShapeFlexMin: "200", annotation.ShapeFlexMax: "100"}, model.Shape{Name: "flexible", MinMbps: 200, MaxMbps: 200}},
		{"punctuation and unit", map[annotation.Name]string{annotation.ShapeFlexMin: "1,000 Mbps", annotation.ShapeFlexMax: "2000mbps"}, model.Shape{Name: "flexible", MinMbps: 1000, MaxMbps: 2000}},
		{"a fixed shape ignores them", map[annotation.Name]string{annotation.Shape: "100Mbps", annotation.ShapeFlexMin: "10", annotation.ShapeFlexMax: "banana"}, model.Shape{Name: "100Mbps"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var opts []svcOpt
			for a, v := range tc.ann {
				opts = append(opts, withAnnotation(a, v))
			}
			spec, err := Desired(testService(opts...), nodes(1), testConfig(), Known{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, spec.Shape); diff != "" {
				t.Errorf("shape (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHealthCheckRetriesHaveNoUpperBoundOfOurOwn: the upstream CCM sends any retry count and
// leaves the bound to OCI, which documents none (HealthCheckerDetails.Retries), so a Service it
// served with 20 retries is not refused here.
func TestHealthCheckRetriesHaveNoUpperBoundOfOurOwn(t *testing.T) {
	for _, svc := range []*v1.Service{testService(withAnnotation(annotation.HealthCheckRetries, "20")),
		testService(withAnnotation(annotation.LoadBalancerType, "nlb"), withAnnotation(annotation.NLBHealthCheckRetries, "20"))} {
		spec, err := Desired(svc, nodes(1), testConfig(), Known{})
		if err != nil {
			t.Fatal(err)
		}
		for name, bs := range spec.BackendSets {
			if bs.HealthCheck.Retries != 20 {
				t.Errorf("%s backend set %s: %d retries, want 20", spec.Kind, name, bs.HealthCheck.Retries)
			}
		}
	}
}

func TestDesiredProblemNamesAnnotationValueAndAllowed(t *testing.T) {
	_, err := Desired(testService(withAnnotation(annotation.Policy, "RANDOM")), nil, testConfig(), Known{})
	want := `service default/web: 1 invalid setting(s); oci.oraclecloud.com/loadbalancer-policy: invalid value "RANDOM": one of ROUND_ROBIN, LEAST_CONNECTIONS, IP_HASH`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant    %s", err, want)
	}
}

// The service controller does not call the provider when a Node turns Ready (KEP-3458), so a
// NotReady Node must already be a backend; the health check keeps traffic off it until it serves.
func TestNotReadyNodesAreBackendsBecauseReadinessChangesNeverReachTheProvider(t *testing.T) {
	ns := []*v1.Node{testNode(1, notReady), testNode(2, func(n *v1.Node) { n.Status.Conditions = nil })}
	got := mustDesired(t, testService(), ns, nil)
	want := []model.Backend{{IP: "10.0.0.1", Port: 30080}, {IP: "10.0.0.2", Port: 30080}}
	if diff := cmp.Diff(want, got.BackendSets["TCP-80"].Backends); diff != "" {
		t.Errorf("backends (-want +got):\n%s", diff)
	}
	if len(got.ExcludedNodes) != 0 {
		t.Errorf("excluded = %v, want none", got.ExcludedNodes)
	}
}

func TestDesiredWithNoBackendsIsValid(t *testing.T) {
	ns := []*v1.Node{
		testNode(2, labelled(v1.LabelNodeExcludeBalancers, "")),
		testNode(3, labelled("pool", "batch")),
		testNode(4, func(n *v1.Node) { n.Status.Addresses = nil }),
		testNode(5, func(n *v1.Node) { n.DeletionTimestamp = &metav1.Time{} }),
		nil,
	}
	svc := testService(withAnnotation(annotation.NodeLabelSelector, "pool=web"))
	got := mustDesired(t, svc, ns, nil)
	if bs := got.BackendSets["TCP-80"]; len(bs.Backends) != 0 {
		t.Errorf("backends = %v, want none", bs.Backends)
	}
	want := map[string]string{
		"node-2": reasonExcludeLabel, "node-3": reasonNotSelected,
		"node-4": reasonNoInternalIP, "node-5": reasonDeleting,
	}
	if diff := cmp.Diff(want, got.ExcludedNodes); diff != "" {
		t.Errorf("excluded nodes (-want +got):\n%s", diff)
	}
	if _, ok := got.Listeners["TCP-80"]; !ok {
		t.Errorf("listener TCP-80 missing: a Service with no backends keeps its listeners")
	}
}

// TestNodesWithoutAnOCIProviderIDAreNotBackendsOfEitherKind: as the upstream CCM (getBackends
// skips a Node whose providerID MapProviderIDToResourceID refuses), a Node the cloud node
// controller has not initialised, or one whose providerID names another cloud, is left out with
// the reason; "oci://…" and a bare OCID are both OCI's.
func TestNodesWithoutAnOCIProviderIDAreNotBackendsOfEitherKind(t *testing.T) {
	withID := func(id string) nodeOpt { return func(n *v1.Node) { n.Spec.ProviderID = id } }
	ns := []*v1.Node{
		testNode(1, withID("")),
		testNode(2, withID("aws:///us-east-1a/i-0abc")),
		testNode(3, withID("oci://")),
		testNode(4, withID("oci://ocid1.instance.oc1.phx.four")),
		testNode(5, withID("ocid1.instance.oc1.phx.five")),
	}
	wantExcluded := map[string]string{"node-1": reasonNoProviderID, "node-2": reasonNoProviderID, "node-3": reasonNoProviderID}
	for _, kind := range []string{"lb", "nlb"} {
		t.Run(kind, func(t *testing.T) {
			got := mustDesired(t, testService(withAnnotation(annotation.LoadBalancerType, kind)), ns, nil)
			var ips []string
			for _, b := range got.BackendSets["TCP-80"].Backends {
				ips = append(ips, b.IP)
			}
			if diff := cmp.Diff([]string{"10.0.0.4", "10.0.0.5"}, ips); diff != "" {
				t.Errorf("backends (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantExcluded, got.ExcludedNodes); diff != "" {
				t.Errorf("excluded nodes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestConfigSubnet2WithoutSubnet1NeedsEachServicesFirstSubnet: with loadBalancer.subnet2 alone
// in the config, as the upstream CCM starts with, a Service naming its first subnet gets both, and
// one that names none is refused on oci-load-balancer-subnet1 (upstream: "a subnet must be
// specified"), never given the second subnet as its only one.
func TestConfigSubnet2WithoutSubnet1NeedsEachServicesFirstSubnet(t *testing.T) {
	cfg := testConfig()
	cfg.LoadBalancer.Subnet1 = ""
	got, err := Desired(testService(withAnnotation(annotation.Subnet1, testSubnet1)), nodes(1), cfg, Known{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{testSubnet1, testSubnet2}, got.Subnets); diff != "" {
		t.Errorf("subnets (-want +got):\n%s", diff)
	}
	_, err = Desired(testService(), nodes(1), cfg, Known{})
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 1 || ve.Problems[0].Field != string(annotation.Subnet1) ||
		!strings.Contains(err.Error(), "loadBalancer.subnet2 but not loadBalancer.subnet1") {
		t.Errorf("a Service naming no subnet: got %v, want a problem on %s saying the config has only subnet2", err, annotation.Subnet1)
	}
}

func TestDesiredBackendsAreSelectedNodesByInternalIP(t *testing.T) {
	ns := []*v1.Node{testNode(12), testNode(3), testNode(7, labelled("pool", "batch"))}
	got := mustDesired(t, testService(withAnnotation(annotation.NodeLabelSelector, "pool in (web)")), ns, nil)
	want := []model.Backend{{IP: "10.0.0.3", Port: 30080}, {IP: "10.0.0.12", Port: 30080}}
	if diff := cmp.Diff(want, got.BackendSets["TCP-80"].Backends); diff != "" {
		t.Errorf("backends (-want +got):\n%s", diff)
	}
}

// The nginx SSL example: 80 and 443 both target container port 80.
func TestDesiredTwoPortsWithTheSameTargetPortGetOneListenerAndBackendSetEach(t *testing.T) {
	p80, p443 := tcpPort("http", 80, 30080), tcpPort("https", 443, 30443)
	p80.TargetPort, p443.TargetPort = intstrFromInt(80), intstrFromInt(80)
	svc := testService(withPorts(p80, p443),
		withAnnotation(annotation.SSLPorts, "443"),
		withAnnotation(annotation.TLSSecret, "web-tls"))
	secrets := Secrets{{Namespace: "default", Name: "web-tls"}: testTLS("v1")}
	got := mustDesired(t, svc, nodes(1), secrets)

	cert := certificateName("web-tls", model.Certificate{PublicCertificate: testTLS("v1").Certificate, PrivateKey: testTLS("v1").Key})
	wantListeners := map[string]model.Listener{
		"TCP-80":  {Name: "TCP-80", Protocol: "TCP", Port: 80, BackendSet: "TCP-80", IdleTimeoutSeconds: 300},
		"TCP-443": {Name: "TCP-443", Protocol: "TCP", Port: 443, BackendSet: "TCP-443", IdleTimeoutSeconds: 300, TLS: &model.TLS{Certificate: cert}},
	}
	if diff := cmp.Diff(wantListeners, got.Listeners); diff != "" {
		t.Errorf("listeners (-want +got):\n%s", diff)
	}
	var backendPorts []int
	for _, name := range slices.Sorted(maps.Keys(got.BackendSets)) {
		backendPorts = append(backendPorts, got.BackendSets[name].Backends[0].Port)
	}
	if diff := cmp.Diff([]int{30443, 30080}, backendPorts); diff != "" {
		t.Errorf("backend ports of TCP-443, TCP-80 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{30080, 30443}, got.NodePorts()); diff != "" {
		t.Errorf("NodePorts (-want +got):\n%s", diff)
	}
	if _, ok := got.Certificates[cert]; !ok || len(got.Certificates) != 1 {
		t.Errorf("certificates = %v, want only %s", slices.Sorted(maps.Keys(got.Certificates)), cert)
	}
}

func TestDesiredCertificateNameChangesWithSecretContent(t *testing.T) {
	svc := testService(withAnnotation(annotation.SSLPorts, "80"), withAnnotation(annotation.TLSSecret, "certs/web-tls"))
	ref := SecretRef{Namespace: "certs", Name: "web-tls"}
	v1spec := mustDesired(t, svc, nil, Secrets{ref: testTLS("v1")})
	again := mustDesired(t, svc, nil, Secrets{ref: testTLS("v1")})
	v2spec := mustDesired(t, svc, nil, Secrets{ref: testTLS("v2")})
	c1, c1again, c2 := v1spec.Listeners["TCP-80"].TLS.Certificate, again.Listeners["TCP-80"].TLS.Certificate, v2spec.Listeners["TCP-80"].TLS.Certificate
	if c1 != c1again {
		t.Errorf("same Secret gave names %q and %q", c1, c1again)
	}
	if c1 == c2 {
		t.Errorf("changed Secret kept name %q", c1)
	}
	if len(c1) != len("web-tls-")+12 || c1[:8] != "web-tls-" {
		t.Errorf("certificate name %q, want web-tls-<12 hex>", c1)
	}
}

func TestDesiredGRPCWithTLSDefaultsToHTTP2CipherSuite(t *testing.T) {
	svc := testService(withAnnotation(annotation.BackendProtocol, "grpc"), withAnnotation(annotation.SSLPorts, "80"), withAnnotation(annotation.TLSSecret, "web-tls"))
	got := mustDesired(t, svc, nil, Secrets{{Namespace: "default", Name: "web-tls"}: testTLS("v1")})
	l := got.Listeners["GRPC-80"]
	if l.TLS == nil || l.TLS.CipherSuite != "oci-default-http2-ssl-cipher-suite-v1" || l.IdleTimeoutSeconds != 60 {
		t.Errorf("GRPC listener = %+v (TLS %+v), want HTTP/2 cipher suite and 60 s idle timeout", l, l.TLS)
	}
}

func TestDesiredBackendSetTLSForcesPlainTextHealthChecks(t *testing.T) {
	svc := testService(withAnnotation(annotation.SSLPorts, "80"), withAnnotation(annotation.TLSBackendSetSecret, "backend-ca"),
		withAnnotation(annotation.BackendSetSSLConfig, `{"CipherSuiteName":"oci-default-ssl-cipher-suite-v1","Protocols":["TLSv1.3","TLSv1.2"]}`))
	got := mustDesired(t, svc, nil, Secrets{{Namespace: "default", Name: "backend-ca"}: {CA: "-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----"}})
	bs := got.BackendSets["TCP-80"]
	if bs.TLS == nil || !bs.HealthCheck.ForcePlainText {
		t.Fatalf("backend set = %+v, want TLS and plain-text health checks", bs)
	}
	if diff := cmp.Diff(&model.TLS{Certificate: bs.TLS.Certificate, CipherSuite: "oci-default-ssl-cipher-suite-v1", Protocols: []string{"TLSv1.2", "TLSv1.3"}}, bs.TLS); diff != "" {
		t.Errorf("backend TLS (-want +got):\n%s", diff)
	}
	if got.Listeners["TCP-80"].TLS != nil {
		t.Errorf("listener has TLS without tls-secret")
	}
}

func TestDesiredSourceRangesPrecedence(t *testing.T) {
	cfgDefault := testConfig()
	cfgDefault.LoadBalancer.DefaultSourceCIDRs = []string{"10.0.0.0/8"}
	tests := []struct {
		name string
		svc  *v1.Service
		cfg  *config.Config
		want []string
	}{
		{"open to the world by default", testService(), testConfig(), []string{"0.0.0.0/0"}},
		{"config default", testService(), cfgDefault, []string{"10.0.0.0/8"}},
		{"annotation beats config", testService(withAnnotation(annotation.SourceRanges, "192.0.2.7/24, 198.51.100.1/32")), cfgDefault,
			[]string{"192.0.2.0/24", "198.51.100.1/32"}},
		{"spec beats annotation", testService(withAnnotation(annotation.SourceRanges, "192.0.2.0/24"),
			func(s *v1.Service) { s.Spec.LoadBalancerSourceRanges = []string{"203.0.113.0/24"} }), cfgDefault, []string{"203.0.113.0/24"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Desired(tc.svc, nil, tc.cfg, Known{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got.SourceCIDRs); diff != "" {
				t.Errorf("SourceCIDRs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDesiredSettingsFromAnnotationsAndConfig(t *testing.T) {
	cfg := testConfig()
	cfg.LoadBalancer.SecurityListManagementMode = config.SecurityListModeFrontend
	cfg.LoadBalancer.Tags.FreeformTags = map[string]string{"env": "prod"}
	cfg.LoadBalancer.Naming = config.Naming{Scheme: config.NamingName, Prefix: "k8s"}

	got, err := Desired(testService(), nil, cfg, Known{})
	if err != nil {
		t.Fatal(err)
	}
	if got.SecurityListMode != config.SecurityListModeFrontend || got.Name != "k8s-default-web" ||
		!cmp.Equal(got.FreeformTags, map[string]string{"env": "prod"}) {
		t.Errorf("from config: mode %s, name %q, tags %v", got.SecurityListMode, got.Name, got.FreeformTags)
	}

	svc := testService(
		withAnnotation(annotation.SecurityListManagementMode, "none"),
		withAnnotation(annotation.InitialFreeformTags, `{"team":"web"}`),
		withAnnotation(annotation.Internal, "true"),
		withAnnotation(annotation.Subnet1, testSubnet2),
		withAnnotation(annotation.Shape, "flexible"),
		withAnnotation(annotation.ShapeFlexMin, "50Mbps"),
		withAnnotation(annotation.ShapeFlexMax, "400"),
		withAnnotation(annotation.NetworkSecurityGroups, "ocid1.networksecuritygroup.b, ocid1.networksecuritygroup.a"),
		withAnnotation(annotation.IngressIPMode, "proxy"),
		withAnnotation(annotation.Policy, "ip_hash"),
		withAnnotation(annotation.ConnectionIdleTimeout, "600"),
		withAnnotation(annotation.ProxyProtocolVersion, "2"),
	)
	got, err = Desired(svc, nil, cfg, Known{})
	if err != nil {
		t.Fatal(err)
	}
	proxy := v1.LoadBalancerIPModeProxy
	checks := []struct {
		what      string
		got, want any
	}{
		{"mode", got.SecurityListMode, config.SecurityListModeNone},
		{"tags", got.FreeformTags, map[string]string{"team": "web"}},
		{"internal", got.Internal, true},
		{"subnets (internal uses one)", got.Subnets, []string{testSubnet2}},
		{"subnets and shape not defaulted", got.Defaulted, model.Defaulted{Compartment: true}},
		{"shape", got.Shape, model.Shape{Name: "flexible", MinMbps: 50, MaxMbps: 400}},
		{"NSGs sorted", got.NetworkSecurityGroups, []string{"ocid1.networksecuritygroup.a", "ocid1.networksecuritygroup.b"}},
		{"ip mode", got.IPMode, &proxy},
		{"policy", got.BackendSets["TCP-80"].Policy, "IP_HASH"},
		{"idle timeout", got.Listeners["TCP-80"].IdleTimeoutSeconds, int64(600)},
		{"proxy protocol", got.Listeners["TCP-80"].ProxyProtocolVersion, 2},
	}
	for _, c := range checks {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.what, diff)
		}
	}
}

func TestDesiredNeverChangesItsInputs(t *testing.T) {
	svc := testService(withAnnotation(annotation.SSLPorts, "80"), withAnnotation(annotation.TLSSecret, "web-tls"),
		withAnnotation(annotation.NodeLabelSelector, "pool=web"))
	ns := []*v1.Node{testNode(2), testNode(1, notReady)}
	cfg := testConfig()
	cfg.LoadBalancer.Tags.FreeformTags = map[string]string{"env": "prod"}
	svcBefore, nodesBefore, cfgBefore := svc.DeepCopy(), []*v1.Node{ns[0].DeepCopy(), ns[1].DeepCopy()}, *cfg

	spec, err := Desired(svc, ns, cfg, Known{Secrets: Secrets{{Namespace: "default", Name: "web-tls"}: testTLS("v1")}})
	if err != nil {
		t.Fatal(err)
	}
	spec.FreeformTags["mutated"] = "yes" // the Spec must not alias the config
	if diff := cmp.Diff(svcBefore, svc); diff != "" {
		t.Errorf("Service changed (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(nodesBefore, ns); diff != "" {
		t.Errorf("Nodes changed (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(cfgBefore, *cfg); diff != "" {
		t.Errorf("config changed (-before +after):\n%s", diff)
	}
}

func TestManagesIgnoresOtherLoadBalancerClassesAndTypes(t *testing.T) {
	other := "example.com/other"
	tests := []struct {
		name string
		svc  *v1.Service
		want bool
	}{
		{"type LoadBalancer without class", testService(), true},
		{"with a load balancer class", testService(func(s *v1.Service) { s.Spec.LoadBalancerClass = &other }), false},
		{"type ClusterIP", testService(func(s *v1.Service) { s.Spec.Type = v1.ServiceTypeClusterIP }), false},
		{"nil", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Manages(tc.svc); got != tc.want {
				t.Errorf("Manages = %v, want %v", got, tc.want)
			}
			if !tc.want && tc.svc != nil {
				if _, err := Desired(tc.svc, nil, testConfig(), Known{}); !errors.Is(err, ErrNotManaged) {
					t.Errorf("Desired error = %v, want ErrNotManaged", err)
				}
			}
		})
	}
}

func TestRequiredSecretsListsEachReferencedSecretOnce(t *testing.T) {
	svc := testService(withAnnotation(annotation.TLSSecret, "web-tls"), withAnnotation(annotation.TLSBackendSetSecret, "default/web-tls"))
	if diff := cmp.Diff([]SecretRef{{Namespace: "default", Name: "web-tls"}}, RequiredSecrets(svc)); diff != "" {
		t.Errorf("RequiredSecrets (-want +got):\n%s", diff)
	}
	svc = testService(withAnnotation(annotation.TLSSecret, "certs/a"), withAnnotation(annotation.TLSBackendSetSecret, "b"))
	got := RequiredSecrets(svc)
	if !slices.Equal(got, []SecretRef{{Namespace: "certs", Name: "a"}, {Namespace: "default", Name: "b"}}) {
		t.Errorf("RequiredSecrets = %v", got)
	}
}

func TestTLSSecretFromDataReadsKubernetesKeys(t *testing.T) {
	s := TLSSecretFromData(map[string][]byte{"tls.crt": []byte("C"), "tls.key": []byte("K"), "ca.crt": []byte("A")})
	if s.Certificate != "C" || s.Key.Reveal() != "K" || s.CA != "A" {
		t.Errorf("TLSSecretFromData = %+v", s)
	}
}
