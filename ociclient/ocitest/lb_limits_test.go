// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
	"gopkg.in/yaml.v3"
)

// serviceMessage is the message of an OCI service error ("" for success).
func serviceMessage(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	var se common.ServiceError
	if !errors.As(err, &se) {
		t.Fatalf("error %v is not an OCI service error", err)
	}
	return se.GetMessage()
}

func fixedShape(f *lbFixture, name, shape string) loadbalancer.CreateLoadBalancerDetails {
	d := f.basicLB(name)
	d.ShapeName, d.ShapeDetails = common.String(shape), nil
	return d
}

func TestFixedShapesCountAgainstTheTenancysLimitWhichIsZeroByDefault(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	create := func(shape string) error {
		_, err := f.lb.CreateLoadBalancer(ctx, loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: fixedShape(f, "svc", shape)})
		return err
	}
	limitMsg := func(limit string) string {
		return "The following service limits were exceeded: " + limit + ". Request a service limit increase from the service limits page in the console."
	}
	for _, tc := range []struct{ shape, limit string }{
		{"100Mbps", "lb-100mbps-count"},
		{"10Mbps-Micro", "lb-10mbps-micro-count"},
		{"8000Mbps", "lb-8000mbps-count"},
	} {
		t.Run("new tenancy "+tc.shape, func(t *testing.T) {
			err := create(tc.shape)
			wantServiceError(t, err, http.StatusBadRequest, "LimitExceeded")
			if got := serviceMessage(t, err); got != limitMsg(tc.limit) {
				t.Errorf("message %q, want %q", got, limitMsg(tc.limit))
			}
		})
	}
	if n := len(f.srv.LoadBalancers()); n != 0 {
		t.Fatalf("%d load balancers after refused creates, want 0", n)
	}

	f.srv.SetLBLimits(LBLimits{FixedShapes: map[string]int{"100Mbps": 1}})
	first := f.createLB(t, fixedShape(f, "first", "100Mbps"))
	wantServiceError(t, create("100Mbps"), http.StatusBadRequest, "LimitExceeded")
	flex := f.createLB(t, f.basicLB("flex"))
	updateShape := func(id, shape string) error {
		_, err := f.lb.UpdateLoadBalancerShape(ctx, loadbalancer.UpdateLoadBalancerShapeRequest{LoadBalancerId: &id,
			UpdateLoadBalancerShapeDetails: loadbalancer.UpdateLoadBalancerShapeDetails{ShapeName: common.String(shape)}})
		return err
	}
	wantServiceError(t, updateShape(first, "400Mbps"), http.StatusBadRequest, "LimitExceeded")
	wantServiceError(t, updateShape(flex, "100Mbps"), http.StatusBadRequest, "InvalidParameter") // flexible→fixed

	del, err := f.lb.DeleteLoadBalancer(ctx, loadbalancer.DeleteLoadBalancerRequest{LoadBalancerId: &first})
	if err != nil {
		t.Fatalf("DeleteLoadBalancer: %v", err)
	}
	f.mustSucceed(t, del.OpcWorkRequestId)
	f.createLB(t, fixedShape(f, "again", "100Mbps")) // the deleted one no longer counts
}

func TestPerLoadBalancerCountsAreLimited(t *testing.T) {
	f := newLBFixture(t, Options{})
	tests := []struct {
		name string
		edit func(d *loadbalancer.CreateLoadBalancerDetails)
		code string
	}{
		{"16 listeners", func(d *loadbalancer.CreateLoadBalancerDetails) { addListeners(d, 15) }, ""},
		{"17 listeners", func(d *loadbalancer.CreateLoadBalancerDetails) { addListeners(d, 16) }, "LimitExceeded"},
		{"16 backend sets", func(d *loadbalancer.CreateLoadBalancerDetails) { addBackendSets(d, 15) }, ""},
		{"17 backend sets", func(d *loadbalancer.CreateLoadBalancerDetails) { addBackendSets(d, 16) }, "LimitExceeded"},
		{"512 backends in a set", func(d *loadbalancer.CreateLoadBalancerDetails) {
			d.BackendSets["TCP-80"] = tcpBackendSet(hosts(512)...)
		}, ""},
		{"513 backends in a set", func(d *loadbalancer.CreateLoadBalancerDetails) {
			d.BackendSets["TCP-80"] = tcpBackendSet(hosts(513)...)
		}, "LimitExceeded"},
		{"512 backends in total, over two sets", func(d *loadbalancer.CreateLoadBalancerDetails) { spreadBackends(d, 512, 300) }, ""},
		{"513 backends in total, over two sets", func(d *loadbalancer.CreateLoadBalancerDetails) { spreadBackends(d, 513, 300) }, "LimitExceeded"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := f.basicLB(tc.name)
			tc.edit(&d)
			_, err := f.lb.CreateLoadBalancer(testCtx(t), loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: d})
			if tc.code == "" {
				if err != nil {
					t.Fatalf("CreateLoadBalancer at the limit: %v", err)
				}
				return
			}
			wantServiceError(t, err, http.StatusBadRequest, tc.code)
		})
	}
}

