// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"
)

// OKE workload identity, as far as ocitest models it.
//
// oci-go-sdk's OKE workload identity provider (v65.130.0, common/auth/resource_principal_key_provider.go,
// OkeWorkloadIdentityConfigurationProviderWithServiceAccountTokenProvider;
// federation_client_oke_workload_identity.go, getSecurityToken) posts {"podKey": "<PEM public
// key>"} to https://$KUBERNETES_SERVICE_HOST:12250/resourcePrincipalSessionTokens with
// "Authorization: Bearer <service account token>", trusting the CA in
// OCI_KUBERNETES_SERVICE_ACCOUNT_CERT_PATH, and reads a body that is a JSON string holding the
// base64 of {"token": "ST$<session token>"}. The port is fixed in the SDK; only the host varies.
//
// StartProxymux serves that endpoint over HTTPS with its own CA on a random loopback address
// 127.x.y.z (Linux routes all of 127/8 to the loopback interface), so test packages running in
// parallel do not collide on the port. It checks that the bearer token is a JWT signed (RS256)
// by one of ProxymuxOptions.ServiceAccountKeys, the public keys of the cluster's service account
// issuer, unexpired by the server's clock, with the subject
// system:serviceaccount:<namespace>:<name>; anything else answers 401. A real OKE cluster checks
// the token with its API server and may refuse accounts by policy; which status it sends for
// which refusal is assumed. The session token's principal is PrincipalWorkload
// "namespace/name".

// ProxymuxPort is the port the SDK calls OKE's workload identity endpoint on
// (resource_principal_key_provider.go, KubernetesProxymuxServicePort).
const ProxymuxPort = 12250

// ProxymuxOp is the operation name the endpoint's calls are counted under in Calls.
const ProxymuxOp = "ResourcePrincipalSessionToken"

// ProxymuxOptions configure StartProxymux.
type ProxymuxOptions struct {
	// ServiceAccountKeys are the public keys that sign the cluster's service account tokens
	// (kube-apiserver's --service-account-key-file). Without any, every token is refused.
	ServiceAccountKeys []*rsa.PublicKey
}

// Proxymux is a running OKE workload identity endpoint. Close it when done.
type Proxymux struct {
	// Host is its address, without the port: the value of KUBERNETES_SERVICE_HOST for the SDK.
	Host string
	// CACertPEM is the certificate to trust, the file OCI_KUBERNETES_SERVICE_ACCOUNT_CERT_PATH
	// names for the SDK.
	CACertPEM []byte

	srv *http.Server
}

// Environment returns the variables the SDK's OKE workload identity provider reads to reach the
// endpoint (it reads them from the process environment only): caFile must hold CACertPEM, and
// region is the region its clients call.
func (p *Proxymux) Environment(caFile, region string) map[string]string {
	return map[string]string{
		"KUBERNETES_SERVICE_HOST":                  p.Host,
		"OCI_KUBERNETES_SERVICE_ACCOUNT_CERT_PATH": caFile,
		"OCI_RESOURCE_PRINCIPAL_VERSION":           "2.2",
		"OCI_RESOURCE_PRINCIPAL_REGION":            region,
	}
}

// Close stops the endpoint.
func (p *Proxymux) Close() { _ = p.srv.Close() }

