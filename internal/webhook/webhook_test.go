// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package webhook

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
)

var cfg = &config.Config{
	CompartmentID: "ocid1.compartment.oc1..test",
	LoadBalancer:  config.LoadBalancer{Subnet1: "ocid1.subnet.oc1.phx.a", Subnet2: "ocid1.subnet.oc1.phx.b"},
}

func service(annotations map[string]string, opts ...func(*v1.Service)) *v1.Service {
	s := &v1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Annotations: annotations},
		Spec: v1.ServiceSpec{Type: v1.ServiceTypeLoadBalancer, Ports: []v1.ServicePort{
			{Name: "http", Protocol: v1.ProtocolTCP, Port: 80, NodePort: 30080},
			{Name: "https", Protocol: v1.ProtocolTCP, Port: 443, NodePort: 30443},
		}},
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

func request(t *testing.T, op admissionv1.Operation, obj, old *v1.Service) *admissionv1.AdmissionRequest {
	t.Helper()
	raw := func(s *v1.Service) runtime.RawExtension {
		if s == nil {
			return runtime.RawExtension{}
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		return runtime.RawExtension{Raw: b}
	}
	return &admissionv1.AdmissionRequest{
		UID:       types.UID("req-1"),
		Kind:      metav1.GroupVersionKind{Version: "v1", Kind: "Service"},
		Resource:  metav1.GroupVersionResource{Version: "v1", Resource: "services"},
		Name:      "web",
		Namespace: "default",
		Operation: op,
		Object:    raw(obj),
		OldObject: raw(old),
	}
}

const (
	shape  = string(annotation.Shape)
	lbType = string(annotation.LoadBalancerType)
	tlsSec = string(annotation.TLSSecret)
	ssl    = string(annotation.SSLPorts)
)

func TestReviewRefusesInvalidAnnotationsAndAllowsEverythingElse(t *testing.T) {
	bad := map[string]string{shape: "huge"}
	badTwice := map[string]string{shape: "huge", lbType: "alb"}
	withClass := func(s *v1.Service) { class := "example.com/other"; s.Spec.LoadBalancerClass = &class }
	clusterIP := func(s *v1.Service) { s.Spec.Type = v1.ServiceTypeClusterIP }
	deleting := func(s *v1.Service) { now := metav1.Now(); s.DeletionTimestamp = &now }
	for _, tc := range []struct {
		name string
		req  *admissionv1.AdmissionRequest
		// refused lists the annotations the refusal names; nil means allowed.
		refused []string
	}{
		{"valid Service is allowed", request(t, admissionv1.Create, service(map[string]string{shape: "flexible"}), nil), nil},
		{"invalid shape is refused on create", request(t, admissionv1.Create, service(bad), nil), []string{shape}},
		{"every problem is named at once", request(t, admissionv1.Create, service(badTwice), nil), []string{lbType, shape}},
		{"invalid shape is refused on update from valid", request(t, admissionv1.Update, service(bad), service(nil)), []string{shape}},
		{"an update keeping an existing problem is allowed (finalizer removal)",
			request(t, admissionv1.Update, service(bad, func(s *v1.Service) { s.Finalizers = nil }), service(bad)), nil},
		{"an update adding a problem names only the new one", request(t, admissionv1.Update, service(badTwice), service(bad)), []string{lbType}},
		{"an update fixing one of two problems is allowed", request(t, admissionv1.Update, service(bad), service(badTwice)), nil},
		{"a type change to LoadBalancer is validated", request(t, admissionv1.Update, service(bad), service(bad, clusterIP)), []string{shape}},
		{"DELETE is allowed", request(t, admissionv1.Delete, nil, service(bad)), nil},
		{"a Service being deleted is allowed", request(t, admissionv1.Update, service(badTwice, deleting), service(bad)), nil},
		{"not type LoadBalancer is allowed", request(t, admissionv1.Create, service(bad, clusterIP), nil), nil},
		{"another controller's loadBalancerClass is allowed", request(t, admissionv1.Create, service(bad, withClass), nil), nil},
		{"a TLS Secret that does not exist yet is allowed",
			request(t, admissionv1.Create, service(map[string]string{ssl: "443", tlsSec: "not-created-yet"}), nil), nil},
		{"a malformed Secret reference is refused",
			request(t, admissionv1.Create, service(map[string]string{ssl: "443", tlsSec: "a/b/c"}), nil), []string{tlsSec}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := Review(cfg, tc.req)
			if resp.UID != tc.req.UID {
				t.Errorf("response UID %q, want the request's %q", resp.UID, tc.req.UID)
			}
			if tc.refused == nil {
				if !resp.Allowed {
					t.Fatalf("refused: %v", resp.Result)
				}
				return
			}
			if resp.Allowed || resp.Result == nil {
				t.Fatalf("allowed, want refused naming %v", tc.refused)
			}
			var fields []string
			for _, c := range resp.Result.Details.Causes {
				fields = append(fields, c.Field)
				if !strings.Contains(resp.Result.Message, c.Message) {
					t.Errorf("message %q lacks cause %q", resp.Result.Message, c.Message)
				}
			}
			var want []string
			for _, a := range tc.refused {
				want = append(want, "metadata.annotations["+a+"]")
			}
			if diff := cmp.Diff(want, fields); diff != "" {
				t.Errorf("causes (-want +got):\n%s", diff)
			}
			if resp.Result.Code != http.StatusUnprocessableEntity || resp.Result.Reason != metav1.StatusReasonInvalid {
				t.Errorf("status %d %s, want 422 Invalid", resp.Result.Code, resp.Result.Reason)
			}
		})
	}
}

