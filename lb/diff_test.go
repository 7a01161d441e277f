// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// step is a change reduced to what ordering tests compare.
type step struct {
	Action   string
	Name     string
	Requires []int
}

func steps(p *model.Plan) []step {
	out := make([]step, len(p.Changes))
	for i, c := range p.Changes {
		out[i] = step{c.Verb(), c.Name, c.Requires}
	}
	return out
}

var webTLS = SecretRef{Namespace: "default", Name: "web-tls"}

func tlsService(opts ...svcOpt) *v1.Service {
	base := []svcOpt{withPorts(tcpPort("http", 80, 30080), tcpPort("https", 443, 30443)),
		withAnnotation(annotation.SSLPorts, "443"), withAnnotation(annotation.TLSSecret, "web-tls")}
	return testService(append(base, opts...)...)
}

func certName(version string) string {
	s := testTLS(version)
	return certificateName("web-tls", model.Certificate{PublicCertificate: s.Certificate, PrivateKey: s.Key})
}

func TestDiffOfMatchingLoadBalancerIsEmpty(t *testing.T) {
	tests := []struct {
		name    string
		svc     *v1.Service
		secrets Secrets
	}{
		{"plain TCP", testService(), nil},
		{"TLS on one of two ports", tlsService(), Secrets{webTLS: testTLS("v1")}},
		{"HTTP with policy, NSGs, proxy-free timeouts", testService(withAnnotation(annotation.BackendProtocol, "HTTP"),
			withAnnotation(annotation.Policy, "LEAST_CONNECTIONS"),
			withAnnotation(annotation.NetworkSecurityGroups, "ocid1.networksecuritygroup.a")), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := mustDesired(t, tc.svc, nodes(1, 2, 3), tc.secrets)
			p, err := Diff(asObserved(d), d)
			if err != nil {
				t.Fatal(err)
			}
			if !p.Empty() {
				t.Errorf("plan not empty:\n%s", p)
			}
		})
	}
}

func TestDiffNormalisesWhatOCIFillsIn(t *testing.T) {
	d := mustDesired(t, tlsService(), nodes(2, 1), Secrets{webTLS: testTLS("v1")})
	o := asObserved(d)
	// OCI reports backends in its own order, policy in any case, its default cipher suite and
	// TLS versions when none were asked for, and idle timeout defaults.
	bs := o.BackendSets["TCP-80"]
	slices.Reverse(bs.Backends)
	bs.Policy = "round_robin"
	o.BackendSets["TCP-80"] = bs
	l := o.Listeners["TCP-443"]
	l.TLS = &model.TLS{Certificate: l.TLS.Certificate, CipherSuite: "oci-default-ssl-cipher-suite-v1", Protocols: []string{"TLSv1.2"}}
	o.Listeners["TCP-443"] = l
	l80 := o.Listeners["TCP-80"]
	l80.IdleTimeoutSeconds = 0
	o.Listeners["TCP-80"] = l80
	o.NetworkSecurityGroups = []string{}
	o.Subnets = []string{testSubnet2, testSubnet1}

	p, err := Diff(o, d)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Empty() {
		t.Errorf("plan not empty:\n%s", p)
	}
}

func TestDiffWithoutLoadBalancerCreatesEverythingInOneChange(t *testing.T) {
	d := mustDesired(t, tlsService(), nodes(1), Secrets{webTLS: testTLS("v1")})
	p, err := Diff(nil, d)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]step{{"create load balancer", d.Name, nil}}, steps(p)); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	created := p.Changes[0].After.(*model.Spec)
	if len(created.Listeners) != 2 || len(created.BackendSets) != 2 || len(created.Certificates) != 1 {
		t.Errorf("create carries %d listeners, %d backend sets, %d certificates; want 2, 2, 1",
			len(created.Listeners), len(created.BackendSets), len(created.Certificates))
	}
}

