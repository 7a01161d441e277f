// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package preflight

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/oci-ccm/oci-ccm/internal/compatdata"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
)

// The cluster both the unit tests (a fake clientset) and the end-to-end test (a real
// kube-apiserver) check: Services carrying upstream annotations oci-ccm refuses (a value, or an
// annotation upstream ignores where oci-ccm refuses it), reads differently (a value, a spelling,
// an annotation read without the one upstream needs beside it), a TLS Service whose Secret is
// missing, a clean one, one of another loadBalancerClass and a ClusterIP one.

// fixtureConfig is a cloud-provider.yaml the binary starts with.
const fixtureConfig = `clusterID: prod-phx-1
useInstancePrincipals: true
auth:
  region: us-phoenix-1
compartment: ocid1.compartment.oc1..fixture
loadBalancer:
  subnet1: ocid1.subnet.oc1.phx.fixture1
  subnet2: ocid1.subnet.oc1.phx.fixture2
`

const fixtureNamespace = "shop"

// writeConfig writes doc as cloud-provider.yaml in a test directory and returns its path.
func writeConfig(t *testing.T, doc string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cloud-provider.yaml")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func fixtureNodes() []*v1.Node {
	node := func(name, ip string) *v1.Node {
		return &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       v1.NodeSpec{ProviderID: "oci://ocid1.instance.oc1.phx." + name},
			Status:     v1.NodeStatus{Addresses: []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: ip}}},
		}
	}
	return []*v1.Node{node("node-1", "10.0.10.2"), node("node-2", "10.0.10.3")}
}

// fixtureSecret is the TLS Secret shop/shop-tls; shop/web-tls does not exist.
func fixtureSecret() *v1.Secret {
	return &v1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: fixtureNamespace, Name: "shop-tls"},
		Type:       v1.SecretTypeOpaque,
		Data: map[string][]byte{
			v1.TLSCertKey:       []byte("-----BEGIN CERTIFICATE-----\nfixture\n-----END CERTIFICATE-----\n"),
			v1.TLSPrivateKeyKey: []byte("-----BEGIN PRIVATE KEY-----\nfixture\n-----END PRIVATE KEY-----\n"),
		},
	}
}

const (
	o = "oci.oraclecloud.com/"
	s = "service.beta.kubernetes.io/"
	n = "oci-network-load-balancer.oraclecloud.com/"
)

// fixtureServices are the Services; those with an address have a load balancer upstream made.
func fixtureServices() []*v1.Service {
	svc := func(name string, port int32, ann map[string]string, address string) *v1.Service {
		s := &v1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: fixtureNamespace, Name: name, Annotations: ann},
			Spec: v1.ServiceSpec{
				Type:                  v1.ServiceTypeLoadBalancer,
				ExternalTrafficPolicy: v1.ServiceExternalTrafficPolicyCluster,
				Ports:                 []v1.ServicePort{{Name: "web", Protocol: v1.ProtocolTCP, Port: port, NodePort: 30000 + port}},
				Selector:              map[string]string{"app": name},
			},
		}
		if address != "" {
			s.Status.LoadBalancer.Ingress = []v1.LoadBalancerIngress{{IP: address}}
		}
		return s
	}
	other := svc("other-class", 81, nil, "")
	other.Spec.LoadBalancerClass = new("example.com/other")
	internal := svc("internal", 82, nil, "")
	internal.Spec.Type, internal.Spec.ExternalTrafficPolicy = v1.ServiceTypeClusterIP, ""
	internal.Spec.Ports[0].NodePort = 0
	return []*v1.Service{
		svc("clean", 80, nil, "192.0.2.1"),
		svc("refused", 83, map[string]string{
			s + "oci-load-balancer-security-list-management-mode": "Sometimes",
			s + "oci-load-balancer-shape":                         "flexible",
			s + "oci-load-balancer-shape-flex-min":                "10",
			s + "oci-load-balancer-shape-flex-max":                "9000",
		}, ""),
		svc("ppv2", 84, map[string]string{o + "load-balancer-type": "nlb", n + "is-ppv2-enabled": "yes", o + "node-label-selector": "tier=edge"}, "192.0.2.2"),
		svc("different", 85, map[string]string{
			s + "oci-load-balancer-security-list-management-mode": "frontend",
			o + "loadbalancer-policy":                             "ip_hash",
			o + "oci-network-security-groups":                     "ocid1.networksecuritygroup.oc1.phx.a",
		}, "192.0.2.3"),
		// Upstream knows the exact spellings only and manages All; oci-ccm reads none as None.
		svc("lower-case-none", 88, map[string]string{s + "oci-load-balancer-security-list-management-mode": "none"}, "192.0.2.6"),
		// Upstream ignores a backend NSG without mode NSG; oci-ccm refuses it.
		svc("backend-nsg", 86, map[string]string{o + "oci-backend-network-security-group": "ocid1.networksecuritygroup.oc1.phx.b"}, "192.0.2.4"),
		// Upstream names the listener after the protocol as written and reads flex-min only with
		// shape flexible.
		svc("http", 87, map[string]string{s + "oci-load-balancer-backend-protocol": "http", s + "oci-load-balancer-shape-flex-min": "20"}, "192.0.2.5"),
		svc("tls-missing", 443, map[string]string{s + "oci-load-balancer-ssl-ports": "443", s + "oci-load-balancer-tls-secret": "web-tls"}, ""),
		svc("tls", 444, map[string]string{s + "oci-load-balancer-ssl-ports": "444", s + "oci-load-balancer-tls-secret": "shop-tls"}, ""),
		other,
		internal,
	}
}

