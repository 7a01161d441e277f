// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// upstreamLoadBalancer stores in ocitest what the upstream OCI CCM leaves for svc (ports 80 and
// 443, TLS on 443 from Secret web-tls, on nodes 10.0.10.11-12): a load balancer named by the
// Service UID without ownership tags, listeners and backend sets named "<protocol>-<port>", the
// health check on kube-proxy's /healthz, and the certificate named after the Secret.
func upstreamLoadBalancer(e *env, uid string, secret lb.TLSSecret) loadbalancer.LoadBalancer {
	backendSet := func(name string, nodePort int) loadbalancer.BackendSet {
		return loadbalancer.BackendSet{
			Name: common.String(name), Policy: common.String("ROUND_ROBIN"),
			Backends: []loadbalancer.Backend{
				{IpAddress: common.String(nodeIP(1)), Port: common.Int(nodePort), Weight: common.Int(1)},
				{IpAddress: common.String(nodeIP(2)), Port: common.Int(nodePort), Weight: common.Int(1)},
			},
			HealthChecker: &loadbalancer.HealthChecker{Protocol: common.String("HTTP"), Port: common.Int(lb.KubeProxyHealthPort),
				UrlPath: common.String("/healthz"), ReturnCode: common.Int(200), Retries: common.Int(3),
				IntervalInMillis: common.Int(10000), TimeoutInMillis: common.Int(3000)},
		}
	}
	listener := func(name string, port int) loadbalancer.Listener {
		return loadbalancer.Listener{Name: common.String(name), DefaultBackendSetName: common.String(name),
			Port: common.Int(port), Protocol: common.String("TCP"),
			ConnectionConfiguration: &loadbalancer.ConnectionConfiguration{IdleTimeout: common.Int64(300)}}
	}
	https := listener("TCP-443", 443)
	https.SslConfiguration = &loadbalancer.SslConfiguration{CertificateName: common.String("web-tls"),
		VerifyPeerCertificate: common.Bool(false)}
	return e.srv.AddLoadBalancer(loadbalancer.LoadBalancer{
		CompartmentId: common.String(e.cfg.CompartmentID), DisplayName: common.String(uid),
		ShapeName: common.String("flexible"), SubnetIds: e.seeded.LoadBalancerSubnets,
		ShapeDetails: &loadbalancer.ShapeDetails{MinimumBandwidthInMbps: common.Int(10), MaximumBandwidthInMbps: common.Int(100)},
		Listeners:    map[string]loadbalancer.Listener{"TCP-80": listener("TCP-80", 80), "TCP-443": https},
		BackendSets:  map[string]loadbalancer.BackendSet{"TCP-80": backendSet("TCP-80", 30080), "TCP-443": backendSet("TCP-443", 30443)},
		Certificates: map[string]loadbalancer.Certificate{"web-tls": {CertificateName: common.String("web-tls"),
			PublicCertificate: common.String(secret.Certificate)}},
	})
}

