// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
)

func TestBackendSetsAndBackendsThroughTheirWholeLife(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	id := f.createLB(t, f.basicLB("svc"))

	hc := &loadbalancer.HealthCheckerDetails{Protocol: common.String("HTTP"), UrlPath: common.String("/healthz"), Port: common.Int(10256)}
	cr, err := f.lb.CreateBackendSet(ctx, loadbalancer.CreateBackendSetRequest{LoadBalancerId: &id,
		CreateBackendSetDetails: loadbalancer.CreateBackendSetDetails{Name: common.String("HTTP-443"), Policy: common.String("LEAST_CONNECTIONS"),
			HealthChecker: hc, Backends: []loadbalancer.BackendDetails{{IpAddress: common.String("10.0.10.1"), Port: common.Int(30443)}}}})
	if err != nil {
		t.Fatalf("CreateBackendSet: %v", err)
	}
	f.mustSucceed(t, cr.OpcWorkRequestId)
	got, err := f.lb.GetBackendSet(ctx, loadbalancer.GetBackendSetRequest{LoadBalancerId: &id, BackendSetName: common.String("HTTP-443")})
	if err != nil {
		t.Fatalf("GetBackendSet: %v", err)
	}
	if *got.Policy != "LEAST_CONNECTIONS" || *got.HealthChecker.ReturnCode != 200 || *got.HealthChecker.UrlPath != "/healthz" || got.ETag == nil {
		t.Errorf("backend set: policy %s, return code %d, path %s, etag %v", *got.Policy, *got.HealthChecker.ReturnCode, *got.HealthChecker.UrlPath, got.ETag)
	}

	// A second backend, then its update and deletion.
	cb, err := f.lb.CreateBackend(ctx, loadbalancer.CreateBackendRequest{LoadBalancerId: &id, BackendSetName: common.String("HTTP-443"),
		CreateBackendDetails: loadbalancer.CreateBackendDetails{IpAddress: common.String("10.0.10.2"), Port: common.Int(30443)}})
	if err != nil {
		t.Fatalf("CreateBackend: %v", err)
	}
	f.mustSucceed(t, cb.OpcWorkRequestId)
	_, err = f.lb.CreateBackend(ctx, loadbalancer.CreateBackendRequest{LoadBalancerId: &id, BackendSetName: common.String("HTTP-443"),
		CreateBackendDetails: loadbalancer.CreateBackendDetails{IpAddress: common.String("10.0.10.2"), Port: common.Int(30443)}})
	wantServiceError(t, err, http.StatusConflict, "Conflict")
	ub, err := f.lb.UpdateBackend(ctx, loadbalancer.UpdateBackendRequest{LoadBalancerId: &id, BackendSetName: common.String("HTTP-443"),
		BackendName: common.String("10.0.10.2:30443"), UpdateBackendDetails: loadbalancer.UpdateBackendDetails{
			Weight: common.Int(5), Backup: common.Bool(false), Drain: common.Bool(true), Offline: common.Bool(false)}})
	if err != nil {
		t.Fatalf("UpdateBackend: %v", err)
	}
	f.mustSucceed(t, ub.OpcWorkRequestId)
	b, err := f.lb.GetBackend(ctx, loadbalancer.GetBackendRequest{LoadBalancerId: &id, BackendSetName: common.String("HTTP-443"), BackendName: common.String("10.0.10.2:30443")})
	if err != nil {
		t.Fatalf("GetBackend: %v", err)
	}
	if *b.Weight != 5 || !*b.Drain {
		t.Errorf("updated backend: weight %d drain %v", *b.Weight, *b.Drain)
	}
	db, err := f.lb.DeleteBackend(ctx, loadbalancer.DeleteBackendRequest{LoadBalancerId: &id, BackendSetName: common.String("HTTP-443"), BackendName: common.String("10.0.10.1:30443")})
	if err != nil {
		t.Fatalf("DeleteBackend: %v", err)
	}
	f.mustSucceed(t, db.OpcWorkRequestId)
	list, err := f.lb.ListBackends(ctx, loadbalancer.ListBackendsRequest{LoadBalancerId: &id, BackendSetName: common.String("HTTP-443")})
	if err != nil {
		t.Fatalf("ListBackends: %v", err)
	}
	if len(list.Items) != 1 || *list.Items[0].Name != "10.0.10.2:30443" {
		t.Errorf("backends after delete: %+v", list.Items)
	}

	// UpdateBackendSet replaces the backends wholesale.
	upd := tcpBackendSet("10.0.20.1", "10.0.20.2", "10.0.20.3")
	us, err := f.lb.UpdateBackendSet(ctx, loadbalancer.UpdateBackendSetRequest{LoadBalancerId: &id, BackendSetName: common.String("HTTP-443"),
		UpdateBackendSetDetails: loadbalancer.UpdateBackendSetDetails{Policy: upd.Policy, Backends: upd.Backends, HealthChecker: upd.HealthChecker}})
	if err != nil {
		t.Fatalf("UpdateBackendSet: %v", err)
	}
	f.mustSucceed(t, us.OpcWorkRequestId)
	sets, err := f.lb.ListBackendSets(ctx, loadbalancer.ListBackendSetsRequest{LoadBalancerId: &id})
	if err != nil {
		t.Fatalf("ListBackendSets: %v", err)
	}
	var summary []string
	for _, bs := range sets.Items {
		summary = append(summary, *bs.Name+" "+*bs.Policy+" "+*bs.HealthChecker.Protocol)
		for _, b := range bs.Backends {
			summary = append(summary, "  "+*b.Name)
		}
	}
	want := []string{"HTTP-443 ROUND_ROBIN TCP", "  10.0.20.1:30080", "  10.0.20.2:30080", "  10.0.20.3:30080", "TCP-80 ROUND_ROBIN TCP", "  10.0.10.1:30080"}
	if diff := cmp.Diff(want, summary); diff != "" {
		t.Errorf("backend sets (-want +got):\n%s", diff)
	}

	ds, err := f.lb.DeleteBackendSet(ctx, loadbalancer.DeleteBackendSetRequest{LoadBalancerId: &id, BackendSetName: common.String("HTTP-443")})
	if err != nil {
		t.Fatalf("DeleteBackendSet: %v", err)
	}
	f.mustSucceed(t, ds.OpcWorkRequestId)
	_, err = f.lb.GetBackendSet(ctx, loadbalancer.GetBackendSetRequest{LoadBalancerId: &id, BackendSetName: common.String("HTTP-443")})
	wantServiceError(t, err, http.StatusNotFound, "NotAuthorizedOrNotFound")
}

