// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package testcluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// ServiceAccountConfig returns a client configuration that authenticates
// as the ServiceAccount namespace/name with a token from the TokenRequest
// API, so requests made with it are authorized by RBAC exactly as a
// controller running under that account would be. The namespace and the
// ServiceAccount are created when missing. The token is valid for the
// server's default of one hour.
func (c *Cluster) ServiceAccountConfig(ctx context.Context, namespace, name string) (*rest.Config, error) {
	client, err := c.AdminClient()
	if err != nil {
		return nil, err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
	if _, err := client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("create namespace %s: %w", namespace, err)
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	if _, err := client.CoreV1().ServiceAccounts(namespace).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("create service account %s/%s: %w", namespace, name, err)
	}
	tr, err := client.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("request token for %s/%s: %w", namespace, name, err)
	}
	if tr.Status.Token == "" {
		return nil, fmt.Errorf("request token for %s/%s: the server returned an empty token", namespace, name)
	}
	cfg := rest.AnonymousClientConfig(c.AdminConfig())
	cfg.BearerToken = tr.Status.Token
	return cfg, nil
}

// WriteKubeconfig writes cfg (the admin configuration when cfg is nil) as a
// kubeconfig file with mode 0600, for running a binary against the cluster
// with --kubeconfig. It carries what a kubeconfig can express: server, TLS
// trust, bearer token, basic auth, client certificates and impersonation.
func (c *Cluster) WriteKubeconfig(path string, cfg *rest.Config) error {
	if cfg == nil {
		cfg = c.AdminConfig()
	}
	kc, err := kubeconfigFor(cfg)
	if err != nil {
		return err
	}
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		return fmt.Errorf("write kubeconfig %s: %w", path, err)
	}
	return nil
}

// kubeconfigName names the single cluster, user and context in a written
// kubeconfig.
const kubeconfigName = "testcluster"

// kubeconfigFor converts cfg into a kubeconfig with one cluster, user and
// context. Settings that only exist in code (custom transports, dialers,
// exec plugins) cannot be written and are refused rather than dropped.
func kubeconfigFor(cfg *rest.Config) (*clientcmdapi.Config, error) {
	if cfg.Host == "" {
		return nil, errors.New("kubeconfig: the configuration has no host")
	}
	if cfg.Transport != nil || cfg.WrapTransport != nil || cfg.Dial != nil || cfg.ExecProvider != nil || cfg.AuthProvider != nil {
		return nil, errors.New("kubeconfig: the configuration uses settings a kubeconfig cannot express")
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters[kubeconfigName] = &clientcmdapi.Cluster{
		Server:                   cfg.Host,
		TLSServerName:            cfg.ServerName,
		InsecureSkipTLSVerify:    cfg.Insecure,
		CertificateAuthority:     cfg.CAFile,
		CertificateAuthorityData: cfg.CAData,
	}
	kc.AuthInfos[kubeconfigName] = &clientcmdapi.AuthInfo{
		ClientCertificate:     cfg.CertFile,
		ClientCertificateData: cfg.CertData,
		ClientKey:             cfg.KeyFile,
		ClientKeyData:         cfg.KeyData,
		Token:                 cfg.BearerToken,
		TokenFile:             cfg.BearerTokenFile,
		Username:              cfg.Username,
		Password:              cfg.Password,
		Impersonate:           cfg.Impersonate.UserName,
		ImpersonateUID:        cfg.Impersonate.UID,
		ImpersonateGroups:     cfg.Impersonate.Groups,
		ImpersonateUserExtra:  cfg.Impersonate.Extra,
	}
	kc.Contexts[kubeconfigName] = &clientcmdapi.Context{Cluster: kubeconfigName, AuthInfo: kubeconfigName}
	kc.CurrentContext = kubeconfigName
	return kc, nil
}

// ServiceAccountKeyPEM returns the PEM public key kube-apiserver verifies service account
// tokens with (its --service-account-key-file), for a test that checks such tokens itself.
func (c *Cluster) ServiceAccountKeyPEM() ([]byte, error) {
	return os.ReadFile(filepath.Join(c.dir, "sa.pub"))
}

// AdminClient is a client of the cluster with the admin configuration (AdminConfig).
func (c *Cluster) AdminClient() (kubernetes.Interface, error) {
	client, err := kubernetes.NewForConfig(c.AdminConfig())
	if err != nil {
		return nil, fmt.Errorf("build admin client: %w", err)
	}
	return client, nil
}
