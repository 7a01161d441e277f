// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package webhook

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// The file names in the certificate directory: those of a kubernetes.io/tls Secret mounted as a
// volume (cert-manager writes the same), so the Secret can be mounted as it is.
const (
	CertFile = "tls.crt"
	KeyFile  = "tls.key"
)

// Server is the webhook's HTTPS server.
type Server struct {
	certs *certLoader
	srv   *http.Server
	ln    net.Listener
}

// Listen binds addr and reads the serving certificate and key from certDir (CertFile, KeyFile)
// at once, so a missing certificate fails the start rather than every API server call. The files
// are read again when they change: a rotated certificate is served without a restart.
func Listen(addr, certDir string, h http.Handler) (*Server, error) {
	certs := &certLoader{cert: filepath.Join(certDir, CertFile), key: filepath.Join(certDir, KeyFile)}
	if _, err := certs.get(nil); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("webhook: listen on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle(Path, h)
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		TLSConfig:         &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: certs.get},
	}
	return &Server{certs: certs, srv: srv, ln: ln}, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Serve serves until ctx ends, then shuts down, letting requests in flight finish for up to
// five seconds.
func (s *Server) Serve(ctx context.Context) error {
	done := make(chan error, 1)
	go func() { done <- s.srv.ServeTLS(s.ln, "", "") }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		err := s.srv.Shutdown(shutdown)
		if serr := <-done; !errors.Is(serr, http.ErrServerClosed) {
			err = errors.Join(err, serr)
		}
		return err
	}
}

// certLoader serves a certificate and key pair from files, re-reading them when either file's
// modification time changes.
type certLoader struct {
	cert, key string

	mu              sync.Mutex
	loaded          *tls.Certificate
	certMod, keyMod time.Time
}

func (c *certLoader) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	certInfo, err := os.Stat(c.cert)
	if err != nil {
		return nil, fmt.Errorf("webhook: serving certificate: %w", err)
	}
	keyInfo, err := os.Stat(c.key)
	if err != nil {
		return nil, fmt.Errorf("webhook: serving key: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.loaded != nil && certInfo.ModTime().Equal(c.certMod) && keyInfo.ModTime().Equal(c.keyMod) {
		return c.loaded, nil
	}
	pair, err := tls.LoadX509KeyPair(c.cert, c.key)
	if err != nil {
		if c.loaded != nil {
			// Half-written during a rotation: keep serving the previous pair until both files
			// are complete.
			return c.loaded, nil
		}
		return nil, fmt.Errorf("webhook: serving certificate %s and key %s: %w", c.cert, c.key, err)
	}
	c.loaded, c.certMod, c.keyMod = &pair, certInfo.ModTime(), keyInfo.ModTime()
	return c.loaded, nil
}