// spreadBackends replaces the backend sets with n backends in sets of at most 512.
// spreadBackends puts n backends in sets of at most per.
func spreadBackends(d *loadbalancer.CreateLoadBalancerDetails, n, per int) {
	all := hosts(n)
	for i := 0; len(all) > 0; i++ {
		name, k := fmt.Sprintf("B%d", i), min(per, len(all))
		if i == 0 {
			name = "TCP-80"
		}
		d.BackendSets[name] = tcpBackendSet(all[:k]...)
		all = all[k:]
	}
}

func addListeners(d *loadbalancer.CreateLoadBalancerDetails, n int) {
	for i := range n {
		d.Listeners[fmt.Sprintf("L%d", i)] = loadbalancer.ListenerDetails{DefaultBackendSetName: common.String("TCP-80"),
			Port: common.Int(1000 + i), Protocol: common.String("TCP")}
	}
}

func addBackendSets(d *loadbalancer.CreateLoadBalancerDetails, n int) {
	for i := range n {
		d.BackendSets[fmt.Sprintf("B%d", i)] = tcpBackendSet()
	}
}

func hosts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("10.1.%d.%d", i/250, i%250+1)
	}
	return out
}

// placementFixture is a server with two ADs and a VCN holding a private subnet and public
// regional and AD-specific subnets, by name.
func placementFixture(t *testing.T) (*lbFixture, map[string]string) {
	f := newLBFixture(t, Options{})
	f.srv.AddAvailabilityDomain("Uocm:PHX-AD-1")
	f.srv.AddAvailabilityDomain("Uocm:PHX-AD-2")
	vcn := f.srv.AddVCN(core.Vcn{})
	subnets := map[string]string{}
	for i, s := range []struct {
		name, ad string
		private  bool
	}{
		{"private", "", true}, {"regional", "", false}, {"ad1", "Uocm:PHX-AD-1", false},
		{"ad1-other", "Uocm:PHX-AD-1", false}, {"ad2", "Uocm:PHX-AD-2", false},
	} {
		sn := core.Subnet{VcnId: vcn.Id, CidrBlock: common.String(fmt.Sprintf("10.0.%d.0/24", i+1)),
			ProhibitPublicIpOnVnic: common.Bool(s.private)}
		if s.ad != "" {
			sn.AvailabilityDomain = common.String(s.ad)
		}
		subnets[s.name] = *f.srv.AddSubnet(sn).Id
	}
	return f, subnets
}

func TestPublicLoadBalancersNeedPublicRegionalOrTwoADSubnets(t *testing.T) {
	f, sn := placementFixture(t)
	tests := []struct {
		name    string
		private bool
		subnets []string
		ok      bool
	}{
		{"public in a private subnet", false, []string{sn["private"]}, false},
		{"public in a private and a public subnet", false, []string{sn["ad1"], sn["private"]}, false},
		{"public in one AD-specific subnet", false, []string{sn["ad1"]}, false},
		{"public in two subnets of one AD", false, []string{sn["ad1"], sn["ad1-other"]}, false},
		{"public in subnets of two ADs", false, []string{sn["ad1"], sn["ad2"]}, true},
		{"public in a regional subnet", false, []string{sn["regional"]}, true},
		{"private in a private subnet", true, []string{sn["private"]}, true},
		{"private in one AD-specific subnet", true, []string{sn["ad1"]}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := f.basicLB(tc.name)
			d.IsPrivate, d.SubnetIds = common.Bool(tc.private), tc.subnets
			resp, err := f.lb.CreateLoadBalancer(testCtx(t), loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: d})
			if !tc.ok {
				wantServiceError(t, err, http.StatusBadRequest, "InvalidParameter")
				return
			}
			if err != nil {
				t.Fatalf("CreateLoadBalancer: %v", err)
			}
			f.mustSucceed(t, resp.OpcWorkRequestId)
		})
	}
	n := f.basicNLB("nlb")
	n.SubnetId = common.String(sn["private"])
	_, err := f.nlb.CreateNetworkLoadBalancer(testCtx(t), nlbapi.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: n})
	wantServiceError(t, err, http.StatusBadRequest, "InvalidParameter")
}