func TestPortChangeMovesListenerBeforeDeletingBackendSet(t *testing.T) {
	before := mustDesired(t, testService(), nodes(1), nil)
	after := mustDesired(t, testService(withPorts(tcpPort("http", 8080, 30080))), nodes(1), nil)
	p, err := Diff(asObserved(before), after)
	if err != nil {
		t.Fatal(err)
	}
	want := []step{
		{"create backend set", "TCP-8080", nil},
		{"create listener", "TCP-8080", []int{0}}, // the new port opens before the old one closes
		{"delete listener", "TCP-80", nil},
		{"delete backend set", "TCP-80", []int{2}},
	}
	if diff := cmp.Diff(want, steps(p)); diff != "" {
		t.Errorf("plan (-want +got):\n%s\n%s", diff, p)
	}
}

func TestProtocolChangeDeletesOldListenerBeforeCreatingOneOnTheSamePort(t *testing.T) {
	before := mustDesired(t, testService(), nodes(1), nil)
	after := mustDesired(t, testService(withAnnotation(annotation.BackendProtocol, "HTTP")), nodes(1), nil)
	p, err := Diff(asObserved(before), after)
	if err != nil {
		t.Fatal(err)
	}
	want := []step{
		{"delete listener", "TCP-80", nil},
		{"create listener", "HTTP-80", []int{0}},
	}
	if diff := cmp.Diff(want, steps(p)); diff != "" {
		t.Errorf("plan (-want +got):\n%s\n%s", diff, p)
	}
}

func TestTLSRotationCreatesNewCertificateSwitchesListenerThenDeletesOld(t *testing.T) {
	before := mustDesired(t, tlsService(), nodes(1), Secrets{webTLS: testTLS("v1")})
	after := mustDesired(t, tlsService(), nodes(1), Secrets{webTLS: testTLS("v2")})
	p, err := Diff(asObserved(before), after)
	if err != nil {
		t.Fatal(err)
	}
	want := []step{
		{"create certificate", certName("v2"), nil},
		{"update listener", "TCP-443", []int{0}},
		{"delete certificate", certName("v1"), []int{1}},
	}
	if diff := cmp.Diff(want, steps(p)); diff != "" {
		t.Errorf("plan (-want +got):\n%s\n%s", diff, p)
	}
}

func TestNodeAddedOnlyUpdatesBackendSets(t *testing.T) {
	svc := testService(withPorts(tcpPort("http", 80, 30080), tcpPort("https", 443, 30443)))
	before := mustDesired(t, svc, nodes(1), nil)
	after := mustDesired(t, svc, nodes(1, 2), nil)
	p, err := Diff(asObserved(before), after)
	if err != nil {
		t.Fatal(err)
	}
	want := []step{{"update backend set", "TCP-443", nil}, {"update backend set", "TCP-80", nil}}
	if diff := cmp.Diff(want, steps(p)); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
}

func TestAllNodesGoneEmptiesBackendSetsWithoutTouchingListeners(t *testing.T) {
	before := mustDesired(t, testService(), nodes(1, 2), nil)
	after := mustDesired(t, testService(), []*v1.Node{testNode(1, func(n *v1.Node) { n.DeletionTimestamp = &metav1.Time{} }), testNode(2, labelled(v1.LabelNodeExcludeBalancers, "true"))}, nil)
	p, err := Diff(asObserved(before), after)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]step{{"update backend set", "TCP-80", nil}}, steps(p)); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	if got := p.Changes[0].After.(model.BackendSet).Backends; len(got) != 0 {
		t.Errorf("backends after = %v, want none", got)
	}
}

