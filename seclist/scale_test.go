// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package seclist_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"

	"github.com/oci-ccm/oci-ccm/seclist"
)

// thousandServices returns 1,000 claims in mode All as a cluster would have them: load
// balancers in two LB subnets, every Service on ports 80 and 443, and two node ports each drawn
// at random (fixed seed) from 30000-32767, as kube-apiserver allocates them.
func thousandServices(v *vcn, lbSubnet2 string) []seclist.Claim {
	ports := make([]int, 0, 2768)
	for p := 30000; p <= 32767; p++ {
		ports = append(ports, p)
	}
	rng := rand.New(rand.NewPCG(15, 4))
	rng.Shuffle(len(ports), func(i, j int) { ports[i], ports[j] = ports[j], ports[i] })
	claims := make([]seclist.Claim, 1000)
	for i := range claims {
		c := v.claim(fmt.Sprintf("ns-%d/svc-%d", i%20, i), 80, ports[2*i])
		c.LBSubnets = append(c.LBSubnets, lbSubnet2)
		c.ListenerPorts = append(c.ListenerPorts, 443)
		c.NodePorts = append(c.NodePorts, ports[2*i+1])
		claims[i] = c
	}
	return claims
}

// addLBSubnet adds a second LB subnet with its own list to v.
func addLBSubnet(t *testing.T, v *vcn) (subnet, list string) {
	t.Helper()
	lb, _ := v.srv.SecurityList(v.lbList)
	l := v.srv.AddSecurityList(core.SecurityList{VcnId: lb.VcnId})
	s := v.srv.AddSubnet(core.Subnet{VcnId: lb.VcnId, CidrBlock: common.String("10.0.2.0/24"), SecurityListIds: []string{*l.Id}})
	return *s.Id, *l.Id
}

func reconcileAll(t *testing.T, m *seclist.Manager, claims []seclist.Claim) []error {
	t.Helper()
	errs := make([]error, len(claims))
	var wg sync.WaitGroup
	for i := range claims {
		wg.Go(func() { errs[i] = m.Reconcile(t.Context(), claims[i]) })
	}
	wg.Wait()
	return errs
}

// ruleCounts returns how many ingress and egress rules each list holds on the server.
func ruleCounts(t *testing.T, v *vcn, lists map[string]string) map[string][2]int {
	t.Helper()
	out := map[string][2]int{}
	for name, id := range lists {
		l := v.list(t, id)
		out[name] = [2]int{len(l.IngressSecurityRules), len(l.EgressSecurityRules)}
	}
	return out
}

func TestThousandServicesInModeAllFitWithTheNodePortRangeOpen(t *testing.T) {
	v := newVCN(t)
	lb2, lb2List := addLBSubnet(t, v)
	m := v.manager(t, seclist.Options{Policy: seclist.Policy{Cluster: cluster,
		NodePortRange: seclist.PortRange{Min: 30000, Max: 32767}}})
	claims := thousandServices(v, lb2)
	before := v.srv.Calls()

	for i, err := range reconcileAll(t, m, claims) {
		if err != nil {
			t.Fatalf("Reconcile(%s) = %v", claims[i].Service, err)
		}
	}

	calls := v.srv.Calls().Since(before)
	t.Logf("1,000 Services at once: %d UpdateSecurityList, %d GetSecurityList, %d GetSubnet on the wire",
		calls.Op("UpdateSecurityList"), calls.Op("GetSecurityList"), calls.Op("GetSubnet"))
	if got := calls.Status(http.StatusBadRequest); got != 0 {
		t.Errorf("400 answers = %d, want 0", got)
	}
	lists := map[string]string{"lb1": v.lbList, "lb2": lb2List, "nodes": v.nodeList}
	want := map[string][2]int{
		"lb1":   {2 + 2, 1 + 2}, // the user's 2 + 80, 443 | the user's allow-all + range, 10256
		"lb2":   {2, 2},
		"nodes": {4, 0}, // range and 10256 from each LB subnet
	}
	if diff := cmp.Diff(want, ruleCounts(t, v, lists)); diff != "" {
		t.Errorf("rules per list [ingress egress] (-want +got):\n%s", diff)
	}
	nodes := v.list(t, v.nodeList)
	if diff := cmp.Diff([]string{"10.0.1.0/24:10256", "10.0.1.0/24:30000-32767", "10.0.2.0/24:10256", "10.0.2.0/24:30000-32767"},
		ownedIngress(nodes)); diff != "" {
		t.Errorf("node list ingress (-want +got):\n%s", diff)
	}

	// A no-op round for all of them calls nothing.
	before = v.srv.Calls()
	for i, err := range reconcileAll(t, m, claims) {
		if err != nil {
			t.Fatalf("Reconcile(%s) again = %v", claims[i].Service, err)
		}
	}
	if calls := v.srv.Calls().Since(before); calls.Total() != 0 {
		t.Errorf("calls for 1,000 unchanged Services = %d, want 0:\n%s", calls.Total(), calls)
	}
}

func TestThousandServicesInModeAllWithoutTheOptionFailWithACapacityErrorNamingIt(t *testing.T) {
	v := newVCN(t)
	lb2, lb2List := addLBSubnet(t, v)
	m := v.manager(t, seclist.Options{})
	claims := thousandServices(v, lb2)
	before := v.srv.Calls()

	errs := reconcileAll(t, m, claims)

	failed := 0
	for i, err := range errs {
		if err == nil {
			continue
		}
		failed++
		var ce *seclist.CapacityError
		if !errors.As(err, &ce) {
			t.Fatalf("Reconcile(%s) = %v, want a *CapacityError", claims[i].Service, err)
		}
		if ce.Limit != 200 || ce.Count <= 200 || ce.Option != seclist.OptionOpenNodePortRange ||
			(ce.ListID != v.nodeList && ce.ListID != v.lbList && ce.ListID != lb2List) {
			t.Errorf("Reconcile(%s): CapacityError %+v; want a list of the cluster, a count over the limit of 200 and the option", claims[i].Service, *ce)
		}
	}
	if failed == 0 {
		t.Fatal("every Reconcile succeeded; 1,000 Services with random node ports cannot fit in 200 rules per list")
	}
	calls := v.srv.Calls().Since(before)
	if got := calls.Status(http.StatusBadRequest); got != 0 {
		t.Errorf("400 answers from OCI = %d, want 0: the limit is checked before writing", got)
	}
	for name, c := range ruleCounts(t, v, map[string]string{"lb1": v.lbList, "lb2": lb2List, "nodes": v.nodeList}) {
		if c[0] > 200 || c[1] > 200 {
			t.Errorf("list %s holds %v rules, over OCI's limit", name, c)
		}
	}
	var ce *seclist.CapacityError
	for _, err := range errs {
		if errors.As(err, &ce) {
			break
		}
	}
	t.Logf("%d of 1,000 Reconciles failed; e.g. %v", failed, ce)
}