func TestDeletingABackendSetAListenerUsesFailsTheWorkRequest(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	id := f.createLB(t, f.basicLB("svc"))
	resp, err := f.lb.DeleteBackendSet(ctx, loadbalancer.DeleteBackendSetRequest{LoadBalancerId: &id, BackendSetName: common.String("TCP-80")})
	if err != nil {
		t.Fatalf("DeleteBackendSet is accepted, as OCI does: %v", err)
	}
	if msg, want := f.mustFail(t, resp.OpcWorkRequestId), "Listener 'TCP-80' has unknown default backend set 'TCP-80'"; msg != want {
		t.Errorf("failure %q, want %q", msg, want)
	}
	if _, ok := f.getLB(t, id).BackendSets["TCP-80"]; !ok {
		t.Error("a failed delete removed the backend set")
	}
}

// TestPortChangeInTheRightOrderSucceeds is the sequence a reconciler must use when a Service
// port changes: new backend set, move the listener, then delete the old set.
func TestPortChangeInTheRightOrderSucceeds(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	id := f.createLB(t, f.basicLB("svc"))
	bs := tcpBackendSet("10.0.10.1")
	r1, err := f.lb.CreateBackendSet(ctx, loadbalancer.CreateBackendSetRequest{LoadBalancerId: &id, CreateBackendSetDetails: loadbalancer.CreateBackendSetDetails{
		Name: common.String("TCP-8080"), Policy: bs.Policy, HealthChecker: bs.HealthChecker, Backends: bs.Backends}})
	if err != nil {
		t.Fatalf("CreateBackendSet: %v", err)
	}
	f.mustSucceed(t, r1.OpcWorkRequestId)
	r2, err := f.lb.UpdateListener(ctx, loadbalancer.UpdateListenerRequest{LoadBalancerId: &id, ListenerName: common.String("TCP-80"),
		UpdateListenerDetails: loadbalancer.UpdateListenerDetails{DefaultBackendSetName: common.String("TCP-8080"), Port: common.Int(8080), Protocol: common.String("TCP")}})
	if err != nil {
		t.Fatalf("UpdateListener: %v", err)
	}
	f.mustSucceed(t, r2.OpcWorkRequestId)
	r3, err := f.lb.DeleteBackendSet(ctx, loadbalancer.DeleteBackendSetRequest{LoadBalancerId: &id, BackendSetName: common.String("TCP-80")})
	if err != nil {
		t.Fatalf("DeleteBackendSet: %v", err)
	}
	f.mustSucceed(t, r3.OpcWorkRequestId)
	l := f.getLB(t, id).Listeners["TCP-80"]
	if *l.Port != 8080 || *l.DefaultBackendSetName != "TCP-8080" {
		t.Errorf("listener after the port change: port %d set %s", *l.Port, *l.DefaultBackendSetName)
	}
}

