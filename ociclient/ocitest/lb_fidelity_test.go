// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"net/http"
	"testing"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
)

// Validation OCI does that a kinder fake would skip (issue 27, item 5): names, connection
// limits, cipher suites and the NLB's duplicate-backend answer.

func TestListenerAndBackendSetNamesTakeNoDot(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	listener := f.basicLB("dotted-listener")
	listener.Listeners = map[string]loadbalancer.ListenerDetails{"TCP.80": listener.Listeners["TCP-80"]}
	_, err := f.lb.CreateLoadBalancer(ctx, loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: listener})
	wantServiceError(t, err, http.StatusBadRequest, "InvalidParameter")

	set := f.basicLB("dotted-set")
	set.BackendSets = map[string]loadbalancer.BackendSetDetails{"TCP.80": tcpBackendSet("10.0.10.1")}
	setListener(&set, func(l *loadbalancer.ListenerDetails) { l.DefaultBackendSetName = common.String("TCP.80") })
	_, err = f.lb.CreateLoadBalancer(ctx, loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: set})
	wantServiceError(t, err, http.StatusBadRequest, "InvalidParameter")

	id := f.createNLB(t, f.basicNLB("nlb"))
	_, err = f.nlb.CreateBackendSet(ctx, nlbapi.CreateBackendSetRequest{NetworkLoadBalancerId: &id,
		CreateBackendSetDetails: nlbapi.CreateBackendSetDetails{Name: common.String("UDP.53"),
			HealthChecker: &nlbapi.HealthCheckerDetails{Protocol: nlbapi.HealthCheckProtocolsTcp}}})
	wantServiceError(t, err, http.StatusBadRequest, "InvalidParameter")
}

func TestBackendMaxConnectionsIsZeroOrAtLeast256(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	for _, tc := range []struct {
		name           string
		backend, perBS *int
		ok             bool
	}{
		{"unset", nil, nil, true},
		{"0 is unlimited", common.Int(0), common.Int(0), true},
		{"256 each", common.Int(256), common.Int(256), true},
		{"backend 255", common.Int(255), nil, false},
		{"backend set 100", nil, common.Int(100), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := f.basicLB("conns")
			setBackendSet(&d, func(bs *loadbalancer.BackendSetDetails) {
				bs.BackendMaxConnections = tc.perBS
				bs.Backends[0].MaxConnections = tc.backend
			})
			f.createLBOrRefused(t, d, tc.ok)
		})
	}
	id := f.createLB(t, f.basicLB("update"))
	_, err := f.lb.UpdateBackend(ctx, loadbalancer.UpdateBackendRequest{LoadBalancerId: &id, BackendSetName: common.String("TCP-80"),
		BackendName: common.String("10.0.10.1:30080"), UpdateBackendDetails: loadbalancer.UpdateBackendDetails{Weight: common.Int(1),
			Backup: common.Bool(false), Drain: common.Bool(false), Offline: common.Bool(false), MaxConnections: common.Int(10)}})
	wantServiceError(t, err, http.StatusBadRequest, "InvalidParameter")
}

func TestCipherSuitesArePredefinedOrTheLoadBalancersOwn(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	f.createLB(t, tlsLB(f, "tls", loadbalancer.SslConfigurationDetails{CipherSuiteName: common.String("oci-modern-ssl-cipher-suite-v1")}))

	// A name OCI does not know fails the create's work request, as an unknown certificate does.
	resp, err := f.lb.CreateLoadBalancer(ctx, loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: tlsLB(f, "tls",
		loadbalancer.SslConfigurationDetails{CipherSuiteName: common.String("my-suite")})})
	if err != nil {
		t.Fatalf("CreateLoadBalancer: %v", err)
	}
	if msg := f.mustFail(t, resp.OpcWorkRequestId); msg != "Listener 'TCP-80' has unknown cipher suite 'my-suite'" {
		t.Errorf("work request error %q", msg)
	}
	// The name GET shows for a configuration Oracle customised is refused as input.
	_, err = f.lb.CreateLoadBalancer(ctx, loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: tlsLB(f, "tls",
		loadbalancer.SslConfigurationDetails{CipherSuiteName: common.String(lbCustomizedCipherSuite)})})
	wantServiceError(t, err, http.StatusBadRequest, "InvalidParameter")

	// A cipher suite of the load balancer's own may be named.
	id := f.createLB(t, tlsLB(f, "tls", loadbalancer.SslConfigurationDetails{}))
	f.srv.EditLoadBalancer(id, func(lb *loadbalancer.LoadBalancer) {
		lb.SslCipherSuites = map[string]loadbalancer.SslCipherSuite{"my-suite": {Name: common.String("my-suite"), Ciphers: []string{"ECDHE-RSA-AES256-GCM-SHA384"}}}
	})
	lst := f.getLB(t, id).Listeners["TCP-80"]
	up, err := f.lb.UpdateListener(ctx, loadbalancer.UpdateListenerRequest{LoadBalancerId: &id, ListenerName: common.String("TCP-80"),
		UpdateListenerDetails: loadbalancer.UpdateListenerDetails{DefaultBackendSetName: lst.DefaultBackendSetName, Port: lst.Port,
			Protocol: lst.Protocol, SslConfiguration: &loadbalancer.SslConfigurationDetails{CertificateName: common.String("tls"),
				CipherSuiteName: common.String("my-suite")}}})
	if err != nil {
		t.Fatalf("UpdateListener: %v", err)
	}
	f.mustSucceed(t, up.OpcWorkRequestId)
}

func TestNLBAnswersADuplicateBackendWithItsOwnCode(t *testing.T) {
	f := newLBFixture(t, Options{})
	d := f.basicNLB("dup")
	bs := d.BackendSets["TCP-80"]
	bs.Backends = append(bs.Backends, bs.Backends[0])
	d.BackendSets["TCP-80"] = bs
	_, err := f.nlb.CreateNetworkLoadBalancer(testCtx(t), nlbapi.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: d})
	wantServiceError(t, err, http.StatusConflict, "NotAuthorizedOrResourceAlreadyExists")
}
