// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
)

// lagFixture is an lbFixture on a Clock, with a Virtual Network client too.
func lagFixture(t *testing.T, opts Options) (*lbFixture, *Clock, core.VirtualNetworkClient) {
	t.Helper()
	clk := &Clock{}
	opts.Now = clk.Now
	f := newLBFixture(t, opts)
	vn, err := core.NewVirtualNetworkClientWithConfigurationProvider(f.srv.ConfigurationProvider())
	if err != nil {
		t.Fatal(err)
	}
	noRetry := common.NoRetryPolicy()
	vn.Host, vn.Configuration.RetryPolicy, vn.Configuration.CircuitBreaker = f.srv.URL(), &noRetry, nil
	return f, clk, vn
}

func TestANewPolicyIsRefusedWithTheOldOnesAnswerUntilItPropagates(t *testing.T) {
	f, clk, _ := lagFixture(t, Options{})
	f.comp = f.srv.AddCompartment("cluster")
	ctx := testCtx(t)
	f.srv.DenyAll() // a new install: the CCM's principal has no statement yet
	if err := f.srv.SetPolicy("Allow dynamic-group ccm to manage load-balancers in compartment cluster"); err != nil {
		t.Fatal(err)
	}
	list := func() error {
		_, err := f.lb.ListLoadBalancers(ctx, loadbalancer.ListLoadBalancersRequest{CompartmentId: &f.comp})
		return err
	}
	wantServiceError(t, list(), http.StatusNotFound, "NotAuthorizedOrNotFound")
	clk.Advance(DefaultPolicyDelay - time.Second)
	wantServiceError(t, list(), http.StatusNotFound, "NotAuthorizedOrNotFound")
	want := []Denial{{Operation: "ListLoadBalancers", Verb: "inspect", ResourceType: "load-balancers", Compartment: f.comp,
		Resource: f.comp, Propagating: true}}
	if diff := cmp.Diff(want, f.srv.Denials()[:1]); diff != "" {
		t.Errorf("denial while the policy propagates (-want +got):\n%s", diff)
	}
	clk.Advance(time.Second)
	if err := list(); err != nil {
		t.Errorf("ListLoadBalancers %s after the policy was set: %v", DefaultPolicyDelay, err)
	}
}

func TestAWithdrawnGrantIsRefusedAtOnce(t *testing.T) {
	f, clk, _ := lagFixture(t, Options{})
	f.comp = f.srv.AddCompartment("cluster")
	ctx := testCtx(t)
	if err := f.srv.SetPolicy("Allow dynamic-group ccm to manage load-balancers in compartment cluster"); err != nil {
		t.Fatal(err)
	}
	// From no policy at all (IAM not modelled) the first one applies at once.
	if _, err := f.lb.ListLoadBalancers(ctx, loadbalancer.ListLoadBalancersRequest{CompartmentId: &f.comp}); err != nil {
		t.Fatalf("ListLoadBalancers under the first policy: %v", err)
	}
	if err := f.srv.SetPolicy("Allow dynamic-group ccm to manage network-load-balancers in compartment cluster"); err != nil {
		t.Fatal(err)
	}
	_, err := f.lb.ListLoadBalancers(ctx, loadbalancer.ListLoadBalancersRequest{CompartmentId: &f.comp})
	wantServiceError(t, err, http.StatusNotFound, "NotAuthorizedOrNotFound")
	_, err = f.nlb.ListNetworkLoadBalancers(ctx, nlbapi.ListNetworkLoadBalancersRequest{CompartmentId: &f.comp})
	wantServiceError(t, err, http.StatusNotFound, "NotAuthorizedOrNotFound")
	clk.Advance(DefaultPolicyDelay)
	if _, err := f.nlb.ListNetworkLoadBalancers(ctx, nlbapi.ListNetworkLoadBalancersRequest{CompartmentId: &f.comp}); err != nil {
		t.Errorf("ListNetworkLoadBalancers once the new policy applies: %v", err)
	}
}