func TestCreateInAFullSubnetFailsItsWorkRequestNotTheRequest(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	vcn := f.srv.AddVCN(core.Vcn{})
	subnet := f.srv.AddSubnet(core.Subnet{VcnId: vcn.Id, CidrBlock: common.String("10.0.7.0/29")}) // 5 usable addresses
	f.srv.AddInstance(Instance{VNICs: []core.Vnic{{SubnetId: subnet.Id}}})                         // takes 10.0.7.2
	private := f.basicLB("private")
	private.IsPrivate, private.SubnetIds = common.Bool(true), []string{*subnet.Id}
	// A load balancer takes three addresses (lbAddressesPerSubnet): the first fits in the four
	// left, showing the highest; the next finds one free address and fails.
	if got := *f.getLB(t, f.createLB(t, private)).IpAddresses[0].IpAddress; got != "10.0.7.6" {
		t.Errorf("address %s, want 10.0.7.6", got)
	}

	want := fmt.Sprintf("All 5 non-reserved IP addresses of the 10.0.7.0/29 for %s have already been allocated.", *subnet.Id)
	resp, err := f.lb.CreateLoadBalancer(ctx, loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: private})
	if err != nil {
		t.Fatalf("CreateLoadBalancer in a full subnet answered %v; OCI accepts it and fails the work request", err)
	}
	if msg := f.mustFail(t, resp.OpcWorkRequestId); msg != want {
		t.Errorf("work request error %q, want %q", msg, want)
	}
	failed := f.getLB(t, f.lbOfWork(t, *resp.OpcWorkRequestId))
	if failed.LifecycleState != loadbalancer.LoadBalancerLifecycleStateFailed || len(failed.IpAddresses) != 0 {
		t.Errorf("load balancer in a full subnet: %s with addresses %v, want FAILED with none", failed.LifecycleState, failed.IpAddresses)
	}
	public := f.basicLB("public")
	public.SubnetIds = []string{*subnet.Id}
	resp, err = f.lb.CreateLoadBalancer(ctx, loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: public})
	if err != nil {
		t.Fatalf("CreateLoadBalancer: %v", err)
	}
	if msg := f.mustFail(t, resp.OpcWorkRequestId); msg != want {
		t.Errorf("public load balancer: work request error %q, want %q", msg, want)
	}
	n := f.basicNLB("nlb")
	n.IsPrivate, n.SubnetId = common.Bool(true), subnet.Id
	nresp, err := f.nlb.CreateNetworkLoadBalancer(ctx, nlbapi.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: n})
	if err != nil {
		t.Fatalf("CreateNetworkLoadBalancer: %v", err)
	}
	if wr := f.waitNLBWork(t, nresp.OpcWorkRequestId); wr.Status != nlbapi.OperationStatusFailed {
		t.Errorf("network load balancer in a full subnet: work request %s, want FAILED", wr.Status)
	}

	// Deleting a load balancer gives its address back.
	for _, lb := range f.srv.LoadBalancers() {
		if len(lb.IpAddresses) == 1 && deref(lb.IpAddresses[0].IpAddress) == "10.0.7.6" {
			del, err := f.lb.DeleteLoadBalancer(ctx, loadbalancer.DeleteLoadBalancerRequest{LoadBalancerId: lb.Id})
			if err != nil {
				t.Fatalf("DeleteLoadBalancer: %v", err)
			}
			f.mustSucceed(t, del.OpcWorkRequestId)
		}
	}
	if addr := *f.getLB(t, f.createLB(t, private)).IpAddresses[0].IpAddress; addr != "10.0.7.6" {
		t.Errorf("address after a delete freed its three: %s, want 10.0.7.6", addr)
	}
}