func TestImmutableChangesAreRefusedAndPlanNothing(t *testing.T) {
	base := mustDesired(t, testService(), nodes(1), nil)
	flexObserved := asObserved(base)
	tests := []struct {
		name     string
		observed *model.Spec
		svc      *v1.Service
		fields   []string
	}{
		{"subnet annotation changed", asObserved(base),
			testService(withAnnotation(annotation.Subnet1, "ocid1.subnet.oc1.phx.new")), []string{string(annotation.Subnet1)}},
		{"public to internal", asObserved(base),
			testService(withAnnotation(annotation.Internal, "true"), withAnnotation(annotation.Subnet1, testSubnet1)), []string{string(annotation.Internal)}},
		{"reserved IP added after create", asObserved(base),
			testService(func(s *v1.Service) { s.Spec.LoadBalancerIP = "192.0.2.10" }), []string{"spec.loadBalancerIP"}},
		{"flexible to fixed shape", flexObserved,
			testService(withAnnotation(annotation.Shape, "100Mbps")), []string{string(annotation.Shape)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := mustDesired(t, tc.svc, nodes(1, 2), nil)
			p, err := Diff(tc.observed, d)
			var ierr *ImmutableError
			if !errors.As(err, &ierr) {
				t.Fatalf("Diff = %v, %v; want an *ImmutableError", p, err)
			}
			if p != nil {
				t.Errorf("Diff returned a plan with the error:\n%s", p)
			}
			var fields []string
			for _, c := range ierr.Changes {
				fields = append(fields, c.Field)
			}
			if diff := cmp.Diff(tc.fields, fields); diff != "" {
				t.Errorf("immutable fields (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDefaultedSubnetsAndShapeKeepTheExistingLoadBalancers(t *testing.T) {
	d := mustDesired(t, testService(), nodes(1), nil)
	o := asObserved(d)
	o.Subnets = []string{"ocid1.subnet.oc1.phx.old"}
	o.Shape = model.Shape{Name: "100Mbps"}
	p, err := Diff(o, d)
	if err != nil {
		t.Fatalf("Diff: %v (a changed config default must not break existing load balancers)", err)
	}
	if !p.Empty() {
		t.Errorf("plan not empty:\n%s", p)
	}
	if diff := cmp.Diff([]string{"ocid1.subnet.oc1.phx.old"}, p.Target.Subnets); diff != "" {
		t.Errorf("Target.Subnets (-want +got):\n%s (security rules must use the real subnets)", diff)
	}
}

func TestShapeAndNSGChangesUpdateInPlace(t *testing.T) {
	before := mustDesired(t, testService(), nodes(1), nil)
	after := mustDesired(t, testService(withAnnotation(annotation.ShapeFlexMax, "400"),
		withAnnotation(annotation.NetworkSecurityGroups, "ocid1.networksecuritygroup.a")), nodes(1), nil)
	p, err := Diff(asObserved(before), after)
	if err != nil {
		t.Fatal(err)
	}
	// The load balancer update records the NSG oci-ccm attaches (see nsg.go); the NSG update,
	// which OCI refuses for a group the policy does not let the CCM use, goes before the shape.
	want := []step{{"update load balancer", after.Name, nil}, {"update network security groups", after.Name, nil}, {"update shape", after.Name, []int{1}}}
	if diff := cmp.Diff(want, steps(p)); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	if got := p.Changes[2].After.(model.Shape); got != (model.Shape{Name: "flexible", MinMbps: 10, MaxMbps: 400}) {
		t.Errorf("shape after = %v", got)
	}
	if got := managedNSGs(p.Changes[0].After.(model.Settings).FreeformTags); !slices.Equal(got, []string{"ocid1.networksecuritygroup.a"}) {
		t.Errorf("NSGs recorded as attached by oci-ccm: %v", got)
	}
}

func TestAdoptingAnUntaggedLoadBalancerTagsAndRenamesIt(t *testing.T) {
	d := mustDesired(t, testService(), nodes(1), nil)
	o := asObserved(d)
	o.FreeformTags = map[string]string{"team": "web"}
	o.Owner = model.Owner{}
	o.Name = "legacy-name"
	p, err := Diff(o, d)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]step{{"update load balancer", d.Name, nil}}, steps(p)); diff != "" {
		t.Fatalf("plan (-want +got):\n%s", diff)
	}
	want := model.Settings{Name: d.Name, FreeformTags: map[string]string{
		"team": "web", model.TagManagedBy: model.ManagedByValue, model.TagCluster: testCluster, model.TagService: "default/web", model.TagServiceUID: string(testService().UID)}}
	if diff := cmp.Diff(want, p.Changes[0].After); diff != "" {
		t.Errorf("settings after (-want +got):\n%s", diff)
	}
}

func TestPlanStringReadsLikeADiff(t *testing.T) {
	before := mustDesired(t, tlsService(), nodes(1), Secrets{webTLS: testTLS("v1")})
	after := mustDesired(t, tlsService(), nodes(1, 2), Secrets{webTLS: testTLS("v2")})
	o := asObserved(before)
	p, err := Diff(o, after)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`load balancer %q (ocid1.loadbalancer.oc1.phx.test): 5 changes
  1. + certificate %q
  2. ~ backend set "TCP-443"
       Backends: + 10.0.0.2:30443
  3. ~ backend set "TCP-80"
       Backends: + 10.0.0.2:30080
  4. ~ listener "TCP-443" (after 1)
       TLS.Certificate: %q → %q
  5. - certificate %q (after 4)
`, o.Name, certName("v2"), certName("v1"), certName("v2"), certName("v1"))
	if diff := cmp.Diff(want, p.String()); diff != "" {
		t.Errorf("plan text (-want +got):\n%s", diff)
	}
}

func TestPlanStringForCreateAndEmptyPlans(t *testing.T) {
	d := mustDesired(t, testService(), nodes(1), nil)
	p, _ := Diff(nil, d)
	want := fmt.Sprintf(`load balancer %[1]q: 1 change
  1. + load balancer %[1]q
       public, shape flexible 10–100 Mbps, subnets %[2]s,%[3]s
       + backend set "TCP-80": ROUND_ROBIN, 1 backend(s) [10.0.0.1:30080], health HTTP :10256/healthz
       + listener "TCP-80": TCP :80 → backend set "TCP-80"
`, d.Name, testSubnet1, testSubnet2)
	if diff := cmp.Diff(want, p.String()); diff != "" {
		t.Errorf("create plan text (-want +got):\n%s", diff)
	}
	empty, _ := Diff(asObserved(d), d)
	if got, want := empty.String(), fmt.Sprintf("load balancer %q (ocid1.loadbalancer.oc1.phx.test): no changes\n", d.Name); got != want {
		t.Errorf("empty plan = %q, want %q", got, want)
	}
}

func TestPlanStringNeverShowsPrivateKeys(t *testing.T) {
	d := mustDesired(t, tlsService(), nodes(1), Secrets{webTLS: testTLS("v1")})
	for _, p := range []*model.Plan{must(Diff(nil, d)), must(Diff(asObserved(mustDesired(t, testService(), nodes(1), nil)), d))} {
		if s := p.String(); containsAny(s, "PRIVATE KEY", "key-v1") {
			t.Errorf("plan shows key material:\n%s", s)
		}
	}
}

// TestPlansNeverLeaveDanglingReferences applies each plan step by step to a model load balancer
// and checks, after every step, what OCI checks: listeners name existing backend sets and
// certificates, no two listeners share a port, nothing in use is deleted.
func TestPlansNeverLeaveDanglingReferences(t *testing.T) {
	v1s, v2s := Secrets{webTLS: testTLS("v1")}, Secrets{webTLS: testTLS("v2")}
	backendCA := SecretRef{Namespace: "default", Name: "backend-ca"}
	withCA := func(m Secrets, ca string) Secrets {
		out := Secrets{backendCA: {CA: ca}}
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	beTLS := []svcOpt{withAnnotation(annotation.TLSBackendSetSecret, "backend-ca")}
	tests := []struct {
		name          string
		before, after *v1.Service
		bs, as        Secrets
	}{
		{"port change", testService(), testService(withPorts(tcpPort("http", 8080, 30080))), nil, nil},
		{"protocol change", testService(), testService(withAnnotation(annotation.BackendProtocol, "HTTP")), nil, nil},
		{"protocol and port change", tlsService(), tlsService(withAnnotation(annotation.BackendProtocol, "HTTP"),
			withPorts(tcpPort("http", 81, 30080), tcpPort("https", 443, 30443))), v1s, v1s},
		{"TLS rotation", tlsService(), tlsService(), v1s, v2s},
		{"TLS rotation with port change", tlsService(), tlsService(withPorts(tcpPort("http", 80, 30080), tcpPort("https", 8443, 30443)),
			withAnnotation(annotation.SSLPorts, "8443")), v1s, v2s},
		{"TLS turned on", testService(withPorts(tcpPort("http", 80, 30080), tcpPort("https", 443, 30443))), tlsService(), nil, v1s},
		{"TLS turned off", tlsService(), testService(withPorts(tcpPort("http", 80, 30080), tcpPort("https", 443, 30443))), v1s, nil},
		{"backend TLS rotation", tlsService(beTLS...), tlsService(beTLS...), withCA(v1s, "ca-1"), withCA(v1s, "ca-2")},
		{"both certificates rotate at once", tlsService(beTLS...), tlsService(beTLS...), withCA(v1s, "ca-1"), withCA(v2s, "ca-2")},
		{"ports swapped between names", testService(withPorts(tcpPort("a", 80, 30080), tcpPort("b", 81, 30081))),
			testService(withPorts(tcpPort("a", 81, 30080), tcpPort("b", 80, 30081))), nil, nil},
		{"one port dropped", tlsService(), testService(), v1s, nil},
		{"rule sets added", testService(), testService(withAnnotation(annotation.RuleSets, twoRuleSets)), nil, nil},
		{"rule sets removed", testService(withAnnotation(annotation.RuleSets, twoRuleSets)), testService(), nil, nil},
		{"one rule set swapped for another with a port change", testService(withAnnotation(annotation.RuleSets, twoRuleSets)),
			testService(withPorts(tcpPort("http", 8080, 30080)), withAnnotation(annotation.RuleSets, otherRuleSet)), nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := mustDesired(t, tc.before, nodes(1, 2), tc.bs)
			after := mustDesired(t, tc.after, nodes(2, 3), tc.as)
			p, err := Diff(asObserved(before), after)
			if err != nil {
				t.Fatal(err)
			}
			model := asObserved(before)
			for i, c := range p.Changes {
				for _, r := range c.Requires {
					if r >= i {
						t.Fatalf("change %d (%s) requires later change %d", i+1, c, r+1)
					}
				}
				if err := applyToModel(model, c); err != nil {
					t.Fatalf("after change %d (%s): %v\n%s", i+1, c, err, p)
				}
			}
			again, err := Diff(model, after)
			if err != nil || !again.Empty() {
				t.Errorf("plan did not converge; re-diff: %v\n%s", err, again)
			}
		})
	}
}

// applyToModel applies one change to a Spec standing in for an OCI load balancer and returns the
// error OCI would give.
func applyToModel(m *model.Spec, c model.Change) error {
	switch after := c.After.(type) {
	case model.Certificate:
		m.Certificates[c.Name] = after
	case model.BackendSet:
		m.BackendSets[c.Name] = after
	case model.Listener:
		m.Listeners[c.Name] = after
	case model.Shape:
		m.Shape = after
	case model.NSGs:
		m.NetworkSecurityGroups = after
	case model.Settings:
		m.Name, m.FreeformTags = after.Name, after.FreeformTags
	case model.RuleSet:
		if m.RuleSets == nil {
			m.RuleSets = map[string]model.RuleSet{}
		}
		m.RuleSets[c.Name] = after
	}
	if c.Op == model.OpDelete {
		if err := deleteFromModel(m, c); err != nil {
			return err
		}
	}
	ports := map[int]string{}
	for _, l := range sortedValues(m.Listeners) {
		if _, ok := m.BackendSets[l.BackendSet]; !ok {
			return fmt.Errorf("listener %s has unknown default backend set %s", l.Name, l.BackendSet)
		}
		if l.TLS != nil {
			if _, ok := m.Certificates[l.TLS.Certificate]; !ok {
				return fmt.Errorf("listener %s has unknown certificate %s", l.Name, l.TLS.Certificate)
			}
		}
		for _, rs := range l.Routing.RuleSets {
			if _, ok := m.RuleSets[rs]; !ok {
				return fmt.Errorf("listener %s has unknown rule set %s", l.Name, rs)
			}
		}
		if other, ok := ports[l.Port]; ok {
			return fmt.Errorf("listeners %s and %s both use port %d", other, l.Name, l.Port)
		}
		ports[l.Port] = l.Name
	}
	for _, b := range m.BackendSets {
		if b.TLS != nil {
			if _, ok := m.Certificates[b.TLS.Certificate]; !ok {
				return fmt.Errorf("backend set %s has unknown certificate %s", b.Name, b.TLS.Certificate)
			}
		}
	}
	return nil
}

// deleteFromModel deletes c's part from m, or returns the error OCI gives while it is in use.
func deleteFromModel(m *model.Spec, c model.Change) error {
	switch c.Before.(type) {
	case model.Certificate:
		for _, l := range m.Listeners {
			if l.TLS != nil && l.TLS.Certificate == c.Name {
				return fmt.Errorf("certificate %s is in use by listener %s", c.Name, l.Name)
			}
		}
		for _, b := range m.BackendSets {
			if b.TLS != nil && b.TLS.Certificate == c.Name {
				return fmt.Errorf("certificate %s is in use by backend set %s", c.Name, b.Name)
			}
		}
		delete(m.Certificates, c.Name)
	case model.BackendSet:
		for _, l := range m.Listeners {
			if l.BackendSet == c.Name {
				return fmt.Errorf("backend set %s is in use by listener %s", c.Name, l.Name)
			}
		}
		delete(m.BackendSets, c.Name)
	case model.Listener:
		delete(m.Listeners, c.Name)
	case model.RuleSet:
		for _, l := range sortedValues(m.Listeners) {
			if slices.Contains(l.Routing.RuleSets, c.Name) {
				return fmt.Errorf("rule set %s is used by listener %s", c.Name, l.Name)
			}
		}
		delete(m.RuleSets, c.Name)
	}
	return nil
}

func TestOrderReportsADependencyCycle(t *testing.T) {
	cs := []model.Change{{Op: model.OpCreate, Name: "a"}, {Op: model.OpCreate, Name: "b"}}
	if _, err := topoSort(cs, [][]int{{1}, {0}}); err == nil {
		t.Error("topoSort accepted a cycle")
	}
}

func TestEveryChangeAPlanCanHoldHasAVerbAndAPhase(t *testing.T) {
	objects := []model.Object{&model.Spec{}, model.Settings{}, model.Shape{}, model.NSGs{}, model.Certificate{},
		model.BackendSet{}, model.Listener{}, model.RuleSet{}}
	for _, o := range objects {
		for _, op := range []model.Op{model.OpCreate, model.OpUpdate, model.OpDelete} {
			c := model.Change{Op: op, Before: o, After: o}
			if op == model.OpDelete {
				c.After = nil
			}
			p := phase(c)
			if p < 0 || p > 15 {
				t.Errorf("%s has phase %d", c.Verb(), p)
			}
			if strings.Contains(c.Verb(), "nothing") || strings.Contains(c.Verb(), "Op(") {
				t.Errorf("%T: %s", o, c.Verb())
			}
		}
	}
	if got := model.Op(99).String(); got != "Op(99)" {
		t.Errorf("an unknown Op prints %q", got)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func containsAny(s string, subs ...string) bool {
	return slices.ContainsFunc(subs, func(sub string) bool { return strings.Contains(s, sub) })
}