// TestUpstreamLoadBalancerIsAdoptedInPlace is the migration from the upstream OCI CCM: its load
// balancer is found by the Service-UID name, tagged, and kept: same OCID and IP, listeners and
// backend sets untouched, only the certificate renamed (created under its content-hash name, the
// listener switched, the Secret-named one deleted). Nothing is created or deleted at the load
// balancer level, and the reconcile after it changes nothing.
func TestUpstreamLoadBalancerIsAdoptedInPlace(t *testing.T) {
	e := newEnv(t)
	svc := service(annotate(annotation.SSLPorts, "443"), annotate(annotation.TLSSecret, "web-tls"))
	secrets := lb.Secrets{webTLS: tlsSecret("v1")}
	upstream := upstreamLoadBalancer(e, string(svc.UID), secrets[webTLS])
	ip := *upstream.IpAddresses[0].IpAddress

	res, calls := e.ensure(t, svc, readyNodes(2), secrets)

	wantWrites := map[string]int{"UpdateLoadBalancer": 1, "CreateCertificate": 1, "UpdateListener": 1, "DeleteCertificate": 1}
	if diff := cmp.Diff(wantWrites, writes(calls)); diff != "" {
		t.Errorf("OCI writes of the adoption (-want +got):\n%s\nplan:\n%s", diff, res.Plan)
	}
	if got := res.Status.Ingress; len(got) != 1 || got[0].IP != ip {
		t.Errorf("status ingress %+v, want the upstream load balancer's IP %s", got, ip)
	}
	all := e.srv.LoadBalancers()
	if len(all) != 1 || *all[0].Id != *upstream.Id {
		t.Fatalf("load balancers after adoption: %d, want only the upstream one %s", len(all), *upstream.Id)
	}
	got := all[0]
	if *got.IpAddresses[0].IpAddress != ip || *got.DisplayName != string(svc.UID) {
		t.Errorf("adopted load balancer: IP %s name %q, want %s and the Service UID", *got.IpAddresses[0].IpAddress, *got.DisplayName, ip)
	}
	if got.FreeformTags[model.TagCluster] != clusterName || got.FreeformTags[model.TagService] != "default/web" {
		t.Errorf("adopted load balancer's tags %v lack the ownership tags", got.FreeformTags)
	}
	var certs []string
	for name := range got.Certificates {
		certs = append(certs, name)
	}
	if len(certs) != 1 || !strings.HasPrefix(certs[0], "web-tls-") {
		t.Errorf("certificates %v, want one renamed web-tls-<hash>", certs)
	} else if l := got.Listeners["TCP-443"]; l.SslConfiguration == nil || *l.SslConfiguration.CertificateName != certs[0] {
		t.Errorf("listener TCP-443 does not use the renamed certificate %s", certs[0])
	}
	for _, name := range []string{"TCP-80", "TCP-443"} {
		if _, ok := got.Listeners[name]; !ok {
			t.Errorf("listener %s is gone", name)
		}
		if _, ok := got.BackendSets[name]; !ok {
			t.Errorf("backend set %s is gone", name)
		}
	}
	assertNoFailedWorkRequests(t, e)

	res, calls = e.ensure(t, svc, readyNodes(2), secrets)
	if !res.Plan.Empty() || len(writes(calls)) != 0 {
		t.Errorf("the reconcile after adoption changed something: writes %v\n%s", writes(calls), res.Plan)
	}
}

// TestAListenerNamedInAnotherLetterCaseIsKept: the upstream CCM names a listener after the
// backend-protocol annotation as written ("http-80" for "http"; load_balancer_spec.go,
// getListenersOciLoadBalancer), oci-ccm in OCI's capitals ("HTTP-80"). OCI cannot rename a
// listener, so the one found under the other spelling is kept, not replaced (which would drop
// its connections), and the next reconcile writes nothing.
func TestAListenerNamedInAnotherLetterCaseIsKept(t *testing.T) {
	e := newEnv(t)
	svc := service(annotate(annotation.BackendProtocol, "http"))
	e.ensure(t, svc, readyNodes(2), nil)
	id := *e.srv.LoadBalancers()[0].Id
	e.srv.EditLoadBalancer(id, func(l *loadbalancer.LoadBalancer) {
		li := l.Listeners["HTTP-80"]
		delete(l.Listeners, "HTTP-80")
		li.Name = common.String("http-80")
		l.Listeners["http-80"] = li
	})

	res, calls := e.ensure(t, svc, readyNodes(2), nil)
	for _, op := range []string{"CreateListener", "DeleteListener"} {
		if n := calls.Op(op); n != 0 {
			t.Errorf("%s called %d times, want none\nplan:\n%s", op, n, res.Plan)
		}
	}
	if _, ok := e.srv.LoadBalancers()[0].Listeners["http-80"]; !ok {
		t.Errorf("listener http-80 is gone")
	}
	if res, calls := e.ensure(t, svc, readyNodes(2), nil); !res.Plan.Empty() || len(writes(calls)) != 0 {
		t.Errorf("the next reconcile changed something: %v\n%s", writes(calls), res.Plan)
	}
}