func TestNetworkLoadBalancerTakesAtMostOneReservedIPOfEachKind(t *testing.T) {
	addr := func(ip string, public bool, reserved string) nlbapi.IpAddress {
		return nlbapi.IpAddress{IpAddress: common.String(ip), IsPublic: common.Bool(public), IpVersion: nlbapi.IpVersionIpv4,
			ReservedIp: &nlbapi.ReservedIp{Id: common.String(reserved)}}
	}
	// Reserved IPs by name: pub1 and pub2 reserved public IPs,
	// priv1 and priv2 reserved private IPs in the network load balancer's subnet (its lowest
	// free addresses). The IPv6 case names an OCID nobody seeded: the IP-version check refuses
	// it (400 InvalidParameter) before its existence is looked at.
	type ips map[string]core.PrivateIp
	tests := []struct {
		name     string
		private  bool
		reserved []string
		want     func(pub1 core.PublicIp, priv ips) []nlbapi.IpAddress // nil: refused with 400 InvalidParameter
	}{
		{"public and private", false, []string{"pub1", "priv1"}, func(pub1 core.PublicIp, priv ips) []nlbapi.IpAddress {
			return []nlbapi.IpAddress{addr(*pub1.IpAddress, true, *pub1.Id), addr(*priv["priv1"].IpAddress, false, *priv["priv1"].Id)}
		}},
		{"private only, on a private NLB", true, []string{"priv1"}, func(_ core.PublicIp, priv ips) []nlbapi.IpAddress {
			return []nlbapi.IpAddress{addr(*priv["priv1"].IpAddress, false, *priv["priv1"].Id)}
		}},
		{"two public", false, []string{"pub1", "pub2"}, nil},
		{"two private", false, []string{"priv1", "priv2"}, nil},
		{"the same twice", false, []string{"pub1", "pub1"}, nil},
		{"public on a private NLB", true, []string{"pub1"}, nil},
		{"not an IP", false, []string{"ocid1.vnic.oc1..x"}, nil},
		{"IPv6 on an IPv4 network load balancer", false, []string{"ocid1.ipv6.oc1..v1"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newLBFixture(t, Options{})
			d := f.basicNLB("nlb")
			pub1 := f.srv.AddPublicIP(core.PublicIp{CompartmentId: &f.comp})
			ids := map[string]string{"pub1": *pub1.Id, "pub2": *f.srv.AddPublicIP(core.PublicIp{CompartmentId: &f.comp}).Id}
			priv := ips{}
			for _, name := range []string{"priv1", "priv2"} {
				priv[name] = f.srv.AddPrivateIP(core.PrivateIp{SubnetId: d.SubnetId})
				ids[name] = *priv[name].Id
			}
			d.IsPrivate = common.Bool(tc.private)
			for _, name := range tc.reserved {
				id := ids[name]
				if id == "" {
					id = name
				}
				d.ReservedIps = append(d.ReservedIps, nlbapi.ReservedIp{Id: common.String(id)})
			}
			resp, err := f.nlb.CreateNetworkLoadBalancer(testCtx(t), nlbapi.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: d})
			if tc.want == nil {
				wantServiceError(t, err, http.StatusBadRequest, "InvalidParameter")
				return
			}
			if err != nil {
				t.Fatalf("CreateNetworkLoadBalancer: %v", err)
			}
			f.nlbMustSucceed(t, resp.OpcWorkRequestId)
			if diff := cmp.Diff(tc.want(pub1, priv), f.getNLB(t, *resp.Id).IpAddresses); diff != "" {
				t.Errorf("addresses (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCreatesNamingAResourceNobodySeededAreRefusedAsOCIRefusesThem(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	unknown := map[string]func(*loadbalancer.CreateLoadBalancerDetails){
		"subnet": func(d *loadbalancer.CreateLoadBalancerDetails) {
			d.SubnetIds = []string{f.seeded.Subnets["lb-1"], "ocid1.subnet.oc1.phx.nobody"}
		},
		"network security group": func(d *loadbalancer.CreateLoadBalancerDetails) {
			d.NetworkSecurityGroupIds = []string{"ocid1.networksecuritygroup.oc1.phx.nobody"}
		},
		"reserved IP": func(d *loadbalancer.CreateLoadBalancerDetails) {
			d.ReservedIps = []loadbalancer.ReservedIp{{Id: common.String("ocid1.publicip.oc1.phx.nobody")}}
		},
	}
	for what, change := range unknown {
		d := f.basicLB("lb")
		change(&d)
		_, err := f.lb.CreateLoadBalancer(ctx, loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: d})
		t.Run("load balancer, "+what, func(t *testing.T) {
			wantServiceError(t, err, http.StatusBadRequest, "RelatedResourceNotAuthorizedOrNotFound")
		})
	}
	n := f.basicNLB("nlb")
	n.SubnetId = common.String("ocid1.subnet.oc1.phx.nobody")
	_, err := f.nlb.CreateNetworkLoadBalancer(ctx, nlbapi.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: n})
	t.Run("network load balancer, subnet", func(t *testing.T) {
		wantServiceError(t, err, http.StatusBadRequest, "RelatedResourceNotAuthorizedOrNotFound")
	})
	n = f.basicNLB("nlb")
	n.ReservedIps = []nlbapi.ReservedIp{{Id: common.String("ocid1.privateip.oc1.phx.nobody")}}
	_, err = f.nlb.CreateNetworkLoadBalancer(ctx, nlbapi.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: n})
	t.Run("network load balancer, reserved private IP", func(t *testing.T) {
		wantServiceError(t, err, http.StatusBadRequest, "RelatedResourceNotAuthorizedOrNotFound")
	})
	if lbs, nlbs := f.srv.LoadBalancers(), f.srv.NetworkLoadBalancers(); len(lbs)+len(nlbs) != 0 {
		t.Errorf("refused creates left %d load balancers and %d network load balancers", len(lbs), len(nlbs))
	}
}

