// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/util/retry"
	cloudproviderapi "k8s.io/cloud-provider/api"
)

// Deadlines for convergence. They are generous because the machine is shared and the service
// controller backs off exponentially after errors; the suite asserts on state, never on how
// fast it was reached.
const (
	convergeTimeout = 2 * time.Minute
	pollInterval    = time.Second
)

// eventually polls cond until it reports done, and fails the test with the last state cond
// described once timeout has passed. Errors from cond count as "not yet": the API server or
// ocitest may be briefly unavailable, and a persistent error shows up as the last state.
func eventually(t *testing.T, ctx context.Context, timeout time.Duration, what string, cond func(context.Context) (done bool, state string, err error)) {
	t.Helper()
	last := "(never checked)"
	err := wait.PollUntilContextTimeout(ctx, pollInterval, timeout, true, func(ctx context.Context) (bool, error) {
		done, state, err := cond(ctx)
		if err != nil {
			if ctx.Err() == nil { // an error caused by the deadline itself says nothing new
				last = "error: " + err.Error()
			}
			return false, nil
		}
		last = state
		return done, nil
	})
	if err != nil {
		t.Fatalf("%s: not reached within %s (%v); last seen:\n%s", what, timeout, err, last)
	}
}

// applyManifest creates every object of a multi-document YAML file, in file order. Only the
// kinds the deploy manifests use are known; anything else is an error, so a new kind in a
// manifest cannot be skipped silently.
func applyManifest(ctx context.Context, kube kubernetes.Interface, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	dec := yaml.NewYAMLOrJSONDecoder(f, 4096)
	for i := 0; ; i++ {
		var raw runtime.RawExtension
		if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fmt.Errorf("document %d: %w", i, err)
		}
		if len(bytes.TrimSpace(raw.Raw)) == 0 || string(bytes.TrimSpace(raw.Raw)) == "null" {
			continue // an empty document, e.g. after a trailing ---
		}
		obj, gvk, err := scheme.Codecs.UniversalDeserializer().Decode(raw.Raw, nil, nil)
		if err != nil {
			return fmt.Errorf("document %d: %w", i, err)
		}
		opts := metav1.CreateOptions{}
		switch o := obj.(type) {
		case *corev1.ServiceAccount:
			_, err = kube.CoreV1().ServiceAccounts(o.Namespace).Create(ctx, o, opts)
		case *rbacv1.ClusterRole:
			_, err = kube.RbacV1().ClusterRoles().Create(ctx, o, opts)
		case *rbacv1.ClusterRoleBinding:
			_, err = kube.RbacV1().ClusterRoleBindings().Create(ctx, o, opts)
		case *rbacv1.Role:
			_, err = kube.RbacV1().Roles(o.Namespace).Create(ctx, o, opts)
		case *rbacv1.RoleBinding:
			_, err = kube.RbacV1().RoleBindings(o.Namespace).Create(ctx, o, opts)
		default:
			return fmt.Errorf("document %d: the suite does not know how to create a %s", i, gvk)
		}
		if err != nil {
			return fmt.Errorf("document %d (%s): %w", i, gvk.Kind, err)
		}
	}
}

// bindingCRDFile is the BackendSetBinding CustomResourceDefinition in examples/deploy.
const bindingCRDFile = "backendsetbinding-crd.yaml"

func createNamespace(ctx context.Context, kube kubernetes.Interface, name string) error {
	_, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// loadService reads a Service manifest from examples/services and moves it to namespace ns.
func loadService(t *testing.T, file, ns string) *corev1.Service {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(bins.root, "examples", "services", file))
	if err != nil {
		t.Fatal(err)
	}
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(data, nil, nil)
	if err != nil {
		t.Fatalf("examples/services/%s: %v", file, err)
	}
	svc, ok := obj.(*corev1.Service)
	if !ok {
		t.Fatalf("examples/services/%s holds a %T, not a Service", file, obj)
	}
	svc.Namespace = ns
	return svc
}