func TestPolicyDelayIsAnOptionAndSeededPoliciesApplyAtOnce(t *testing.T) {
	for _, tt := range []struct {
		name  string
		delay time.Duration
		seed  bool
		wait  time.Duration // of the server's clock before the call
		ok    bool
	}{
		{"set, default delay, too early", 0, false, DefaultPolicyDelay - time.Second, false},
		{"set, 1 minute, too early", time.Minute, false, DefaultPolicyDelay, false},
		{"set, 1 minute, in time", time.Minute, false, time.Minute, true},
		{"set, no lag", NoLag, false, 0, true},
		{"seeded", 0, true, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, clk, _ := lagFixture(t, Options{PolicyDelay: tt.delay})
			statements := []string{"Allow dynamic-group ccm to read load-balancers in compartment cluster"}
			if tt.seed {
				tenancy := DefaultTenancy()
				tenancy.Policy = statements
				seeded, err := f.srv.Seed(tenancy)
				if err != nil {
					t.Fatal(err)
				}
				f.comp = seeded.Compartment
			} else {
				f.comp = f.srv.AddCompartment("cluster")
				f.srv.DenyAll()
				if err := f.srv.SetPolicy(statements...); err != nil {
					t.Fatal(err)
				}
			}
			clk.Advance(tt.wait)
			_, err := f.lb.ListLoadBalancers(testCtx(t), loadbalancer.ListLoadBalancersRequest{CompartmentId: &f.comp})
			if (err == nil) != tt.ok {
				t.Errorf("ListLoadBalancers: %v, want success %t", err, tt.ok)
			}
		})
	}
}

func TestAPolicyLoadedThroughTheAdminAPIPropagatesToo(t *testing.T) {
	f, clk, _ := lagFixture(t, Options{})
	f.comp = f.srv.AddCompartment("cluster")
	f.srv.DenyAll()
	body := []byte(`{"statements":["Allow any-user to inspect load-balancers in compartment cluster"]}`)
	req, _ := http.NewRequest(http.MethodPut, f.srv.URL()+"/ocitest/policy", bytes.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("PUT /ocitest/policy: %v %v", resp, err)
	}
	resp.Body.Close()
	_, err = f.lb.ListLoadBalancers(testCtx(t), loadbalancer.ListLoadBalancersRequest{CompartmentId: &f.comp})
	wantServiceError(t, err, http.StatusNotFound, "NotAuthorizedOrNotFound")
	clk.Advance(DefaultPolicyDelay)
	if _, err := f.lb.ListLoadBalancers(testCtx(t), loadbalancer.ListLoadBalancersRequest{CompartmentId: &f.comp}); err != nil {
		t.Errorf("ListLoadBalancers once propagated: %v", err)
	}
}