func tlsLB(f *lbFixture, certName string, ssl loadbalancer.SslConfigurationDetails) loadbalancer.CreateLoadBalancerDetails {
	d := f.basicLB("tls")
	d.Certificates = map[string]loadbalancer.CertificateDetails{certName: {CertificateName: common.String(certName),
		PublicCertificate: common.String("-----BEGIN CERTIFICATE-----"), PrivateKey: common.String("-----BEGIN RSA PRIVATE KEY-----")}}
	ssl.CertificateName = common.String(certName)
	setListener(&d, func(l *loadbalancer.ListenerDetails) { l.Port, l.SslConfiguration = common.Int(443), &ssl })
	return d
}

func TestListenerVerifyDepthZeroIsAcceptedWithoutPeerVerification(t *testing.T) {
	f := newLBFixture(t, Options{})
	tests := []struct {
		name   string
		depth  int
		verify *bool
		ok     bool
	}{
		{"depth 0 without verification (the upstream CCM's)", 0, common.Bool(false), true},
		{"depth 0, verification unset", 0, nil, true},
		{"depth 0 with verification", 0, common.Bool(true), false},
		{"depth 5 with verification", 5, common.Bool(true), true},
		{"depth 11 without verification", 11, common.Bool(false), false},
		{"depth -1", -1, common.Bool(false), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := tlsLB(f, "tls-cert", loadbalancer.SslConfigurationDetails{VerifyDepth: common.Int(tc.depth), VerifyPeerCertificate: tc.verify})
			resp, err := f.lb.CreateLoadBalancer(testCtx(t), loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: d})
			if !tc.ok {
				wantServiceError(t, err, http.StatusBadRequest, "InvalidParameter")
				return
			}
			if err != nil {
				t.Fatalf("CreateLoadBalancer: %v", err)
			}
			f.mustSucceed(t, resp.OpcWorkRequestId)
			got := f.getLB(t, f.lbOfWork(t, *resp.OpcWorkRequestId)).Listeners["TCP-80"].SslConfiguration
			if *got.VerifyDepth != tc.depth {
				t.Errorf("stored verifyDepth %d, want %d", *got.VerifyDepth, tc.depth)
			}
		})
	}
}

func TestCertificateNamesAllowOnlyLettersDigitsDashAndUnderscore(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"web_tls-0123abcd", true},
		{"web.example.com", false},
		{"web tls", false},
		{"web/tls", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f.createLBOrRefused(t, tlsLB(f, tc.name, loadbalancer.SslConfigurationDetails{}), tc.ok)
		})
	}
	id := f.createLB(t, f.basicLB("svc"))
	_, err := f.lb.CreateCertificate(ctx, loadbalancer.CreateCertificateRequest{LoadBalancerId: &id,
		CreateCertificateDetails: loadbalancer.CreateCertificateDetails{CertificateName: common.String("web.tls"),
			PublicCertificate: common.String("-----BEGIN CERTIFICATE-----")}})
	wantServiceError(t, err, http.StatusBadRequest, "InvalidParameter")
}