// StartProxymux starts OKE's workload identity endpoint for this server's tenancy on
// https://127.x.y.z:12250 (random x, y, z). It returns an error when no such address can be
// bound, e.g. on a system that does not route 127/8 to the loopback interface.
func (s *Server) StartProxymux(opts ProxymuxOptions) (*Proxymux, error) {
	var ln net.Listener
	var ip net.IP
	var lastErr error
	for range 20 {
		b := make([]byte, 3)
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
		ip = net.IPv4(127, b[0]|1, b[1], b[2]|1) // never 127.0.0.x
		l, err := net.Listen("tcp", net.JoinHostPort(ip.String(), fmt.Sprint(ProxymuxPort)))
		if err == nil {
			ln = l
			break
		}
		lastErr = err
	}
	if ln == nil {
		return nil, fmt.Errorf("ocitest: bind OKE workload identity endpoint on a 127.x.y.z address, port %d: %w", ProxymuxPort, lastErr)
	}
	cert, caPEM, err := newServerCertificate(ip)
	if err != nil {
		ln.Close()
		return nil, err
	}
	mux := http.NewServeMux()
	rt := route{op: ProxymuxOp, auth: authNone} // authenticated by the bearer token
	mux.HandleFunc("POST /resourcePrincipalSessionTokens", func(w http.ResponseWriter, r *http.Request) {
		s.ctl.serve(rt, w, r, func(w http.ResponseWriter, r *http.Request) { s.issueWorkloadToken(w, r, opts.ServiceAccountKeys) })
	})
	srv := &http.Server{Handler: mux, TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}}
	go func() { _ = srv.ServeTLS(ln, "", "") }()
	return &Proxymux{Host: ip.String(), CACertPEM: caPEM, srv: srv}, nil
}

func (s *Server) issueWorkloadToken(w http.ResponseWriter, r *http.Request, keys []*rsa.PublicKey) {
	bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		writeError(w, r, http.StatusUnauthorized, "NotAuthenticated", "a service account token is required (Authorization: Bearer)")
		return
	}
	ns, sa, err := s.checkServiceAccountToken(bearer, keys)
	if err != nil {
		writeError(w, r, http.StatusUnauthorized, "NotAuthenticated", "service account token: "+err.Error())
		return
	}
	var body struct {
		PodKey string `json:"podKey"`
	}
	if !readJSON(w, r, &body) {
		return
	}
	pub, err := parsePublicKey(body.PodKey)
	if err != nil {
		writeError(w, r, http.StatusBadRequest, "InvalidParameter", "podKey: "+err.Error())
		return
	}
	token, err := s.sessions.issue(WorkloadPrincipal(ns, sa), pub, "workload")
	if err != nil {
		writeError(w, r, http.StatusInternalServerError, "InternalError", err.Error())
		return
	}
	inner, err := json.Marshal(map[string]string{"token": "ST$" + token})
	if err != nil {
		writeError(w, r, http.StatusInternalServerError, "InternalError", err.Error())
		return
	}
	// A JSON string of the base64 of the JSON, with nothing after it: the SDK drops the first and
	// last byte of the body and decodes the rest.
	setCommonHeaders(w, r)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(`"` + base64.StdEncoding.EncodeToString(inner) + `"`))
}

// checkServiceAccountToken verifies a Kubernetes service account token and returns its
// namespace and name.
func (s *Server) checkServiceAccountToken(token string, keys []*rsa.PublicKey) (ns, sa string, err error) {
	var claims struct {
		Sub string   `json:"sub"`
		Exp *float64 `json:"exp"`
	}
	verified := false
	for _, k := range keys {
		if verifyJWT(k, token, &claims) == nil {
			verified = true
			break
		}
	}
	switch {
	case !verified:
		return "", "", errors.New("not signed by the cluster's service account issuer")
	case claims.Exp == nil || !s.now().Before(timeOf(*claims.Exp)):
		return "", "", errors.New("expired")
	}
	parts := strings.Split(claims.Sub, ":")
	if len(parts) != 4 || parts[0] != "system" || parts[1] != "serviceaccount" || parts[2] == "" || parts[3] == "" {
		return "", "", fmt.Errorf("subject %q is not a service account", claims.Sub)
	}
	return parts[2], parts[3], nil
}

// ServiceAccountKey parses the PEM public key of a cluster's service account issuer (the file
// kube-apiserver's --service-account-key-file names), for ProxymuxOptions.
func ServiceAccountKey(pemData []byte) (*rsa.PublicKey, error) {
	return parsePublicKey(string(pemData))
}

// timeOf is a JWT NumericDate as a time.
func timeOf(seconds float64) time.Time { return time.Unix(int64(seconds), 0) }