func TestNewResourcesAreMissingFromListingsForAMoment(t *testing.T) {
	f, clk, vn := lagFixture(t, Options{})
	ctx := testCtx(t)
	lbID := f.createLB(t, f.basicLB("lb"))
	nlbResp, err := f.nlb.CreateNetworkLoadBalancer(ctx, nlbapi.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: f.basicNLB("nlb")})
	if err != nil {
		t.Fatal(err)
	}
	vcn := f.srv.AddVCN(core.Vcn{CompartmentId: &f.comp})
	seededNSG := f.srv.AddNetworkSecurityGroup(core.NetworkSecurityGroup{VcnId: vcn.Id}) // seeded: there before the test
	g, err := vn.CreateNetworkSecurityGroup(ctx, core.CreateNetworkSecurityGroupRequest{CreateNetworkSecurityGroupDetails: core.CreateNetworkSecurityGroupDetails{
		CompartmentId: &f.comp, VcnId: vcn.Id}})
	if err != nil {
		t.Fatal(err)
	}
	cc, err := f.lb.CreateCertificate(ctx, loadbalancer.CreateCertificateRequest{LoadBalancerId: &lbID,
		CreateCertificateDetails: loadbalancer.CreateCertificateDetails{CertificateName: common.String("tls-1"),
			PublicCertificate: common.String("-----BEGIN CERTIFICATE-----"), PrivateKey: common.String("-----BEGIN RSA PRIVATE KEY-----")}})
	if err != nil {
		t.Fatal(err)
	}
	f.mustSucceed(t, cc.OpcWorkRequestId)

	listed := func() []string {
		t.Helper()
		var out []string
		lbs, err := f.lb.ListLoadBalancers(ctx, loadbalancer.ListLoadBalancersRequest{CompartmentId: &f.comp})
		if err != nil {
			t.Fatal(err)
		}
		for _, lb := range lbs.Items {
			out = append(out, "lb "+*lb.DisplayName)
		}
		nlbs, err := f.nlb.ListNetworkLoadBalancers(ctx, nlbapi.ListNetworkLoadBalancersRequest{CompartmentId: &f.comp})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range nlbs.Items {
			out = append(out, "nlb "+*n.DisplayName)
		}
		nsgs, err := vn.ListNetworkSecurityGroups(ctx, core.ListNetworkSecurityGroupsRequest{VcnId: vcn.Id})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range nsgs.Items {
			out = append(out, "nsg "+*n.Id)
		}
		certs, err := f.lb.ListCertificates(ctx, loadbalancer.ListCertificatesRequest{LoadBalancerId: &lbID})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range certs.Items {
			out = append(out, "certificate "+*c.CertificateName)
		}
		return out
	}
	if diff := cmp.Diff([]string{"nsg " + *seededNSG.Id}, listed()); diff != "" {
		t.Errorf("listed at once (-want +got):\n%s", diff)
	}
	// Read by OCID, each is there at once.
	if _, err := f.nlb.GetNetworkLoadBalancer(ctx, nlbapi.GetNetworkLoadBalancerRequest{NetworkLoadBalancerId: nlbResp.Id}); err != nil {
		t.Errorf("GetNetworkLoadBalancer: %v", err)
	}
	if _, err := vn.GetNetworkSecurityGroup(ctx, core.GetNetworkSecurityGroupRequest{NetworkSecurityGroupId: g.Id}); err != nil {
		t.Errorf("GetNetworkSecurityGroup: %v", err)
	}
	if got := f.getLB(t, lbID).Certificates; len(got) != 1 {
		t.Errorf("GetLoadBalancer shows %d certificates, want the new one", len(got))
	}
	clk.Advance(DefaultListingLag)
	want := []string{"lb lb", "nlb nlb", "nsg " + *seededNSG.Id, "nsg " + *g.Id, "certificate tls-1"}
	if diff := cmp.Diff(want, listed()); diff != "" {
		t.Errorf("listed %s later (-want +got):\n%s", DefaultListingLag, diff)
	}
}

func TestListingLagIsAnOption(t *testing.T) {
	for _, tt := range []struct {
		lag  time.Duration
		wait time.Duration
		want int
	}{
		{0, DefaultListingLag / 2, 0},
		{time.Minute, DefaultListingLag, 0},
		{time.Minute, time.Minute, 1},
		{NoLag, 0, 1},
	} {
		f, clk, _ := lagFixture(t, Options{ListingLag: tt.lag})
		f.createLB(t, f.basicLB("lb"))
		clk.Advance(tt.wait)
		lbs, err := f.lb.ListLoadBalancers(testCtx(t), loadbalancer.ListLoadBalancersRequest{CompartmentId: &f.comp})
		if err != nil || len(lbs.Items) != tt.want {
			t.Errorf("lag %s, %s after the create: %d listed (%v), want %d", tt.lag, tt.wait, len(lbs.Items), err, tt.want)
		}
	}
}
