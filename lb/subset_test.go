// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/instances"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/internal/backendnode"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// bigNode is Node i of a big cluster: InternalIP 10.<i/65536>.<i/256>.<i%256> (so i up to
// 16 million), spread round-robin over three availability domains and their three fault
// domains.
func bigNode(i int) *v1.Node {
	n := testNode(1)
	n.Name = fmt.Sprintf("worker-%05d", i)
	n.Spec.ProviderID = "oci://ocid1.instance.oc1.phx." + n.Name
	n.Labels = map[string]string{
		labelZone:        fmt.Sprintf("PHX-AD-%d", i%3+1),
		labelFaultDomain: fmt.Sprintf("FAULT-DOMAIN-%d", i/3%3+1),
	}
	n.Status.Addresses = []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)}}
	return n
}

func bigCluster(from, to int) []*v1.Node {
	var out []*v1.Node
	for i := from; i < to; i++ {
		out = append(out, bigNode(i))
	}
	return out
}

func subsetConfig(value string) *config.Config {
	c := testConfig()
	c.LoadBalancer.BackendSubset = value
	return c
}

func twoPorts() svcOpt {
	return withPorts(tcpPort("http", 80, 30080), tcpPort("https", 443, 30443))
}

// backendIPs returns the addresses of a backend set's backends, sorted.
func backendIPs(bs model.BackendSet) []string {
	var out []string
	for _, b := range bs.Backends {
		out = append(out, b.IP)
	}
	slices.Sort(out)
	return out
}

// chosenNodes returns the names of the Nodes of ns whose address is a backend of spec.
func chosenNodes(spec *model.Spec, ns []*v1.Node) map[string]bool {
	ips := map[string]bool{}
	for _, bs := range spec.BackendSets {
		for _, b := range bs.Backends {
			ips[b.IP] = true
		}
	}
	out := map[string]bool{}
	for _, n := range ns {
		if ips[backendnode.InternalIPv4(n)] {
			out[n.Name] = true
		}
	}
	return out
}

func desiredWith(t *testing.T, cfg *config.Config, svc *v1.Service, ns []*v1.Node) *model.Spec {
	t.Helper()
	spec, err := Desired(svc, ns, cfg, Known{})
	if err != nil {
		t.Fatalf("Desired: %v", err)
	}
	return spec
}

func TestTheFaultDomainLabelIsTheOneInstancesSets(t *testing.T) {
	if labelFaultDomain != instances.FaultDomainLabel {
		t.Errorf("lb spreads subsets over %q, instances labels Nodes with %q", labelFaultDomain, instances.FaultDomainLabel)
	}
}

func TestABigClusterGetsAStableSubsetWithinOCIsLimitsSpreadOverFaultDomains(t *testing.T) {
	ns := bigCluster(0, 500)
	spec := desiredWith(t, testConfig(), testService(twoPorts()), ns)

	if diff := cmp.Diff(model.Subset{Nodes: 256, Eligible: 500}, spec.Subset); diff != "" {
		t.Errorf("Subset (-want +got):\n%s", diff)
	}
	// The same Nodes in both backend sets, 512 backends in all: OCI's limit for a load balancer.
	http, https := backendIPs(spec.BackendSets["TCP-80"]), backendIPs(spec.BackendSets["TCP-443"])
	if len(http) != 256 || !slices.Equal(http, https) {
		t.Fatalf("backend sets hold %d and %d backends (equal: %v), want the same 256", len(http), len(https), slices.Equal(http, https))
	}
	// Nine places (3 ADs × 3 fault domains) of 55 or 56 Nodes share the 256 evenly.
	perPlace := map[string]int{}
	for _, n := range ns {
		if chosenNodes(spec, ns)[n.Name] {
			perPlace[n.Labels[labelZone]+"/"+n.Labels[labelFaultDomain]]++
		}
	}
	if len(perPlace) != 9 {
		t.Fatalf("the subset covers %d places, want all 9: %v", len(perPlace), perPlace)
	}
	for place, k := range perPlace {
		if k < 28 || k > 29 {
			t.Errorf("%s has %d backends, want 28 or 29 (256 over 9 places)", place, k)
		}
	}
	// The order the Nodes come in does not matter.
	shuffled := slices.Clone(ns)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	if diff := cmp.Diff(spec, desiredWith(t, testConfig(), testService(twoPorts()), shuffled)); diff != "" {
		t.Errorf("another order of the same Nodes gives another spec (-first +shuffled):\n%s", diff)
	}
}

