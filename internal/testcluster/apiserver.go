// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package testcluster

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/oci-ccm/oci-ccm/internal/proc"
)

// serviceAccountIssuer is the issuer of service-account tokens; the
// TokenRequest API needs one, and its value is only compared with itself.
const serviceAccountIssuer = "https://kubernetes.default.svc.cluster.local"

// startAPIServer writes the credentials kube-apiserver needs, starts it on
// a free loopback port against etcdURL, and waits until /readyz passes for
// the admin user over TLS verified against the server's own certificate.
func (c *Cluster) startAPIServer(ctx, readyCtx context.Context, binary, etcdURL string) error {
	saKey := filepath.Join(c.dir, "sa.key")
	saPub := filepath.Join(c.dir, "sa.pub")
	if err := writeServiceAccountKeys(saKey, saPub); err != nil {
		return err
	}
	token, err := newToken()
	if err != nil {
		return err
	}
	tokens, err := tokenFile(token, adminUser, adminUID, adminGroup)
	if err != nil {
		return fmt.Errorf("render token file: %w", err)
	}
	tokensPath := filepath.Join(c.dir, "tokens.csv")
	if err := os.WriteFile(tokensPath, tokens, 0o600); err != nil {
		return fmt.Errorf("write token file: %w", err)
	}

	admin, err := retryStart(c, readyCtx, func() (*rest.Config, error) {
		ports, err := freePorts(1)
		if err != nil {
			return nil, err
		}
		// A fresh cert dir per attempt, so the certificate read below is
		// the one this process serves.
		certDir := filepath.Join(c.dir, "pki")
		if err := os.RemoveAll(certDir); err != nil {
			return nil, fmt.Errorf("clear cert dir: %w", err)
		}
		args := []string{
			"--etcd-servers=" + etcdURL,
			"--bind-address=127.0.0.1",
			"--advertise-address=127.0.0.1",
			"--secure-port=" + strconv.Itoa(ports[0]),
			// The default reconciler writes the advertise address into the
			// kubernetes Endpoints, which 1.37 refuses for loopback.
			"--endpoint-reconciler-type=none",
			"--cert-dir=" + certDir,
			"--service-account-issuer=" + serviceAccountIssuer,
			"--service-account-key-file=" + saPub,
			"--service-account-signing-key-file=" + saKey,
			"--service-cluster-ip-range=10.0.0.0/24",
			"--authorization-mode=RBAC",
			"--token-auth-file=" + tokensPath,
		}
		p, err := proc.Start(ctx, "kube-apiserver", binary, args, os.Environ(), filepath.Join(c.dir, "kube-apiserver.log"), nil)
		if err != nil {
			return nil, err
		}
		c.apiserver = p

		cfg := &rest.Config{
			Host:        "https://127.0.0.1:" + strconv.Itoa(ports[0]),
			BearerToken: token,
			UserAgent:   "testcluster",
		}
		certFile := filepath.Join(certDir, "apiserver.crt")
		err = pollReady(readyCtx, p, func(ctx context.Context) error {
			return apiserverReady(ctx, cfg, certFile)
		})
		if err != nil {
			p.Stop(stopGrace)
			return nil, err
		}
		return cfg, nil
	})
	if err != nil {
		return err
	}
	c.admin = admin
	return nil
}

// apiserverReady loads the serving certificate that kube-apiserver
// generated into its cert dir (a certificate followed by the CA that signed
// it) into cfg and asks /readyz with cfg's credentials.
//
// The certificate is re-read on every probe: the server writes it with a
// plain write, so an early read may see a truncated chain.
func apiserverReady(ctx context.Context, cfg *rest.Config, certFile string) error {
	ca, err := os.ReadFile(certFile)
	if err != nil {
		return fmt.Errorf("read serving certificate: %w", err)
	}
	if !bytes.Equal(ca, cfg.CAData) {
		if !x509.NewCertPool().AppendCertsFromPEM(ca) {
			return errors.New("serving certificate has no complete PEM certificate yet")
		}
		cfg.CAData = ca
	}
	probeCfg := rest.CopyConfig(cfg)
	probeCfg.Timeout = probeTimeout
	client, err := discovery.NewDiscoveryClientForConfig(probeCfg)
	if err != nil {
		return fmt.Errorf("build readiness client: %w", err)
	}
	if _, err := client.RESTClient().Get().AbsPath("/readyz").DoRaw(ctx); err != nil {
		return fmt.Errorf("kube-apiserver /readyz: %w", err)
	}
	return nil
}