func TestTenancySeedSetsFixedShapeLimits(t *testing.T) {
	var tn Tenancy
	doc := "loadBalancerShapeLimits: {\"100Mbps\": 1}\n"
	if err := yaml.Unmarshal([]byte(doc), &tn); err != nil {
		t.Fatal(err)
	}
	def := DefaultTenancy()
	def.LoadBalancerShapeLimits = tn.LoadBalancerShapeLimits
	f := newLBFixture(t, Options{Tenancy: &def})
	f.createLB(t, fixedShape(f, "one", "100Mbps"))
	_, err := f.lb.CreateLoadBalancer(testCtx(t), loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: fixedShape(f, "two", "100Mbps")})
	wantServiceError(t, err, http.StatusBadRequest, "LimitExceeded")

	for _, bad := range []map[string]int{{"flexible": 1}, {"1Gbps": 1}, {"400Mbps": -1}} {
		def.LoadBalancerShapeLimits = bad
		// Empty and IAM off (no tenancy means no policy to test under; the test is not about IAM): the test seeds the bad tenancy itself, to read Seed's error.
		srv := New(Options{EmptyTenancy: true, AllowAll: true})
		t.Cleanup(srv.Close)
		if _, err := srv.Seed(def); err == nil || !strings.Contains(err.Error(), "loadBalancerShapeLimits") {
			t.Errorf("Seed with shape limits %v: %v, want an error naming loadBalancerShapeLimits", bad, err)
		}
	}
}

func TestBackendsOverAllSetsAreLimitedWhenASetIsAdded(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	d := f.basicLB("svc")
	all := hosts(511)
	d.BackendSets["TCP-80"], d.BackendSets["B1"] = tcpBackendSet(all[:300]...), tcpBackendSet(all[300:]...)
	id := f.createLB(t, d)

	add, err := f.lb.CreateBackend(ctx, loadbalancer.CreateBackendRequest{LoadBalancerId: &id, BackendSetName: common.String("TCP-80"),
		CreateBackendDetails: loadbalancer.CreateBackendDetails{IpAddress: common.String("10.2.0.1"), Port: common.Int(30080)}})
	if err != nil {
		t.Fatalf("CreateBackend up to 512 in total: %v", err)
	}
	f.mustSucceed(t, add.OpcWorkRequestId)
	_, err = f.lb.CreateBackendSet(ctx, loadbalancer.CreateBackendSetRequest{LoadBalancerId: &id,
		CreateBackendSetDetails: loadbalancer.CreateBackendSetDetails{Name: common.String("B2"), Policy: common.String("ROUND_ROBIN"),
			HealthChecker: tcpBackendSet().HealthChecker, Backends: tcpBackendSet("10.3.0.1").Backends}})
	wantServiceError(t, err, http.StatusBadRequest, "LimitExceeded")
}

// wantLimitExceeded checks that err is 400 LimitExceeded with ocitest's message naming the count
// and the limit (OCI's own wording for these limits is unknown).
func wantLimitExceeded(t *testing.T, err error, msg string) {
	t.Helper()
	wantServiceError(t, err, http.StatusBadRequest, "LimitExceeded")
	if got := serviceMessage(t, err); got != msg {
		t.Errorf("message %q, want %q", got, msg)
	}
}

// nlbWith is basicNLB with listeners listeners (all to TCP-80) and one backend set per size,
// sizes[i] backends in set i: TCP-80 first, then B1, B2, ….
func (f *lbFixture) nlbWith(name string, listeners int, sizes ...int) nlbapi.CreateNetworkLoadBalancerDetails {
	d := f.basicNLB(name)
	for i := 1; i < listeners; i++ {
		l := fmt.Sprintf("TCP-%d", 1000+i)
		d.Listeners[l] = nlbapi.ListenerDetails{Name: common.String(l), DefaultBackendSetName: common.String("TCP-80"),
			Port: common.Int(1000 + i), Protocol: nlbapi.ListenerProtocolsTcp}
	}
	hc := d.BackendSets["TCP-80"].HealthChecker
	total := 0
	for _, n := range sizes {
		total += n
	}
	all := hosts(total)
	d.BackendSets = map[string]nlbapi.BackendSetDetails{}
	for i, n := range sizes {
		set := fmt.Sprintf("B%d", i)
		if i == 0 {
			set = "TCP-80"
		}
		d.BackendSets[set] = nlbapi.BackendSetDetails{HealthChecker: hc, Backends: nlbBackends(all[:n]...)}
		all = all[n:]
	}
	return d
}

func nlbBackends(ips ...string) []nlbapi.Backend {
	out := make([]nlbapi.Backend, len(ips))
	for i, ip := range ips {
		out[i] = nlbapi.Backend{IpAddress: common.String(ip), Port: common.Int(30080)}
	}
	return out
}

