// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

//go:build e2e

package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// recoveryTimeout bounds convergence after an outage: the service controller backs off
// exponentially (up to five minutes) while its syncs fail.
const recoveryTimeout = 6 * time.Minute

// waitLBConverged waits until the Service's load balancer in OCI matches the Service and the
// Nodes (see lbConverged), and extra, given each backend set's backends, passes.
func (s *suite) waitLBConverged(t *testing.T, ns, name string, extra func(backends []string) error) loadbalancer.LoadBalancer {
	t.Helper()
	return s.waitLBConvergedWithin(t, convergeTimeout, ns, name, extra)
}

func (s *suite) waitLBConvergedWithin(t *testing.T, timeout time.Duration, ns, name string, extra func(backends []string) error) loadbalancer.LoadBalancer {
	t.Helper()
	var got loadbalancer.LoadBalancer
	eventually(t, s.ctx, timeout, "load balancer of "+ns+"/"+name+" matches the Service", func(ctx context.Context) (bool, string, error) {
		lbNow, problems, err := s.lbConverged(ctx, ns, name)
		if err != nil {
			return false, "", err
		}
		if extra != nil {
			for _, bs := range lbNow.BackendSets {
				if err := extra(backendAddrs(bs)); err != nil {
					problems = append(problems, fmt.Sprintf("backend set %s: %v", deref(bs.Name), err))
				}
			}
		}
		got = lbNow
		return len(problems) == 0, strings.Join(problems, "\n") + "\n" + describeLB(lbNow), nil
	})
	return got
}

// lbConverged compares the Service's load balancer with what the Service and the Nodes ask for
// and returns the differences:
//   - exactly one load balancer named after the Service UID, tagged with its owner;
//   - one listener per Service port, each pointing at a backend set that exists, and no backend
//     set that no listener uses;
//   - each backend set holding every Ready Node's InternalIP on the port's nodePort, and nothing
//     but Nodes' InternalIPs on that port;
//   - the Service's status showing the load balancer's public IP.
func (s *suite) lbConverged(ctx context.Context, ns, name string) (loadbalancer.LoadBalancer, []string, error) {
	var none loadbalancer.LoadBalancer
	svc, err := s.kube.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return none, nil, err
	}
	nodes, err := s.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return none, nil, err
	}
	lbs, err := s.oci.loadBalancersNamed(ctx, string(svc.UID))
	if err != nil {
		return none, nil, err
	}
	if len(lbs) != 1 {
		return none, []string{fmt.Sprintf("%d load balancers named %s, want 1", len(lbs), svc.UID)}, nil
	}
	got := lbs[0]
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	for k, v := range map[string]string{model.TagManagedBy: model.ManagedByValue, model.TagCluster: clusterName, model.TagServiceUID: string(svc.UID)} {
		if got.FreeformTags[k] != v {
			add("freeform tag %s=%q, want %q", k, got.FreeformTags[k], v)
		}
	}
	if ip := publicIP(got); ip == "" || ingressIP(svc) != ip {
		add("Service status IP %q, load balancer IP %q", ingressIP(svc), ip)
	}

	// Ready Nodes must be backends; NotReady ones may or may not be (providers differ: the load
	// balancer's health check keeps traffic off them either way); a deleted Node must not be.
	var readyIPs []string
	nodeIPs := map[string]bool{}
	for _, n := range nodes.Items {
		ip := observedFacts(&n).InternalIP
		if ip == "" || n.DeletionTimestamp != nil {
			continue
		}
		nodeIPs[ip] = true
		if nodeReady(&n) {
			readyIPs = append(readyIPs, ip)
		}
	}
	used := map[string]bool{}
	for _, p := range svc.Spec.Ports {
		var listener *loadbalancer.Listener
		for _, l := range got.Listeners {
			if derefInt(l.Port) == int(p.Port) {
				listener = &l
			}
		}
		if listener == nil {
			add("no listener on port %d", p.Port)
			continue
		}
		bsName := deref(listener.DefaultBackendSetName)
		used[bsName] = true
		bs, ok := got.BackendSets[bsName]
		if !ok {
			add("listener %s points at backend set %q, which does not exist", deref(listener.Name), bsName)
			continue
		}
		have := backendAddrs(bs)
		for _, ip := range readyIPs {
			if b := fmt.Sprintf("%s:%d", ip, p.NodePort); !slices.Contains(have, b) {
				add("backend set %s lacks Ready Node %s", bsName, b)
			}
		}
		for _, b := range have {
			ip, port, _ := strings.Cut(b, ":")
			if !nodeIPs[ip] || port != strconv.Itoa(int(p.NodePort)) {
				add("backend set %s has %s, which is no Node's InternalIP on nodePort %d", bsName, b, p.NodePort)
			}
		}
	}
	if len(got.Listeners) != len(svc.Spec.Ports) {
		add("%d listeners for %d Service ports", len(got.Listeners), len(svc.Spec.Ports))
	}
	for bsName := range got.BackendSets {
		if !used[bsName] {
			add("backend set %s is used by no listener of a Service port", bsName)
		}
	}
	return got, problems, nil
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// wantRules returns the security rules a public Service with default source ranges needs in
// mode All: ingress to each listener port on every load balancer subnet's list, and the node
// ports allowed out of the load balancer subnets and into the node subnet.
func (s *suite) wantRules(svc *corev1.Service) []rule {
	var out []rule
	for _, p := range svc.Spec.Ports {
		port := int(p.Port)
		for _, sn := range s.tenancy.Subnets {
			if sn.Role == ocitest.RoleLoadBalancer {
				out = append(out, rule{sn.SecurityLists[0], "ingress", "0.0.0.0/0", port, port})
			}
		}
		out = append(out, s.backendRules(int(p.NodePort))...)
	}
	return out
}