// wantServices is what the check reports on the fixture's Services, given their UIDs (by name)
// and the upstream CCM's LOAD_BALANCER_PREFIX. The documented differences are the comparison's.
func wantServices(t *testing.T, uid func(name string) types.UID, upstreamPrefix string) []ServiceReport {
	t.Helper()
	table, err := compatdata.Load()
	if err != nil {
		t.Fatal(err)
	}
	main := func(key string) string { return table.Annotations[key].Note }
	edge := func(key, value string) string {
		for _, e := range table.Annotations[key].Edges {
			if e.Value == value {
				return e.Note
			}
		}
		t.Fatalf("no edge value %s=%q in the comparison", key, value)
		return ""
	}
	anyValue := func(key string) string {
		for _, e := range table.Annotations[key].Edges {
			if e.AnyValue {
				return e.Note
			}
		}
		t.Fatalf("no edge of any value of %s in the comparison", key)
		return ""
	}
	const fix = "change or remove it: oci-ccm does not reconcile the Service while it is refused"
	differs := func(key, value, note string) Finding {
		return Finding{Severity: Differs, Key: key, Value: value, Message: note}
	}
	newLB := func(name string) []Finding {
		if upstreamPrefix == "" {
			return nil
		}
		id := string(uid(name))
		return []Finding{{Severity: NewLoadBalancer, Key: "LOAD_BALANCER_PREFIX", Value: upstreamPrefix,
			Message: fmt.Sprintf("the upstream CCM's load balancer is named %q; oci-ccm looks it up as %q only, so it would create a second one, with a new address",
				upstreamPrefix+"-"+id, id),
			Fix: fmt.Sprintf("run oci-ccm with LOAD_BALANCER_PREFIX=%s, or loadBalancer.naming.prefix: %s", upstreamPrefix, upstreamPrefix)}}
	}
	with := func(fs ...[]Finding) []Finding {
		out := []Finding{}
		for _, f := range fs {
			out = append(out, f...)
		}
		return out
	}
	tlsPorts, tlsSecret := string(annotation.SSLPorts), string(annotation.TLSSecret)
	backendNSG, protocol, flexMin := o+"oci-backend-network-security-group", s+"oci-load-balancer-backend-protocol", s+"oci-load-balancer-shape-flex-min"
	return []ServiceReport{
		{Service: "shop/backend-nsg", Findings: with([]Finding{{Severity: Refused, Key: backendNSG, Value: "ocid1.networksecuritygroup.oc1.phx.b",
			Message: "allowed: only with oci.oraclecloud.com/security-rule-management-mode: NSG; remove it or set that mode", Fix: fix}},
			newLB("backend-nsg"))},
		{Service: "shop/clean", Findings: with(newLB("clean"))},
		{Service: "shop/different", Findings: with(newLB("different"), []Finding{
			differs(o+"loadbalancer-policy", "ip_hash", edge(o+"loadbalancer-policy", "ip_hash")),
			differs(o+"oci-network-security-groups", "ocid1.networksecuritygroup.oc1.phx.a", main(o+"oci-network-security-groups")),
			differs(s+"oci-load-balancer-security-list-management-mode", "frontend", edge(s+"oci-load-balancer-security-list-management-mode", "frontend")),
		})},
		{Service: "shop/http", Findings: with(newLB("http"), []Finding{
			differs(protocol, "http", edge(protocol, "http")),
			differs(flexMin, "20", anyValue(flexMin)),
		})},
		{Service: "shop/lower-case-none", Findings: with(newLB("lower-case-none"), []Finding{
			differs(s+"oci-load-balancer-security-list-management-mode", "none", edge(s+"oci-load-balancer-security-list-management-mode", "none")),
		})},
		{Service: "shop/ppv2", Findings: []Finding{
			{Severity: Refused, Key: n + "is-ppv2-enabled", Value: "yes", Message: "allowed: true or false", Fix: fix},
			differs(o+"load-balancer-type", "nlb", main(o+"load-balancer-type")),
			differs(o+"node-label-selector", "tier=edge", edge(o+"node-label-selector", "pool=web")),
		}},
		{Service: "shop/refused", Findings: []Finding{
			{Severity: Refused, Key: s + "oci-load-balancer-shape-flex-max", Value: "9000",
				Message: "allowed: a bandwidth in Mbps up to 8000 (below 10 counts as 10)", Fix: fix},
			{Severity: Refused, Key: s + "oci-load-balancer-security-list-management-mode", Value: "Sometimes",
				Message: "allowed: one of All, Frontend, Backend, None", Fix: fix},
		}},
		{Service: "shop/tls", Findings: []Finding{
			differs(tlsPorts, "444", main(tlsPorts)),
			differs(tlsSecret, "shop-tls", main(tlsSecret)),
		}},
		{Service: "shop/tls-missing", Findings: []Finding{
			{Severity: Refused, Key: tlsSecret, Value: "web-tls", Message: "the Secret shop/web-tls does not exist",
				Fix: "create it (tls.crt, tls.key) in namespace shop, or correct the annotation"},
			differs(tlsPorts, "443", main(tlsPorts)),
		}},
	}
}