func TestListenerChangesAreCheckedWhenTheirWorkRequestRuns(t *testing.T) {
	// It lists a certificate it has just added to check its fields, not when it is listed (the
	// lag is consistency_test.go's).
	f := newLBFixture(t, Options{ListingLag: NoLag})
	ctx := testCtx(t)
	id := f.createLB(t, f.basicLB("svc"))
	cert := loadbalancer.CreateCertificateDetails{CertificateName: common.String("tls-abc123"),
		PublicCertificate: common.String("-----BEGIN CERTIFICATE-----"), PrivateKey: common.String("-----BEGIN RSA PRIVATE KEY-----")}
	cc, err := f.lb.CreateCertificate(ctx, loadbalancer.CreateCertificateRequest{LoadBalancerId: &id, CreateCertificateDetails: cert})
	if err != nil {
		t.Fatalf("CreateCertificate: %v", err)
	}
	f.mustSucceed(t, cc.OpcWorkRequestId)

	create := func(name, set, certName string, port int) *string {
		t.Helper()
		d := loadbalancer.CreateListenerDetails{Name: &name, DefaultBackendSetName: &set, Port: &port, Protocol: common.String("TCP")}
		if certName != "" {
			d.SslConfiguration = &loadbalancer.SslConfigurationDetails{CertificateName: &certName}
		}
		resp, err := f.lb.CreateListener(ctx, loadbalancer.CreateListenerRequest{LoadBalancerId: &id, CreateListenerDetails: d})
		if err != nil {
			t.Fatalf("CreateListener %s: %v", name, err)
		}
		return resp.OpcWorkRequestId
	}
	for _, tc := range []struct {
		name, set, cert string
		port            int
		want            string
	}{
		{"TCP-443", "TCP-443", "", 443, "Listener 'TCP-443' has unknown default backend set 'TCP-443'"},
		{"TCP-443", "TCP-80", "tls-old", 443, "Listener 'TCP-443' has unknown certificate 'tls-old'"},
		{"TCP-81", "TCP-80", "", 80, "Listeners 'TCP-80' and 'TCP-81' both use port 80"},
	} {
		if msg := f.mustFail(t, create(tc.name, tc.set, tc.cert, tc.port)); msg != tc.want {
			t.Errorf("failure %q, want %q", msg, tc.want)
		}
	}
	if n := len(f.getLB(t, id).Listeners); n != 1 {
		t.Fatalf("%d listeners after failed creates, want 1", n)
	}
	f.mustSucceed(t, create("TCP-443", "TCP-80", "tls-abc123", 443))

	// The certificate in use cannot go; once the listener is gone it can.
	_, err = f.lb.DeleteCertificate(ctx, loadbalancer.DeleteCertificateRequest{LoadBalancerId: &id, CertificateName: common.String("tls-abc123")})
	wantServiceError(t, err, http.StatusConflict, "Conflict")
	upd, err := f.lb.UpdateListener(ctx, loadbalancer.UpdateListenerRequest{LoadBalancerId: &id, ListenerName: common.String("TCP-443"),
		UpdateListenerDetails: loadbalancer.UpdateListenerDetails{DefaultBackendSetName: common.String("nope"), Port: common.Int(443), Protocol: common.String("TCP")}})
	if err != nil {
		t.Fatalf("UpdateListener: %v", err)
	}
	if msg, want := f.mustFail(t, upd.OpcWorkRequestId), "Listener 'TCP-443' has unknown default backend set 'nope'"; msg != want {
		t.Errorf("failure %q, want %q", msg, want)
	}
	dl, err := f.lb.DeleteListener(ctx, loadbalancer.DeleteListenerRequest{LoadBalancerId: &id, ListenerName: common.String("TCP-443")})
	if err != nil {
		t.Fatalf("DeleteListener: %v", err)
	}
	f.mustSucceed(t, dl.OpcWorkRequestId)
	certs, err := f.lb.ListCertificates(ctx, loadbalancer.ListCertificatesRequest{LoadBalancerId: &id})
	if err != nil {
		t.Fatalf("ListCertificates: %v", err)
	}
	wantCerts := []loadbalancer.Certificate{{CertificateName: common.String("tls-abc123"), PublicCertificate: common.String("-----BEGIN CERTIFICATE-----")}}
	if diff := cmp.Diff(wantCerts, certs.Items); diff != "" {
		t.Errorf("certificates, without the private key (-want +got):\n%s", diff)
	}
	dc, err := f.lb.DeleteCertificate(ctx, loadbalancer.DeleteCertificateRequest{LoadBalancerId: &id, CertificateName: common.String("tls-abc123")})
	if err != nil {
		t.Fatalf("DeleteCertificate once unused: %v", err)
	}
	f.mustSucceed(t, dc.OpcWorkRequestId)
}

