// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package seclist_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	"k8s.io/apimachinery/pkg/types"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
	"github.com/oci-ccm/oci-ccm/seclist"
)

const cluster = "prod"

// vcn is a small network in an ocitest server: an LB subnet and a node subnet, each with its
// own security list that starts with the user's rules and a rule of another cluster.
type vcn struct {
	srv                  *ocitest.Server
	vn                   ociclient.VirtualNetwork
	lbSubnet, nodeSubnet string
	lbCIDR, nodeCIDR     string
	lbList, nodeList     string
	// userIngress is what the LB list holds before oci-ccm touches it.
	userIngress []core.IngressSecurityRule
}

func newVCN(t testing.TB) *vcn {
	t.Helper()
	srv := ocitest.New(ocitest.Options{})
	t.Cleanup(srv.Close)
	net := srv.AddVCN(core.Vcn{CidrBlock: common.String("10.0.0.0/16")})
	user := []core.IngressSecurityRule{
		userRule("0.0.0.0/0", 22, ""),
		userRule("0.0.0.0/0", 8443, seclist.Owner("staging")), // another cluster sharing the subnet
	}
	lbList := srv.AddSecurityList(core.SecurityList{VcnId: net.Id, IngressSecurityRules: user,
		EgressSecurityRules: []core.EgressSecurityRule{{Destination: common.String("0.0.0.0/0"), Protocol: common.String("all")}}})
	nodeList := srv.AddSecurityList(core.SecurityList{VcnId: net.Id})
	lb := srv.AddSubnet(core.Subnet{VcnId: net.Id, CidrBlock: common.String("10.0.1.0/24"), SecurityListIds: []string{*lbList.Id}})
	nodes := srv.AddSubnet(core.Subnet{VcnId: net.Id, CidrBlock: common.String("10.0.10.0/24"), SecurityListIds: []string{*nodeList.Id}})

	client, err := ociclient.New(ociclient.Options{
		Provider:   srv.ConfigurationProvider(),
		Region:     srv.Region(),
		Host:       srv.URL(),
		HTTPClient: srv.HTTPClient(),
		RateLimit:  config.RateLimiter{Disabled: true},
		Retry:      ociclient.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	return &vcn{
		srv: srv, vn: client.VirtualNetwork,
		lbSubnet: *lb.Id, nodeSubnet: *nodes.Id, lbCIDR: "10.0.1.0/24", nodeCIDR: "10.0.10.0/24",
		lbList: *lbList.Id, nodeList: *nodeList.Id,
		userIngress: user,
	}
}

// manager returns a primed Manager with short retry delays.
func (v *vcn) manager(t testing.TB, opts seclist.Options) *seclist.Manager {
	t.Helper()
	m := v.youngManager(t, opts)
	// The Manager has run for the listing lag before the test begins, so what it calls does not
	// depend on how long the test takes by the wall clock (its first Reconcile in a VCN lists the
	// VCN's groups once the lag has passed; see Manager.Reconcile).
	m.Settle()
	return m
}

// youngManager is a Manager just started (a restarted process): its listings may lack a group
// a process before it created, until Options.ListingLag has passed.
func (v *vcn) youngManager(t testing.TB, opts seclist.Options) *seclist.Manager {
	t.Helper()
	if opts.Policy.Cluster == "" {
		opts.Policy.Cluster = cluster
	}
	if opts.Logger.GetSink() == nil {
		// The diffs of 50 Services drown the test output. (logr.Discard() would not do: its
		// zero sink means "default" to NewManager.)
		opts.Logger = funcr.New(func(string, string) {}, funcr.Options{})
	}
	opts.BaseDelay = max(opts.BaseDelay, time.Millisecond)
	opts.MaxDelay = max(opts.MaxDelay, 20*time.Millisecond)
	if opts.ListingLag == 0 {
		// ocitest's listing lag: a restarted Manager waits that long, not the product's default,
		// for a group its predecessor made.
		opts.ListingLag = ocitest.DefaultListingLag
	}
	m, err := seclist.NewManager(v.vn, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Prime(nil); err != nil {
		t.Fatal(err)
	}
	return m
}

// claim is the Service service ("namespace/name") in mode All with one listener port and one
// node port.
func (v *vcn) claim(service string, port, nodePort int) seclist.Claim {
	return seclist.Claim{
		Service: nameOf(service), Mode: config.SecurityListModeAll,
		LBSubnets: []string{v.lbSubnet}, NodeSubnets: []string{v.nodeSubnet},
		ListenerPorts: []int{port}, NodePorts: []int{nodePort}, HealthCheckPort: lb.KubeProxyHealthPort,
	}
}

// nameOf is the Service "namespace/name".
func nameOf(service string) types.NamespacedName {
	ns, name, _ := strings.Cut(service, "/")
	return types.NamespacedName{Namespace: ns, Name: name}
}

// list returns a security list as the server holds it now.
func (v *vcn) list(t testing.TB, id string) core.SecurityList {
	t.Helper()
	l, ok := v.srv.SecurityList(id)
	if !ok {
		t.Fatalf("security list %s is gone", id)
	}
	return l
}

func userRule(src string, port int, desc string) core.IngressSecurityRule {
	r := core.IngressSecurityRule{
		Protocol: common.String("6"), Source: common.String(src),
		TcpOptions: &core.TcpOptions{DestinationPortRange: &core.PortRange{Min: common.Int(port), Max: common.Int(port)}},
	}
	if desc != "" {
		r.Description = common.String(desc)
	}
	return r
}

// ownedIngress returns "cidr:port" for every ingress rule of the list this cluster owns, sorted.
func ownedIngress(l core.SecurityList) []string {
	var out []string
	for _, r := range l.IngressSecurityRules {
		if r.Description != nil && *r.Description == seclist.Owner(cluster) {
			out = append(out, rulePort(*r.Source, r.TcpOptions))
		}
	}
	slices.Sort(out)
	return out
}

// ownedEgress is ownedIngress for egress rules.
func ownedEgress(l core.SecurityList) []string {
	var out []string
	for _, r := range l.EgressSecurityRules {
		if r.Description != nil && *r.Description == seclist.Owner(cluster) {
			out = append(out, rulePort(*r.Destination, r.TcpOptions))
		}
	}
	slices.Sort(out)
	return out
}

// notOwnedIngress returns the ingress rules of the list this cluster does not own, in order.
func notOwnedIngress(l core.SecurityList) []core.IngressSecurityRule {
	var out []core.IngressSecurityRule
	for _, r := range l.IngressSecurityRules {
		if r.Description == nil || *r.Description != seclist.Owner(cluster) {
			out = append(out, r)
		}
	}
	return out
}

func rulePort(cidr string, tcp *core.TcpOptions) string {
	if tcp == nil || tcp.DestinationPortRange == nil {
		return cidr + ":?"
	}
	r := *tcp.DestinationPortRange
	if *r.Min == *r.Max {
		return cidr + ":" + strconv.Itoa(*r.Min)
	}
	return cidr + ":" + strconv.Itoa(*r.Min) + "-" + strconv.Itoa(*r.Max)
}