func TestNetworkLoadBalancerCountsAreLimitedOnCreateByTheNLBsOwnFigures(t *testing.T) {
	f := newLBFixture(t, Options{})
	sets := func(n int) []int { return make([]int, n) }
	tests := []struct {
		name      string
		listeners int
		sizes     []int
		refusal   string // "": accepted
	}{
		{"50 listeners", 50, []int{1}, ""},
		{"51 listeners", 51, []int{1}, "51 listeners exceed the limit of 50"},
		{"50 backend sets", 1, sets(50), ""},
		{"51 backend sets", 1, sets(51), "51 backend sets exceed the limit of 50"},
		{"512 backends in a set", 1, []int{512}, ""},
		{"513 backends in a set", 1, []int{513}, "513 backends in backend set 'TCP-80' exceed the limit of 512"},
		{"1,024 backends over three sets", 1, []int{512, 500, 12}, ""},
		{"1,025 backends over three sets", 1, []int{512, 500, 13}, "1025 backends on the network load balancer exceed the limit of 1024"},
	}
	created := 0
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := f.nlb.CreateNetworkLoadBalancer(testCtx(t), nlbapi.CreateNetworkLoadBalancerRequest{
				CreateNetworkLoadBalancerDetails: f.nlbWith(tc.name, tc.listeners, tc.sizes...)})
			if tc.refusal != "" {
				wantLimitExceeded(t, err, tc.refusal)
				return
			}
			if err != nil {
				t.Fatalf("CreateNetworkLoadBalancer at the limit: %v", err)
			}
			f.nlbMustSucceed(t, resp.OpcWorkRequestId)
			created++
		})
	}
	if n := len(f.srv.NetworkLoadBalancers()); n != created {
		t.Errorf("%d network load balancers, want the %d created at the limits: a refused create made one", n, created)
	}
}

func TestNetworkLoadBalancerChildChangesPastItsLimitsAreRefusedAndChangeNothing(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	// At every limit: 50 listeners, 50 backend sets, 512 backends in TCP-80 and 1,024 in all.
	sizes := append([]int{512, 511, 1}, make([]int, 47)...)
	id := f.createNLB(t, f.nlbWith("full", 50, sizes...))
	hc := f.basicNLB("").BackendSets["TCP-80"].HealthChecker
	newSet := func(name string, ips ...string) (*string, error) {
		resp, err := f.nlb.CreateBackendSet(ctx, nlbapi.CreateBackendSetRequest{NetworkLoadBalancerId: &id,
			CreateBackendSetDetails: nlbapi.CreateBackendSetDetails{Name: common.String(name), Policy: nlbapi.NetworkLoadBalancingPolicyFiveTuple,
				HealthChecker: new(nlbConvert[nlbapi.HealthCheckerDetails](hc)), Backends: nlbConvert[[]nlbapi.BackendDetails](nlbBackends(ips...))}})
		return resp.OpcWorkRequestId, err
	}
	newBackend := func(set, ip string) (*string, error) {
		resp, err := f.nlb.CreateBackend(ctx, nlbapi.CreateBackendRequest{NetworkLoadBalancerId: &id, BackendSetName: common.String(set),
			CreateBackendDetails: nlbapi.CreateBackendDetails{IpAddress: common.String(ip), Port: common.Int(30080)}})
		return resp.OpcWorkRequestId, err
	}
	updateSet := func(set string, n int) (*string, error) {
		resp, err := f.nlb.UpdateBackendSet(ctx, nlbapi.UpdateBackendSetRequest{NetworkLoadBalancerId: &id, BackendSetName: common.String(set),
			UpdateBackendSetDetails: nlbapi.UpdateBackendSetDetails{Backends: nlbConvert[[]nlbapi.BackendDetails](nlbBackends(hosts(n)...))}})
		return resp.OpcWorkRequestId, err
	}
	const overAll = "1025 backends on the network load balancer exceed the limit of 1024"
	refused := []struct {
		name    string
		call    func() (*string, error)
		refusal string
	}{
		{"51st listener", func() (*string, error) {
			resp, err := f.nlb.CreateListener(ctx, nlbapi.CreateListenerRequest{NetworkLoadBalancerId: &id, CreateListenerDetails: nlbapi.CreateListenerDetails{
				Name: common.String("TCP-2000"), DefaultBackendSetName: common.String("TCP-80"), Port: common.Int(2000), Protocol: nlbapi.ListenerProtocolsTcp}})
			return resp.OpcWorkRequestId, err
		}, "51 listeners exceed the limit of 50"},
		{"51st backend set", func() (*string, error) { return newSet("B50") }, "51 backend sets exceed the limit of 50"},
		{"513th backend in a set, by CreateBackend", func() (*string, error) { return newBackend("TCP-80", "10.2.0.1") },
			"513 backends in backend set 'TCP-80' exceed the limit of 512"},
		{"513 backends in a set, by UpdateBackendSet", func() (*string, error) { return updateSet("TCP-80", 513) },
			"513 backends in backend set 'TCP-80' exceed the limit of 512"},
		{"1,025th backend over all sets, by CreateBackend", func() (*string, error) { return newBackend("B1", "10.2.0.1") }, overAll},
		{"1,025 backends over all sets, by UpdateBackendSet", func() (*string, error) { return updateSet("B2", 2) }, overAll},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			before := f.getNLB(t, id)
			_, err := tc.call()
			wantLimitExceeded(t, err, tc.refusal)
			if diff := cmp.Diff(before, f.getNLB(t, id)); diff != "" {
				t.Errorf("a refused change changed the network load balancer (-before +after):\n%s", diff)
			}
		})
	}

	accepted := func(what string, wr *string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		f.nlbMustSucceed(t, wr)
	}
	// A change that leaves the counts as they are is still taken at the limits.
	upd, err := f.nlb.UpdateBackendSet(ctx, nlbapi.UpdateBackendSetRequest{NetworkLoadBalancerId: &id, BackendSetName: common.String("TCP-80"),
		UpdateBackendSetDetails: nlbapi.UpdateBackendSetDetails{Policy: common.String("THREE_TUPLE")}})
	accepted("UpdateBackendSet of the policy alone, at the limits", upd.OpcWorkRequestId, err)

	// With a backend set fewer, a 50th set fits, but not with a backend: that is the 1,025th.
	del, err := f.nlb.DeleteBackendSet(ctx, nlbapi.DeleteBackendSetRequest{NetworkLoadBalancerId: &id, BackendSetName: common.String("B49")})
	accepted("DeleteBackendSet", del.OpcWorkRequestId, err)
	_, err = newSet("B50", "10.2.0.1")
	wantLimitExceeded(t, err, overAll)
	wr, err := newSet("B50")
	accepted("CreateBackendSet of the 50th set, empty", wr, err)
}