// createNode registers a Node the way a kubelet started with --cloud-provider=external does:
// tainted uninitialized, then reporting its Ready condition. With nodeIP set it also behaves
// like a kubelet given --node-ip: the provided-node-ip annotation and that address as its
// InternalIP until the CCM fills in the cloud's addresses.
func createNode(ctx context.Context, kube kubernetes.Interface, name, nodeIP string, ready corev1.ConditionStatus) error {
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name}},
		Spec: corev1.NodeSpec{Taints: []corev1.Taint{{
			Key: cloudproviderapi.TaintExternalCloudProvider, Value: "true", Effect: corev1.TaintEffectNoSchedule,
		}}},
	}
	if nodeIP != "" {
		node.Annotations = map[string]string{cloudproviderapi.AnnotationAlphaProvidedIPAddr: nodeIP}
	}
	if _, err := kube.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create node %s: %w", name, err)
	}
	return updateNodeStatus(ctx, kube, name, func(st *corev1.NodeStatus) {
		setReady(st, ready)
		if nodeIP != "" && len(st.Addresses) == 0 {
			st.Addresses = []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: nodeIP},
				{Type: corev1.NodeHostName, Address: name},
			}
		}
	})
}

// setNodeReady sets the Node's Ready condition, as a kubelet's heartbeat (or its absence, seen
// by the node lifecycle controller) would.
func setNodeReady(ctx context.Context, kube kubernetes.Interface, name string, status corev1.ConditionStatus) error {
	return updateNodeStatus(ctx, kube, name, func(st *corev1.NodeStatus) { setReady(st, status) })
}

// updateNodeStatus applies change to the Node's status, retrying on conflicts with the CCM's own
// writes to the Node.
func updateNodeStatus(ctx context.Context, kube kubernetes.Interface, name string, change func(*corev1.NodeStatus)) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		node, err := kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(&node.Status)
		_, err = kube.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{})
		return err
	})
}

func setReady(st *corev1.NodeStatus, status corev1.ConditionStatus) {
	now := metav1.Now()
	cond := corev1.NodeCondition{
		Type: corev1.NodeReady, Status: status, LastHeartbeatTime: now, LastTransitionTime: now,
		Reason: "E2E", Message: "set by the e2e suite",
	}
	for i := range st.Conditions {
		if st.Conditions[i].Type == corev1.NodeReady {
			st.Conditions[i] = cond
			return
		}
	}
	st.Conditions = append(st.Conditions, cond)
}

// updateService applies change to the Service, retrying on conflicts with the CCM's writes
// (finalizer, status, annotations).
func updateService(ctx context.Context, kube kubernetes.Interface, ns, name string, change func(*corev1.Service)) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		svc, err := kube.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(svc)
		_, err = kube.CoreV1().Services(ns).Update(ctx, svc, metav1.UpdateOptions{})
		return err
	})
}

// ingressIP returns the first IP of the Service's load balancer status, "" when none.
func ingressIP(svc *corev1.Service) string {
	for _, in := range svc.Status.LoadBalancer.Ingress {
		if in.IP != "" {
			return in.IP
		}
	}
	return ""
}

// waitIngressIP waits until the Service's status carries an ingress IP and returns the Service.
func waitIngressIP(t *testing.T, s *suite, ns, name string) *corev1.Service {
	t.Helper()
	var svc *corev1.Service
	eventually(t, s.ctx, convergeTimeout, "Service "+ns+"/"+name+" gets an ingress IP", func(ctx context.Context) (bool, string, error) {
		var err error
		svc, err = s.kube.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		return ingressIP(svc) != "", fmt.Sprintf("status %+v, finalizers %v", svc.Status.LoadBalancer, svc.Finalizers), nil
	})
	return svc
}

// serviceEvents lists the Events recorded for a Service.
func serviceEvents(ctx context.Context, kube kubernetes.Interface, ns, name string) ([]corev1.Event, error) {
	sel := fields.Set{"involvedObject.kind": "Service", "involvedObject.name": name}.AsSelector().String()
	list, err := kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: sel})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// eventCount returns how often an Event with this reason was recorded for a Service.
func eventCount(events []corev1.Event, reason string) int {
	n := 0
	for _, e := range events {
		if e.Reason == reason {
			n += max(int(e.Count), 1)
		}
	}
	return n
}

func describeEvents(events []corev1.Event) string {
	var b strings.Builder
	for _, e := range events {
		fmt.Fprintf(&b, "\n  %s %s: %s", e.Type, e.Reason, e.Message)
	}
	if b.Len() == 0 {
		return "no events"
	}
	return b.String()
}

// selfSignedCert returns a new self-signed certificate and its RSA key, both PEM.
func selfSignedCert(t *testing.T, host string) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: host},
		DNSNames:     []string{host},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM = pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	return certPEM, keyPEM
}
