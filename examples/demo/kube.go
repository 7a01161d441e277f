// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	cloudproviderapi "k8s.io/cloud-provider/api"
)

// servicesDir is where the example Services live, relative to the repository root.
const servicesDir = "examples/services"

// readService decodes one example manifest, as kubectl apply would read it.
func readService(dir, file string) (*v1.Service, error) {
	data, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return nil, err
	}
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(data, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	svc, ok := obj.(*v1.Service)
	if !ok {
		return nil, fmt.Errorf("%s: a %T, not a Service", file, obj)
	}
	return svc, nil
}

// findServicesDir finds examples/services from the working directory or one of its parents, so
// the demo runs from the repository root (make demo) and from its own package (go test).
func findServicesDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		candidate := filepath.Join(dir, servicesDir)
		if st, err := os.Stat(candidate); err == nil && st.IsDir() {
			return candidate, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("cannot find " + servicesDir + "; run the demo inside the oci-ccm repository (make demo)")
		}
		dir = parent
	}
}

// registeringNode is a Node as a kubelet started with --cloud-provider=external --node-ip=<ip>
// registers it: Ready, tainted until the cloud-node controller has initialised it, with its
// InternalIP but no provider ID, cloud labels or other addresses yet.
//
// Without --node-ip a Node gets its first address from the cloud-node controller, in a status
// patch that follows the update setting its provider ID. The service controller re-syncs load
// balancers on the provider-ID change but not on the address change, and backends are InternalIPs,
// so a re-sync that runs between the two leaves the new Node out until something else triggers one.
func registeringNode(name, internalIP string) *v1.Node {
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Labels:      map[string]string{v1.LabelHostname: name},
			Annotations: map[string]string{cloudproviderapi.AnnotationAlphaProvidedIPAddr: internalIP},
		},
		Spec: v1.NodeSpec{Taints: []v1.Taint{{
			Key: cloudproviderapi.TaintExternalCloudProvider, Value: "true", Effect: v1.TaintEffectNoSchedule,
		}}},
		Status: v1.NodeStatus{
			Addresses: []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: internalIP}},
			Conditions: []v1.NodeCondition{{
				Type: v1.NodeReady, Status: v1.ConditionTrue, Reason: "KubeletReady",
				LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now(),
			}},
		},
	}
}

// initialised reports whether the cloud-node controller has finished with a Node: provider ID
// set, taint removed, and the addresses only the cloud knows (every instance of the demo's
// tenancy has a public IP) filled in.
func initialised(n *v1.Node) bool {
	if n.Spec.ProviderID == "" || address(n, v1.NodeExternalIP) == "-" {
		return false
	}
	for _, t := range n.Spec.Taints {
		if t.Key == cloudproviderapi.TaintExternalCloudProvider {
			return false
		}
	}
	return true
}

// address returns the Node's first address of a type, or "-".
func address(n *v1.Node, typ v1.NodeAddressType) string {
	for _, a := range n.Status.Addresses {
		if a.Type == typ {
			return a.Address
		}
	}
	return "-"
}

// tlsSecret is a kubernetes.io/tls Secret holding a fresh self-signed certificate for host.
func tlsSecret(namespace, name, host string) (*v1.Secret, *x509.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generate key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 64))
	if err != nil {
		return nil, nil, fmt.Errorf("generate serial: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: host},
		DNSNames:     []string{host},
		NotBefore:    now.Add(-time.Minute),
		NotAfter:     now.Add(90 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("create certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, fmt.Errorf("parse certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("encode key: %w", err)
	}
	secret := &v1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Type:       v1.SecretTypeTLS,
		Data: map[string][]byte{
			v1.TLSCertKey:       pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
			v1.TLSPrivateKeyKey: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
		},
	}
	return secret, cert, nil
}
