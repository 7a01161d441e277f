// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package testcluster

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// kubeconfigFields is what a written kubeconfig must carry over.
type kubeconfigFields struct {
	Host, ServerName, BearerToken, Username, Password string
	CAData, CertData, KeyData                         []byte
	Insecure                                          bool
	Impersonate                                       rest.ImpersonationConfig
}

func fieldsOf(cfg *rest.Config) kubeconfigFields {
	return kubeconfigFields{
		Host: cfg.Host, ServerName: cfg.ServerName, BearerToken: cfg.BearerToken,
		Username: cfg.Username, Password: cfg.Password,
		CAData: cfg.CAData, CertData: cfg.CertData, KeyData: cfg.KeyData,
		Insecure: cfg.Insecure, Impersonate: cfg.Impersonate,
	}
}

func TestWriteKubeconfigRoundTripsThroughClientcmd(t *testing.T) {
	admin := &rest.Config{
		Host:            "https://127.0.0.1:6443",
		BearerToken:     "admin-token",
		TLSClientConfig: rest.TLSClientConfig{CAData: []byte("ca"), ServerName: "kubernetes"},
	}
	tests := []struct {
		name string
		cfg  *rest.Config
		want *rest.Config
	}{
		{name: "nil means admin", cfg: nil, want: admin},
		{name: "bearer token", cfg: &rest.Config{
			Host:            "https://127.0.0.1:6443",
			BearerToken:     "sa-token",
			TLSClientConfig: rest.TLSClientConfig{CAData: []byte("ca")},
		}},
		{name: "client certificate and impersonation", cfg: &rest.Config{
			Host:            "https://127.0.0.1:6443",
			TLSClientConfig: rest.TLSClientConfig{CAData: []byte("ca"), CertData: []byte("cert"), KeyData: []byte("key")},
			Impersonate:     rest.ImpersonationConfig{UserName: "bob", Groups: []string{"g1", "g2"}},
		}},
		{name: "basic auth without verification", cfg: &rest.Config{
			Host:            "https://127.0.0.1:6443",
			Username:        "u",
			Password:        "p",
			TLSClientConfig: rest.TLSClientConfig{Insecure: true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Cluster{admin: admin}
			path := filepath.Join(t.TempDir(), "kubeconfig")
			if err := c.WriteKubeconfig(path, tt.cfg); err != nil {
				t.Fatal(err)
			}
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := info.Mode().Perm(); got != 0o600 {
				t.Errorf("kubeconfig mode = %o, want 600 (it holds credentials)", got)
			}
			loaded, err := clientcmd.BuildConfigFromFlags("", path)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if want == nil {
				want = tt.cfg
			}
			if diff := cmp.Diff(fieldsOf(want), fieldsOf(loaded), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("loaded kubeconfig (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWriteKubeconfigRefusesWhatItCannotExpress(t *testing.T) {
	tests := []struct {
		name string
		cfg  *rest.Config
	}{
		{name: "no host", cfg: &rest.Config{BearerToken: "t"}},
		{name: "custom transport", cfg: &rest.Config{Host: "https://h", Transport: http.DefaultTransport}},
		{name: "exec plugin", cfg: &rest.Config{Host: "https://h", ExecProvider: &clientcmdapi.ExecConfig{Command: "get-token"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Cluster{}
			path := filepath.Join(t.TempDir(), "kubeconfig")
			if err := c.WriteKubeconfig(path, tt.cfg); err == nil {
				t.Error("WriteKubeconfig succeeded, want an error")
			}
			if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a kubeconfig was written anyway (stat: %v)", err)
			}
		})
	}
}
