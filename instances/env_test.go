// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package instances

import (
	"fmt"
	"testing"
	"time"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// testAD is the availability domain every test instance lives in, with its tenancy prefix.
const testAD = "Uocm:PHX-AD-1"

// env is an ocitest server seeded with one VCN and subnet, an ociclient talking to it through
// the real SDK, and Instances on top.
type env struct {
	srv         *ocitest.Server
	client      *ociclient.Client
	inst        *Instances
	compartment string
	subnet      core.Subnet
	// policy is the tenancy's IAM policy, in force from the start.
	policy []string
}

type envOptions struct {
	// cacheTTL is ociclient's; negative (the default here) turns caching off so every question
	// reaches the server and state changes show at once.
	cacheTTL time.Duration
	pageSize int
	// ipv6 gives the subnet an IPv6 prefix.
	ipv6 bool
	// clock, if set, is the server's clock (ocitest.Options.Now): a test moves it past the
	// policy delay instead of waiting for it.
	clock *ocitest.Clock
}

func newEnv(t testing.TB, o envOptions) *env {
	t.Helper()
	if o.cacheTTL == 0 {
		o.cacheTTL = -1
	}
	ten := ocitest.DefaultTenancy()
	ten.Instances = nil // the tests count and name the instances they add themselves
	// A second compartment for nodes, with the documented policy's statements for instances
	// written once more for it, as seclist/README.md tells users to do for every compartment
	// nodes live in. It is part of the tenancy as it was before the test, so its grants are in
	// force from the start; a grant set mid-test would still be propagating (see ocitest's
	// Options.PolicyDelay).
	ten.Compartments = append(ten.Compartments, otherCompartmentName)
	ten.Policy = append(ocitest.DefaultPolicy(),
		"Allow dynamic-group ccm to read instance-family in compartment "+otherCompartmentName,
		"Allow dynamic-group ccm to read virtual-network-family in compartment "+otherCompartmentName)
	so := ocitest.Options{PageSize: o.pageSize, Tenancy: &ten}
	if o.clock != nil {
		so.Now = o.clock.Now
	}
	srv := ocitest.New(so)
	t.Cleanup(srv.Close)
	srv.AddAvailabilityDomain(testAD)
	v := core.Vcn{CidrBlock: common.String("10.0.0.0/16")}
	if o.ipv6 {
		v.Ipv6CidrBlocks = []string{"2603:c020:4::/56"} // a subnet's /64 must lie in the VCN's prefix
	}
	vcn := srv.AddVCN(v)
	sn := core.Subnet{VcnId: vcn.Id, CidrBlock: common.String("10.0.0.0/20")}
	if o.ipv6 {
		sn.Ipv6CidrBlock = common.String("2603:c020:4:1::/64")
	}
	subnet := srv.AddSubnet(sn)
	e := &env{srv: srv, compartment: srv.Seeded().Compartment, subnet: subnet, policy: ten.Policy}
	e.client = e.newClient(t, o.cacheTTL)
	e.inst = e.newInstances(t)
	return e
}

// newClient returns an ociclient for the server: two attempts with a millisecond backoff, so
// faults surface fast, and no client-side rate limit, so call counts are all that is measured.
func (e *env) newClient(t testing.TB, cacheTTL time.Duration) *ociclient.Client {
	t.Helper()
	c, err := ociclient.New(ociclient.Options{
		Provider:   e.srv.ConfigurationProvider(),
		Region:     e.srv.Region(),
		Host:       e.srv.URL(),
		HTTPClient: e.srv.HTTPClient(),
		RateLimit:  config.RateLimiter{Disabled: true},
		Retry:      ociclient.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond},
		CacheTTL:   cacheTTL,
	})
	if err != nil {
		t.Fatalf("ociclient.New: %v", err)
	}
	return c
}

func (e *env) newInstances(t testing.TB) *Instances {
	t.Helper()
	i, err := New(Options{
		Compute:        e.client.Compute,
		VirtualNetwork: e.client.VirtualNetwork,
		CompartmentID:  e.compartment,
		Region:         e.srv.Region(),
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return i
}

// addInstance seeds a running instance with one VNIC in the test subnet; edit adjusts the
// instance and its VNIC first.
func (e *env) addInstance(name string, edit func(*core.Instance, *core.Vnic)) core.Instance {
	inst := core.Instance{DisplayName: common.String(name), AvailabilityDomain: common.String(testAD)}
	vnic := core.Vnic{SubnetId: e.subnet.Id}
	if edit != nil {
		edit(&inst, &vnic)
	}
	return e.srv.AddInstance(ocitest.Instance{Instance: inst, VNICs: []core.Vnic{vnic}})
}

// addInstances seeds n running instances named node-0…node-(n-1).
func (e *env) addInstances(n int) []core.Instance {
	out := make([]core.Instance, n)
	for k := range out {
		out[k] = e.addInstance(fmt.Sprintf("node-%d", k), nil)
	}
	return out
}

// nodeFor is a Node registered for the instance, with its providerID set.
func nodeFor(inst core.Instance) *v1.Node {
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: *inst.DisplayName},
		Spec:       v1.NodeSpec{ProviderID: ProviderID(*inst.Id)},
	}
}

// namedNode is a Node without providerID, as kubelet registers it before the CCM initialises it.
func namedNode(name string, internalIPs ...string) *v1.Node {
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for _, ip := range internalIPs {
		n.Status.Addresses = append(n.Status.Addresses, v1.NodeAddress{Type: v1.NodeInternalIP, Address: ip})
	}
	return n
}

// otherCompartmentName names the tenancy's second compartment in newEnv.
const otherCompartmentName = "other-nodes"

// otherCompartment is the OCID of the tenancy's second compartment, where the policy lets the
// CCM read instances too. Tests that want a call there refused inject the 404.
func (e *env) otherCompartment(t testing.TB) string {
	t.Helper()
	id, ok := e.srv.Seeded().Compartments[otherCompartmentName]
	if !ok {
		t.Fatalf("the tenancy has no compartment %q", otherCompartmentName)
	}
	return id
}