func TestANodeJoiningOrLeavingMovesAtMostAFewBackends(t *testing.T) {
	ns := bigCluster(0, 500)
	next := 500
	svc := testService(twoPorts())
	before := chosenNodes(desiredWith(t, testConfig(), svc, ns), ns)
	r := rand.New(rand.NewPCG(3, 4))
	moved := 0
	for step := range 200 {
		if step%2 == 0 {
			ns = append(ns, bigNode(next))
			next++
		} else {
			i := r.IntN(len(ns))
			ns = slices.Delete(ns, i, i+1)
		}
		after := chosenNodes(desiredWith(t, testConfig(), svc, ns), ns)
		if len(after) != 256 {
			t.Fatalf("step %d: %d Nodes chosen, want 256", step, len(after))
		}
		changed := 0
		for n := range after {
			if !before[n] {
				changed++
			}
		}
		// A Node in, and the one it replaces out, per backend set; the even shares of the places
		// may move one slot from one place to another (another Node in and out).
		if changed > 2 {
			t.Errorf("step %d: %d Nodes joined the subset, want at most 2", step, changed)
		}
		moved += changed
		before = after
	}
	// A subset of 256 of ~500 Nodes: about half the removals and additions touch it.
	if moved > 250 {
		t.Errorf("200 steps of churn moved %d Nodes into the subset, want well under one per step", moved)
	}
}

func TestEachServiceGetsItsOwnSubsetSoTheLoadSpreadsOverAllNodes(t *testing.T) {
	ns := bigCluster(0, 500)
	load := map[string]int{}
	var first map[string]bool
	for i := range 40 {
		svc := testService(twoPorts())
		svc.Name = fmt.Sprintf("svc-%d", i)
		chosen := chosenNodes(desiredWith(t, testConfig(), svc, ns), ns)
		if i == 0 {
			first = chosen
		} else if cmp.Equal(first, chosen) {
			t.Errorf("%s has the same subset as svc-0", svc.Name)
		}
		for n := range chosen {
			load[n]++
		}
	}
	// 40 Services × 256 Nodes over 500 Nodes: 20.5 on average.
	if len(load) != 500 {
		t.Errorf("%d of 500 Nodes are a backend of some Service, want all", len(load))
	}
	for n, k := range load {
		if k > 41 {
			t.Errorf("%s is a backend of %d of 40 Services, want at most twice the mean of 20.5", n, k)
		}
	}
}

func TestASmallClusterKeepsEveryNode(t *testing.T) {
	ns := bigCluster(0, 256)
	spec := desiredWith(t, testConfig(), testService(twoPorts()), ns)
	if spec.Subset != (model.Subset{}) || len(spec.BackendSets["TCP-80"].Backends) != 256 {
		t.Errorf("256 Nodes × 2 ports fit 512 backends: Subset %+v, %d backends", spec.Subset, len(spec.BackendSets["TCP-80"].Backends))
	}
}

func TestABackendSubsetSizeChoosesAtMostThatManyNodesEvenInASmallCluster(t *testing.T) {
	ns := bigCluster(0, 30)
	spec := desiredWith(t, subsetConfig("9"), testService(), ns)
	if diff := cmp.Diff(model.Subset{Nodes: 9, Eligible: 30}, spec.Subset); diff != "" {
		t.Errorf("Subset (-want +got):\n%s", diff)
	}
	// One per place.
	places := map[string]bool{}
	for n := range chosenNodes(spec, ns) {
		for _, node := range ns {
			if node.Name == n {
				places[node.Labels[labelZone]+"/"+node.Labels[labelFaultDomain]] = true
			}
		}
	}
	if len(places) != 9 {
		t.Errorf("9 Nodes over %d places, want one in each of 9", len(places))
	}
	// A size above OCI's limits is held to them.
	spec = desiredWith(t, subsetConfig("400"), testService(twoPorts()), bigCluster(0, 500))
	if spec.Subset.Nodes != 256 {
		t.Errorf("backendSubset 400 with 2 ports: %d Nodes, want OCI's limit of 256", spec.Subset.Nodes)
	}
}

func TestBackendSubsetOffRefusesAServiceOverOCIsLimitsBeforeAnyChange(t *testing.T) {
	_, err := Desired(testService(twoPorts()), bigCluster(0, 300), subsetConfig("off"), Known{})
	var verr *ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("Desired = %v, want a *ValidationError", err)
	}
	msg := err.Error()
	for _, want := range []string{"loadBalancer.backendSubset", `"off"`, "300 eligible Nodes make 600 backends over 2 backend sets",
		"512 per load balancer", string(annotation.NodeLabelSelector), "at most 256 Nodes"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
	// Within the limits, off keeps every Node.
	spec := desiredWith(t, subsetConfig("off"), testService(twoPorts()), bigCluster(0, 256))
	if len(spec.BackendSets["TCP-443"].Backends) != 256 || spec.Subset != (model.Subset{}) {
		t.Errorf("off within the limits: %d backends, Subset %+v", len(spec.BackendSets["TCP-443"].Backends), spec.Subset)
	}
}

