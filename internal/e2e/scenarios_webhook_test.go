// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

//go:build e2e

package e2e

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
)

// webhookName is the ValidatingWebhookConfiguration's webhook, as the API server names it in a
// refusal.
const webhookName = "services.oci-ccm.github.io"

// TestWebhook: the CCM binary serves the validating admission webhook over TLS, registered with
// the real kube-apiserver by a ValidatingWebhookConfiguration (url clientConfig on 127.0.0.1, a
// CA generated here in caBundle, failurePolicy Ignore). A bad annotation is refused at create and
// at update with the annotation, the value and the allowed values; a good Service is accepted;
// with the CCM (and so the webhook) down, the bad Service is accepted: the webhook fails open. The
// good Service's load balancer is reported by a LoadBalancerPlanApplied Event.
func TestWebhook(t *testing.T) {
	s := newSuite(t)
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	certDir := filepath.Join(s.dir, "webhook-certs")
	caPEM := writeWebhookCerts(t, certDir)

	s.ccm.stop()
	s.ccm.extraArgs = []string{
		"--validating-webhook-port=" + strconv.Itoa(port),
		"--validating-webhook-bind-address=127.0.0.1",
		"--validating-webhook-cert-dir=" + certDir,
	}
	if err := s.ccm.start(s.ctx); err != nil {
		s.ccm.logTail(t, 0)
		t.Fatal(err)
	}
	if err := registerWebhook(s.ctx, s, port, caPEM); err != nil {
		t.Fatal(err)
	}

	bad := func(name string) *corev1.Service {
		svc := loadService(t, "plain.yaml", testNamespace)
		svc.Name = name
		if svc.Annotations == nil {
			svc.Annotations = map[string]string{}
		}
		svc.Annotations[string(annotation.Shape)] = "huge"
		return svc
	}
	services := s.kube.CoreV1().Services(testNamespace)
	passed := map[string]bool{}
	run := func(name string, needs string, f func(t *testing.T)) {
		passed[name] = t.Run(name, func(t *testing.T) {
			if needs != "" && !passed[needs] {
				t.Fatalf("not run: it builds on %s, which failed", needs)
			}
			s.runStep(t, func(t *testing.T, _ *suite) { f(t) })
		})
	}

	run("RejectsBadAnnotation", "", func(t *testing.T) {
		// The API server loads a new webhook configuration asynchronously: poll with a dry run.
		eventually(t, s.ctx, convergeTimeout, "the API server calls the webhook", func(ctx context.Context) (bool, string, error) {
			_, err := services.Create(ctx, bad("bad-shape"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if err == nil {
				return false, "a dry-run create of the bad Service was accepted", nil
			}
			return strings.Contains(err.Error(), webhookName), err.Error(), nil
		})
		_, err := services.Create(s.ctx, bad("bad-shape"), metav1.CreateOptions{})
		assertRefusal(t, err)
		if _, err := services.Get(s.ctx, "bad-shape", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("the refused Service exists (get: %v)", err)
		}
	})

	run("AcceptsGoodService", "RejectsBadAnnotation", func(t *testing.T) {
		good := loadService(t, "plain.yaml", testNamespace)
		good.Name = "good-shape"
		if good.Annotations == nil {
			good.Annotations = map[string]string{}
		}
		good.Annotations[string(annotation.Shape)] = "flexible"
		good.Annotations[string(annotation.ShapeFlexMin)] = "10"
		good.Annotations[string(annotation.ShapeFlexMax)] = "100"
		if _, err := services.Create(s.ctx, good, metav1.CreateOptions{}); err != nil {
			t.Fatalf("a valid Service was refused: %v", err)
		}
		// The CCM creates its load balancer and says so in an Event on the Service (plans as
		// Events, recorded under examples/deploy/rbac.yaml).
		eventually(t, s.ctx, convergeTimeout, "a LoadBalancerPlanApplied Event on good-shape", func(ctx context.Context) (bool, string, error) {
			events, err := serviceEvents(ctx, s.kube, testNamespace, "good-shape")
			if err != nil {
				return false, "", err
			}
			for _, e := range events {
				if e.Reason == "LoadBalancerPlanApplied" && e.Type == corev1.EventTypeNormal &&
					strings.Contains(e.Message, "+ load balancer") && strings.Contains(e.Message, "1 listener,") {
					return true, "", nil
				}
			}
			return false, describeEvents(events), nil
		})
		// An update that breaks it is refused too.
		err := updateService(s.ctx, s.kube, testNamespace, "good-shape", func(svc *corev1.Service) {
			svc.Annotations[string(annotation.Shape)] = "huge"
		})
		assertRefusal(t, err)
	})

	run("FailsOpen", "RejectsBadAnnotation", func(t *testing.T) {
		s.ccm.stop()
		if _, err := services.Create(s.ctx, bad("bad-while-down"), metav1.CreateOptions{}); err != nil {
			t.Fatalf("with the webhook down, a Service write failed (the webhook must fail open): %v", err)
		}
	})
}

// assertRefusal checks err is the webhook's refusal of shape "huge", naming the annotation, the
// value and the allowed values.
func assertRefusal(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		t.Fatal("the bad Service was accepted")
	}
	if !apierrors.IsInvalid(err) {
		t.Errorf("refusal %v is not 422 Invalid", err)
	}
	for _, want := range []string{webhookName, string(annotation.Shape), `"huge"`, "flexible", "100Mbps"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not mention %s", err, want)
		}
	}
}

// registerWebhook creates the ValidatingWebhookConfiguration pointing at the CCM's webhook port,
// as the chart's examples/helm/oci-ccm/templates/webhook.yaml does for a Service in front of the
// CCM (ccm/docs/webhook.md, "By hand", shows it by hand).
func registerWebhook(ctx context.Context, s *suite, port int, caPEM []byte) error {
	url := fmt.Sprintf("https://127.0.0.1:%d/validate-service", port)
	ignore := admissionregistrationv1.Ignore
	none := admissionregistrationv1.SideEffectClassNone
	timeout := int32(5)
	cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "oci-ccm"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    webhookName,
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: caPEM},
			Rules:                   []admissionregistrationv1.RuleWithOperations{serviceRule()},
			FailurePolicy:           &ignore,
			SideEffects:             &none,
			TimeoutSeconds:          &timeout,
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
	_, err := s.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, cfg, metav1.CreateOptions{})
	return err
}

func serviceRule() admissionregistrationv1.RuleWithOperations {
	scope := admissionregistrationv1.NamespacedScope
	return admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"},
			Resources: []string{"services"}, Scope: &scope},
	}
}

// writeWebhookCerts writes a serving certificate for 127.0.0.1, signed by a new CA, as tls.crt
// and tls.key in dir, and returns the CA certificate (PEM) for the caBundle.
func writeWebhookCerts(t *testing.T, dir string) []byte {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "e2e webhook CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "oci-ccm webhook"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:    x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	for name, block := range map[string]*pem.Block{
		"tls.crt": {Type: "CERTIFICATE", Bytes: der},
		"tls.key": {Type: "EC PRIVATE KEY", Bytes: keyDER},
	} {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
}