func TestChildRequestsAreRefusedAsOCIDoes(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	id := f.createLB(t, f.basicLB("svc"))
	f.srv.SetLBLimits(LBLimits{ListenersPerLB: 1, BackendSetsPerLB: 1, BackendsPerSet: 2})
	bs := tcpBackendSet()
	newSet := func(name string, backends ...string) error {
		b := tcpBackendSet(backends...)
		_, err := f.lb.CreateBackendSet(ctx, loadbalancer.CreateBackendSetRequest{LoadBalancerId: &id, CreateBackendSetDetails: loadbalancer.CreateBackendSetDetails{
			Name: &name, Policy: b.Policy, HealthChecker: b.HealthChecker, Backends: b.Backends}})
		return err
	}
	newListener := func(name string, port int, protocol string) error {
		_, err := f.lb.CreateListener(ctx, loadbalancer.CreateListenerRequest{LoadBalancerId: &id, CreateListenerDetails: loadbalancer.CreateListenerDetails{
			Name: &name, DefaultBackendSetName: common.String("TCP-80"), Port: &port, Protocol: &protocol}})
		return err
	}
	newBackend := func(set, ip string, port int) error {
		_, err := f.lb.CreateBackend(ctx, loadbalancer.CreateBackendRequest{LoadBalancerId: &id, BackendSetName: &set,
			CreateBackendDetails: loadbalancer.CreateBackendDetails{IpAddress: &ip, Port: &port}})
		return err
	}
	missing := common.String("missing")
	tests := []struct {
		name   string
		call   func() error
		status int
		code   string
	}{
		{"duplicate backend set", func() error { return newSet("TCP-80") }, 409, "Conflict"},
		{"duplicate listener", func() error { return newListener("TCP-80", 81, "TCP") }, 409, "Conflict"},
		{"backend set over the limit", func() error { return newSet("TCP-81") }, 400, "LimitExceeded"},
		{"backend set with more backends than the limit", func() error {
			_, err := f.lb.UpdateBackendSet(ctx, loadbalancer.UpdateBackendSetRequest{LoadBalancerId: &id, BackendSetName: common.String("TCP-80"),
				UpdateBackendSetDetails: loadbalancer.UpdateBackendSetDetails{Policy: bs.Policy, HealthChecker: bs.HealthChecker,
					Backends: tcpBackendSet("10.0.0.1", "10.0.0.2", "10.0.0.3").Backends}})
			return err
		}, 400, "LimitExceeded"},
		{"listener over the limit", func() error { return newListener("TCP-81", 81, "TCP") }, 400, "LimitExceeded"},
		{"backend set name of 33 characters", func() error { return newSet(strings.Repeat("b", 33)) }, 400, "InvalidParameter"},
		{"backend set name with a slash", func() error { return newSet("TCP/80") }, 400, "InvalidParameter"},
		{"listener name with a colon", func() error { return newListener("TCP:81", 81, "TCP") }, 400, "InvalidParameter"},
		{"listener port 0", func() error { return newListener("L0", 0, "TCP") }, 400, "InvalidParameter"},
		{"listener port 65536", func() error { return newListener("L1", 65536, "TCP") }, 400, "InvalidParameter"},
		{"listener protocol HTTPS", func() error { return newListener("L2", 443, "HTTPS") }, 400, "InvalidParameter"},
		{"backend port 0", func() error { return newBackend("TCP-80", "10.0.0.9", 0) }, 400, "InvalidParameter"},
		{"backend in a missing set", func() error { return newBackend("missing", "10.0.0.9", 80) }, 404, "NotAuthorizedOrNotFound"},
		{"update of a missing listener", func() error {
			_, err := f.lb.UpdateListener(ctx, loadbalancer.UpdateListenerRequest{LoadBalancerId: &id, ListenerName: missing,
				UpdateListenerDetails: loadbalancer.UpdateListenerDetails{DefaultBackendSetName: common.String("TCP-80"), Port: common.Int(1), Protocol: common.String("TCP")}})
			return err
		}, 404, "NotAuthorizedOrNotFound"},
		{"delete of a missing listener", func() error {
			_, err := f.lb.DeleteListener(ctx, loadbalancer.DeleteListenerRequest{LoadBalancerId: &id, ListenerName: missing})
			return err
		}, 404, "NotAuthorizedOrNotFound"},
		{"delete of a missing backend", func() error {
			_, err := f.lb.DeleteBackend(ctx, loadbalancer.DeleteBackendRequest{LoadBalancerId: &id, BackendSetName: common.String("TCP-80"), BackendName: missing})
			return err
		}, 404, "NotAuthorizedOrNotFound"},
		{"delete of a missing certificate", func() error {
			_, err := f.lb.DeleteCertificate(ctx, loadbalancer.DeleteCertificateRequest{LoadBalancerId: &id, CertificateName: missing})
			return err
		}, 404, "NotAuthorizedOrNotFound"},
		{"certificate without a certificate", func() error {
			_, err := f.lb.CreateCertificate(ctx, loadbalancer.CreateCertificateRequest{LoadBalancerId: &id,
				CreateCertificateDetails: loadbalancer.CreateCertificateDetails{CertificateName: common.String("c")}})
			return err
		}, 400, "InvalidParameter"},
		{"child of a missing load balancer", func() error {
			_, err := f.lb.ListBackendSets(ctx, loadbalancer.ListBackendSetsRequest{LoadBalancerId: missing})
			return err
		}, 404, "NotAuthorizedOrNotFound"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantServiceError(t, tc.call(), tc.status, tc.code) })
	}
	if n := len(f.srv.WorkRequests()); n != 1 {
		t.Errorf("%d work requests, want only the create's: refused calls start none", n)
	}

	// Raising the limit lets the same calls through.
	f.srv.SetLBLimits(LBLimits{})
	if err := newBackend("TCP-80", "10.0.0.2", 80); err != nil {
		t.Errorf("CreateBackend under the default limits: %v", err)
	}
}