func TestANetworkLoadBalancerTakesOCIsNetworkLimits(t *testing.T) {
	ns := bigCluster(0, 1500)
	for _, tt := range []struct {
		ports []v1.ServicePort
		want  int
	}{
		{[]v1.ServicePort{tcpPort("a", 80, 30080)}, 512},                                                      // 512 per backend set
		{[]v1.ServicePort{tcpPort("a", 80, 30080), tcpPort("b", 443, 30443)}, 512},                            // 1,024 in all
		{[]v1.ServicePort{tcpPort("a", 80, 30080), tcpPort("b", 443, 30443), tcpPort("c", 8080, 30880)}, 341}, // 1,024 / 3
	} {
		spec := desiredWith(t, testConfig(), nlbService(withPorts(tt.ports...)), ns)
		if spec.Subset.Nodes != tt.want {
			t.Errorf("%d ports: %d Nodes, want %d", len(tt.ports), spec.Subset.Nodes, tt.want)
		}
		if perSet, total := backendCounts(spec); perSet > 512 || total > 1024 {
			t.Errorf("%d ports: %d backends in a set and %d in all, over OCI's network load balancer limits", len(tt.ports), perSet, total)
		}
	}
}

func TestABadBackendSubsetIsAProblemOfTheService(t *testing.T) {
	_, err := Desired(testService(), nodes(1, 2), subsetConfig("most"), Known{})
	var verr *ValidationError
	if !errors.As(err, &verr) || !strings.Contains(err.Error(), "loadBalancer.backendSubset") {
		t.Errorf("Desired = %v, want a *ValidationError naming loadBalancer.backendSubset", err)
	}
}

// Nodes left out for other reasons are not counted as eligible.
func TestExcludedNodesAreNotPartOfTheSubset(t *testing.T) {
	ns := bigCluster(0, 600)
	for _, n := range ns[:100] {
		n.Labels[v1.LabelNodeExcludeBalancers] = "true"
	}
	ns[100].DeletionTimestamp = &metav1.Time{}
	spec := desiredWith(t, testConfig(), testService(twoPorts()), ns)
	if spec.Subset.Eligible != 499 || len(spec.ExcludedNodes) != 101 {
		t.Errorf("Subset %+v with %d excluded, want 499 eligible and 101 excluded", spec.Subset, len(spec.ExcludedNodes))
	}
	for n := range chosenNodes(spec, ns) {
		if spec.ExcludedNodes[n] != "" {
			t.Errorf("excluded Node %s is in the subset", n)
		}
	}
}

func TestAPlansTargetSaysTheBackendsAreASubset(t *testing.T) {
	ns := bigCluster(0, 500)
	before := desiredWith(t, testConfig(), testService(twoPorts()), ns[:300])
	after := desiredWith(t, testConfig(), testService(twoPorts()), ns)
	for _, observed := range []*model.Spec{nil, asObserved(before)} {
		plan, err := Diff(observed, after)
		if err != nil {
			t.Fatal(err)
		}
		// lb/engine's Summary prints it in the Event of the applied plan.
		if got := plan.Target.Subset; got != (model.Subset{Nodes: 256, Eligible: 500}) {
			t.Errorf("Target.Subset = %+v, want 256 of 500 Nodes", got)
		}
	}
}

func TestANetworkLoadBalancerTakesFiftyListenersAndNoMore(t *testing.T) {
	ports := func(n int) []v1.ServicePort {
		var out []v1.ServicePort
		for i := range n {
			out = append(out, tcpPort(fmt.Sprint(i), int32(1000+i), int32(30000+i)))
		}
		return out
	}
	if _, err := Desired(nlbService(withPorts(ports(50)...)), nodes(1), testConfig(), Known{}); err != nil {
		t.Errorf("50 ports: %v", err)
	}
	_, err := Desired(nlbService(withPorts(ports(51)...)), nodes(1), testConfig(), Known{})
	var verr *ValidationError
	if !errors.As(err, &verr) || !strings.Contains(err.Error(), "at most 50 listeners and backend sets (51 here") {
		t.Errorf("51 ports: %v, want a *ValidationError saying OCI's limit of 50", err)
	}
}

// A Node joining a cluster of 5,000 Nodes and 400 two-port Services changes the backends of
// only the Services whose subset it enters (about 256 in 5,001), each by one Node: the writes of
// a node sync are O(changed), not one per Service.
func TestANodeJoiningABigClusterChangesFewServices(t *testing.T) {
	ns := bigCluster(0, 5000)
	joined := append(slices.Clone(ns), bigNode(5000))
	changed := 0
	for i := range 400 {
		svc := testService(twoPorts())
		svc.Name = fmt.Sprintf("svc-%04d", i)
		before := chosenNodes(desiredWith(t, testConfig(), svc, ns), ns)
		after := chosenNodes(desiredWith(t, testConfig(), svc, joined), joined)
		in := 0
		for n := range after {
			if !before[n] {
				in++
			}
		}
		if in > 2 {
			t.Errorf("%s: %d Nodes entered its subset, want at most 2", svc.Name, in)
		}
		if in > 0 {
			changed++
		}
	}
	// Expected about 400 × 256 / 5,001 ≈ 20.
	if changed > 60 {
		t.Errorf("one Node joining changed the backends of %d of 400 Services, want about 20", changed)
	}
	t.Logf("one Node joining changed the backends of %d of 400 Services", changed)
}