// backendRules returns the rules that let the load balancer subnets reach nodePort on the node
// subnets: egress on each load balancer subnet's list, ingress on the node subnet's.
func (s *suite) backendRules(nodePort int) []rule {
	var out []rule
	for _, l := range s.tenancy.Subnets {
		if l.Role != ocitest.RoleLoadBalancer {
			continue
		}
		for _, n := range s.tenancy.Subnets {
			if n.Role == ocitest.RoleNode {
				out = append(out, rule{l.SecurityLists[0], "egress", n.CIDR, nodePort, nodePort},
					rule{n.SecurityLists[0], "ingress", l.CIDR, nodePort, nodePort})
			}
		}
	}
	return out
}

// waitRules waits until the owned rules include want and include none touching gone ports.
func (s *suite) waitRules(t *testing.T, what string, want []rule, gone []int) {
	t.Helper()
	eventually(t, s.ctx, convergeTimeout, what, func(ctx context.Context) (bool, string, error) {
		owned, err := s.oci.ownedRules(ctx, clusterName)
		if err != nil {
			return false, "", err
		}
		missing, extra := missingRules(owned, want), rulesTouching(owned, gone...)
		return len(missing) == 0 && len(extra) == 0,
			fmt.Sprintf("missing %v\nstill there %v\nall owned %v", missing, extra, owned), nil
	})
}