func TestRefusalNamesAnnotationValueAndAllowedValues(t *testing.T) {
	resp := Review(cfg, request(t, admissionv1.Create, service(map[string]string{shape: "huge"}), nil))
	if resp.Allowed {
		t.Fatal("allowed an unknown shape")
	}
	for _, want := range []string{"default/web", shape, `"huge"`, "flexible", "100Mbps"} {
		if !strings.Contains(resp.Result.Message, want) {
			t.Errorf("message %q does not mention %s", resp.Result.Message, want)
		}
	}
}

func TestHandlerAnswersAdmissionReviewOverTLS(t *testing.T) {
	dir := t.TempDir()
	caPEM := writeServingCert(t, dir)
	srv, err := Listen("127.0.0.1:0", dir, &Handler{Config: cfg, Logger: klog.Background()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}

	review := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request:  request(t, admissionv1.Create, service(map[string]string{lbType: "alb"}), nil),
	}
	body, _ := json.Marshal(review)
	resp, err := client.Post("https://"+srv.Addr().String()+Path, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got admissionv1.AdmissionReview
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.Kind != "AdmissionReview" || got.APIVersion != "admission.k8s.io/v1" || got.Response == nil {
		t.Fatalf("answer %+v is not an admission.k8s.io/v1 AdmissionReview with a response", got)
	}
	if got.Response.UID != "req-1" || got.Response.Allowed || !strings.Contains(got.Response.Result.Message, lbType) {
		t.Errorf("response %+v, want req-1 refused naming %s", got.Response, lbType)
	}
}

func TestHandlerRejectsWhatIsNotAnAdmissionReview(t *testing.T) {
	h := &Handler{Config: cfg, Logger: klog.Background()}
	for _, tc := range []struct {
		name, method, body string
		want               int
	}{
		{"GET", http.MethodGet, "", http.StatusMethodNotAllowed},
		{"not JSON", http.MethodPost, "{", http.StatusBadRequest},
		{"no request", http.MethodPost, `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`, http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tc.method, Path, strings.NewReader(tc.body)))
			if rec.Code != tc.want {
				t.Errorf("status %d, want %d", rec.Code, tc.want)
			}
		})
	}
}

func TestListenFailsWithoutCertificate(t *testing.T) {
	if _, err := Listen("127.0.0.1:0", t.TempDir(), &Handler{}); err == nil || !strings.Contains(err.Error(), CertFile) {
		t.Errorf("Listen without %s: %v, want an error naming the file", CertFile, err)
	}
}

func TestRotatedCertificateIsServedWithoutRestart(t *testing.T) {
	dir := t.TempDir()
	writeServingCert(t, dir)
	l := &certLoader{cert: filepath.Join(dir, CertFile), key: filepath.Join(dir, KeyFile)}
	first, err := l.get(nil)
	if err != nil {
		t.Fatal(err)
	}
	writeServingCert(t, dir)
	later := time.Now().Add(time.Minute)
	for _, f := range []string{CertFile, KeyFile} {
		if err := os.Chtimes(filepath.Join(dir, f), later, later); err != nil {
			t.Fatal(err)
		}
	}
	second, err := l.get(nil)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(first.Certificate[0], second.Certificate[0]) {
		t.Error("the rotated certificate was not picked up")
	}
}

// writeServingCert writes a new CA-signed serving certificate for 127.0.0.1 into dir and returns
// the CA certificate (PEM).
func writeServingCert(t *testing.T, dir string) []byte {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "webhook"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	for name, block := range map[string]*pem.Block{
		CertFile: {Type: "CERTIFICATE", Bytes: der},
		KeyFile:  {Type: "EC PRIVATE KEY", Bytes: keyDER},
	} {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
}