func TestEachAPIHasItsOwnLimits(t *testing.T) {
	f := newLBFixture(t, Options{})
	// The classic load balancer keeps its figures: 16 listeners, where an NLB takes 50.
	lb := f.basicLB("lb")
	addListeners(&lb, 16)
	_, err := f.lb.CreateLoadBalancer(testCtx(t), loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: lb})
	wantLimitExceeded(t, err, "17 listeners exceed the limit of 16")
	f.createNLB(t, f.nlbWith("nlb", 17, 1))

	// Lowering one API's limits leaves the other's alone.
	f.srv.SetLBLimits(LBLimits{ListenersPerLB: 1, BackendSetsPerLB: 1, BackendsPerSet: 1, BackendsPerLB: 1})
	f.createNLB(t, f.nlbWith("nlb-2", 2, 2, 0))
	f.srv.SetLBLimits(LBLimits{ListenersPerNLB: 1, BackendSetsPerNLB: 3, BackendsPerNLBSet: 1, BackendsPerNLB: 2})
	lb = f.basicLB("lb-2")
	addListeners(&lb, 1)
	spreadBackends(&lb, 4, 2)
	f.createLB(t, lb)
	for _, tc := range []struct {
		d       nlbapi.CreateNetworkLoadBalancerDetails
		refusal string
	}{
		{f.nlbWith("listeners", 2, 1), "2 listeners exceed the limit of 1"},
		{f.nlbWith("sets", 1, 0, 0, 0, 0), "4 backend sets exceed the limit of 3"},
		{f.nlbWith("in a set", 1, 2), "2 backends in backend set 'TCP-80' exceed the limit of 1"},
		{f.nlbWith("in all", 1, 1, 1, 1), "3 backends on the network load balancer exceed the limit of 2"},
	} {
		_, err := f.nlb.CreateNetworkLoadBalancer(testCtx(t), nlbapi.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: tc.d})
		wantLimitExceeded(t, err, tc.refusal)
	}
}