// testServiceCreated: a LoadBalancer Service (examples/services/plain.yaml) gets a load balancer
// in OCI with its listener and backends, its IP in the Service status, and security rules.
func testServiceCreated(t *testing.T, s *suite) {
	svc := loadService(t, "plain.yaml", testNamespace)
	created, err := s.kube.CoreV1().Services(testNamespace).Create(s.ctx, svc, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitIngressIP(t, s, testNamespace, created.Name)
	s.waitLBConverged(t, testNamespace, created.Name, nil)
	s.waitRules(t, "security rules for "+created.Name, s.wantRules(created), nil)
}

// testPortChanged: changing the Service port moves the listener and its backend set, never
// leaving a listener on a missing backend set, and keeps the IP.
func testPortChanged(t *testing.T, s *suite) {
	before, err := s.kube.CoreV1().Services(testNamespace).Get(s.ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ip := ingressIP(before)
	if err := updateService(s.ctx, s.kube, testNamespace, "web", func(svc *corev1.Service) {
		svc.Spec.Ports[0].Port = 8080
	}); err != nil {
		t.Fatal(err)
	}
	got := s.waitLBConverged(t, testNamespace, "web", nil)
	if publicIP(got) != ip {
		t.Errorf("load balancer IP %s, was %s before the port change", publicIP(got), ip)
	}
	after, err := s.kube.CoreV1().Services(testNamespace).Get(s.ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.waitRules(t, "security rules follow the port", s.wantRules(after), []int{80})
}

// testTLSSecretRotated: a listener terminating TLS uses the certificate of its Secret; replacing
// the Secret's certificate puts the new one on the listener and deletes the old one.
func testTLSSecretRotated(t *testing.T, s *suite) {
	const secretName = "shop-tls"
	cert1, key1 := selfSignedCert(t, "shop.example.com")
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: secretName, Namespace: testNamespace},
		Type:       corev1.SecretTypeTLS,
		Data:       map[string][]byte{corev1.TLSCertKey: cert1, corev1.TLSPrivateKeyKey: key1},
	}
	if _, err := s.kube.CoreV1().Secrets(testNamespace).Create(s.ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	svc := loadService(t, "tls.yaml", testNamespace)
	if _, err := s.kube.CoreV1().Services(testNamespace).Create(s.ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitIngressIP(t, s, testNamespace, svc.Name)
	got := s.waitLBConverged(t, testNamespace, svc.Name, nil)
	oldCert := s.waitListenerCertificate(t, deref(got.DisplayName), 443, cert1)

	cert2, key2 := selfSignedCert(t, "shop.example.com")
	if err := retryUpdateSecret(s, secretName, map[string][]byte{corev1.TLSCertKey: cert2, corev1.TLSPrivateKeyKey: key2}); err != nil {
		t.Fatal(err)
	}
	newCert := s.waitListenerCertificate(t, deref(got.DisplayName), 443, cert2)
	if newCert == oldCert {
		t.Fatalf("the rotated certificate kept the name %s; names must change with the content", oldCert)
	}
	eventually(t, s.ctx, convergeTimeout, "old certificate "+oldCert+" deleted", func(ctx context.Context) (bool, string, error) {
		now, ok, err := s.oci.loadBalancerNamed(ctx, deref(got.DisplayName))
		if err != nil || !ok {
			return false, "load balancer not found", err
		}
		_, still := now.Certificates[oldCert]
		return !still, describeLB(now), nil
	})
}

// waitListenerCertificate waits until the listener on port of the load balancer named lbName
// uses a certificate whose public part is certPEM, and returns the certificate's name.
func (s *suite) waitListenerCertificate(t *testing.T, lbName string, port int, certPEM []byte) string {
	t.Helper()
	var name string
	eventually(t, s.ctx, convergeTimeout, fmt.Sprintf("listener on %d uses the Secret's certificate", port), func(ctx context.Context) (bool, string, error) {
		got, ok, err := s.oci.loadBalancerNamed(ctx, lbName)
		if err != nil || !ok {
			return false, "load balancer not found", err
		}
		for _, l := range got.Listeners {
			if derefInt(l.Port) != port || l.SslConfiguration == nil {
				continue
			}
			name = deref(l.SslConfiguration.CertificateName)
			c, ok := got.Certificates[name]
			if ok && strings.TrimSpace(deref(c.PublicCertificate)) == strings.TrimSpace(string(certPEM)) {
				return true, "", nil
			}
		}
		return false, describeLB(got), nil
	})
	return name
}

func retryUpdateSecret(s *suite, name string, data map[string][]byte) error {
	secret, err := s.kube.CoreV1().Secrets(testNamespace).Get(s.ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	secret.Data = data
	_, err = s.kube.CoreV1().Secrets(testNamespace).Update(s.ctx, secret, metav1.UpdateOptions{})
	return err
}

// testInvalidAnnotation: a Service with an annotation value that cannot be parsed gets a Warning
// Event naming the annotation and the value, and nothing is written to OCI for it. Deleting it
// then completes.
func testInvalidAnnotation(t *testing.T, s *suite) {
	const key, value = "service.beta.kubernetes.io/oci-load-balancer-shape-flex-min", "banana"
	svc := loadService(t, "plain.yaml", testNamespace)
	svc.Name = "bad"
	svc.Annotations[key] = value
	s.refusedBeforeAnyWrite(t, svc, key, value)
}

// testOverOCILimitsRefused: a Service that cannot fit OCI's limits (17 ports: a load balancer has
// at most 16 listeners and 16 backend sets) gets a Warning Event naming the limit and the way out,
// and nothing is written to OCI for it, rather than OCI refusing a plan half way through.
func testOverOCILimitsRefused(t *testing.T, s *suite) {
	svc := loadService(t, "plain.yaml", testNamespace)
	svc.Name = "too-many-ports"
	svc.Spec.Ports = nil
	for i := range 17 {
		svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Name: fmt.Sprintf("p%d", i), Protocol: corev1.ProtocolTCP, Port: int32(9000 + i)})
	}
	s.refusedBeforeAnyWrite(t, svc, "at most 16 ports (17 given)", "at most 16 listeners and 16 backend sets", "split the ports over several Services")
}

// refusedBeforeAnyWrite creates svc and waits for a Warning Event on it that says each of says;
// no OCI write may happen for it and no load balancer may exist. Then it deletes svc, which
// must complete.
func (s *suite) refusedBeforeAnyWrite(t *testing.T, svc *corev1.Service, says ...string) {
	t.Helper()
	before, err := s.oci.calls(s.ctx)
	if err != nil {
		t.Fatal(err)
	}
	created, err := s.kube.CoreV1().Services(testNamespace).Create(s.ctx, svc, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, s.ctx, convergeTimeout, fmt.Sprintf("Warning Event saying %q", says), func(ctx context.Context) (bool, string, error) {
		events, err := serviceEvents(ctx, s.kube, testNamespace, svc.Name)
		if err != nil {
			return false, "", err
		}
		found := slices.ContainsFunc(events, func(e corev1.Event) bool {
			return e.Type == corev1.EventTypeWarning && !slices.ContainsFunc(says, func(w string) bool { return !strings.Contains(e.Message, w) })
		})
		return found, describeEvents(events), nil
	})
	after, err := s.oci.calls(s.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := after.Since(before); d.Op("CreateLoadBalancer") != 0 || d.Class(ocitest.ClassWrite) != 0 {
		t.Errorf("OCI writes happened for the refused Service:\n%s", d)
	}
	if lbs, err := s.oci.loadBalancersNamed(s.ctx, string(created.UID)); err != nil || len(lbs) != 0 {
		t.Errorf("load balancers for the refused Service: %d (err %v), want 0", len(lbs), err)
	}
	s.deleteService(t, testNamespace, svc.Name)
}

// deleteService deletes a Service and waits until it is gone, which needs the service
// controller to remove its finalizer.
func (s *suite) deleteService(t *testing.T, ns, name string) {
	t.Helper()
	if err := s.kube.CoreV1().Services(ns).Delete(s.ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, s.ctx, convergeTimeout, "Service "+ns+"/"+name+" gone (finalizer removed)", func(ctx context.Context) (bool, string, error) {
		svc, err := s.kube.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, "", nil
		}
		if err != nil {
			return false, "", err
		}
		return false, fmt.Sprintf("finalizers %v", svc.Finalizers), nil
	})
}

// testServiceDeleted: deleting a Service deletes its load balancer (and with it its
// certificates) and the security rules no other Service needs, and then its finalizer.
func testServiceDeleted(t *testing.T, s *suite) {
	const name = "shop"
	svc, err := s.kube.CoreV1().Services(testNamespace).Get(s.ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.oci.loadBalancerNamed(s.ctx, string(svc.UID))
	if err != nil || !ok {
		t.Fatalf("no load balancer for %s before deletion (err %v)", name, err)
	}
	s.deleteService(t, testNamespace, name)

	if exists, err := s.oci.loadBalancerExists(s.ctx, deref(got.Id)); err != nil || exists {
		t.Errorf("load balancer %s still exists after the Service is gone (err %v)", deref(got.Id), err)
	}
	if lbs, err := s.oci.loadBalancersNamed(s.ctx, string(svc.UID)); err != nil || len(lbs) != 0 {
		t.Errorf("%d load balancers still named %s (err %v)", len(lbs), svc.UID, err)
	}

	// Ports the deleted Service used that no remaining LoadBalancer Service uses.
	inUse := map[int]bool{}
	all, err := s.kube.CoreV1().Services("").List(s.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, other := range all.Items {
		if other.Spec.Type == corev1.ServiceTypeLoadBalancer {
			for _, p := range other.Spec.Ports {
				inUse[int(p.Port)], inUse[int(p.NodePort)] = true, true
			}
		}
	}
	var gone []int
	for _, p := range svc.Spec.Ports {
		for _, port := range []int{int(p.Port), int(p.NodePort)} {
			if !inUse[port] {
				gone = append(gone, port)
			}
		}
	}
	s.waitRules(t, "security rules of "+name+" removed", nil, gone)
}

// testDeleteDenied: deleting a Service whose load balancer the CCM may not delete (OCI answers
// 404 NotAuthorizedOrNotFound, as it does when the policy lacks "manage load-balancers") keeps
// the Service's finalizer and the load balancer, and raises a Warning Event that names the
// policy; once the policy allows it, the deletion completes.
func testDeleteDenied(t *testing.T, s *suite) {
	svc := loadService(t, "plain.yaml", testNamespace)
	svc.Name = "undeletable"
	created, err := s.kube.CoreV1().Services(testNamespace).Create(s.ctx, svc, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitIngressIP(t, s, testNamespace, svc.Name)
	got, ok, err := s.oci.loadBalancerNamed(s.ctx, string(created.UID))
	if err != nil || !ok {
		t.Fatalf("no load balancer for %s (err %v)", svc.Name, err)
	}
	id, err := s.oci.injectFault(s.ctx, fault{Operation: "DeleteLoadBalancer", Status: http.StatusNotFound, Code: "NotAuthorizedOrNotFound"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.oci.removeFault(s.ctx, id) }()
	if err := s.kube.CoreV1().Services(testNamespace).Delete(s.ctx, svc.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, s.ctx, convergeTimeout, "Warning Event naming the missing policy", func(ctx context.Context) (bool, string, error) {
		events, err := serviceEvents(ctx, s.kube, testNamespace, svc.Name)
		if err != nil {
			return false, "", err
		}
		found := slices.ContainsFunc(events, func(e corev1.Event) bool {
			return e.Type == corev1.EventTypeWarning && strings.Contains(e.Message, "manage load-balancers")
		})
		return found, describeEvents(events), nil
	})
	still, err := s.kube.CoreV1().Services(testNamespace).Get(s.ctx, svc.Name, metav1.GetOptions{})
	if err != nil || len(still.Finalizers) == 0 {
		t.Fatalf("Service gone or without finalizer while its load balancer exists (err %v)", err)
	}
	if exists, err := s.oci.loadBalancerExists(s.ctx, deref(got.Id)); err != nil || !exists {
		t.Fatalf("load balancer %s exists = %v (err %v), want true", deref(got.Id), exists, err)
	}

	if err := s.oci.removeFault(s.ctx, id); err != nil {
		t.Fatal(err)
	}
	eventually(t, s.ctx, 2*convergeTimeout, "Service "+svc.Name+" gone once the deletion is allowed", func(ctx context.Context) (bool, string, error) {
		svc, err := s.kube.CoreV1().Services(testNamespace).Get(ctx, svc.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, "", nil
		}
		if err != nil {
			return false, "", err
		}
		return false, fmt.Sprintf("finalizers %v", svc.Finalizers), nil
	})
	if exists, err := s.oci.loadBalancerExists(s.ctx, deref(got.Id)); err != nil || exists {
		t.Errorf("load balancer %s still exists after the Service is gone (err %v)", deref(got.Id), err)
	}
}

// testRestartMidCreate: a CCM killed while a load balancer's creation is in flight, and started
// again, ends with exactly one load balancer for the Service, which gets its IP.
func testRestartMidCreate(t *testing.T, s *suite) {
	before, err := s.oci.calls(s.ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Hold every work-request poll, so the CCM sits between "create accepted" and "create done".
	release := s.oci.holdWorkRequests(s.ctx, t)

	svc := loadService(t, "plain.yaml", testNamespace)
	svc.Name = "restart"
	created, err := s.kube.CoreV1().Services(testNamespace).Create(s.ctx, svc, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, s.ctx, convergeTimeout, "CreateLoadBalancer sent and its work request being polled", func(ctx context.Context) (bool, string, error) {
		now, err := s.oci.calls(ctx)
		if err != nil {
			return false, "", err
		}
		d := now.Since(before)
		return d.Op("CreateLoadBalancer") >= 1 && d.Op("GetWorkRequest") >= 1, d.String(), nil
	})
	current, err := s.kube.CoreV1().Services(testNamespace).Get(s.ctx, svc.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ip := ingressIP(current); ip != "" {
		t.Fatalf("the Service already has IP %s: the create was not in flight when the CCM was to be killed", ip)
	}

	s.ccm.kill()
	if err := release(); err != nil {
		t.Fatal(err)
	}
	t.Logf("CCM killed mid-create; starting a new one")
	if err := s.ccm.start(s.ctx); err != nil {
		t.Fatal(err)
	}

	waitIngressIP(t, s, testNamespace, svc.Name)
	s.waitLBConverged(t, testNamespace, svc.Name, nil)
	lbs, err := s.oci.loadBalancersNamed(s.ctx, string(created.UID))
	if err != nil {
		t.Fatal(err)
	}
	if len(lbs) != 1 {
		var ids []string
		for _, l := range lbs {
			ids = append(ids, deref(l.Id))
		}
		t.Errorf("%d load balancers for the Service, want 1: %v", len(lbs), ids)
	}
	if after, err := s.oci.calls(s.ctx); err == nil {
		t.Logf("CreateLoadBalancer calls for the Service across the restart: %d", after.Since(before).Op("CreateLoadBalancer"))
	} else if !errors.Is(err, context.Canceled) {
		t.Error(err)
	}
}
