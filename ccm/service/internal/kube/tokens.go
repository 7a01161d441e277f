// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package kube

import (
	"context"
	"fmt"
	"sync"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TokenLifetime is how long a token ServiceAccountTokens requests lasts. The upstream CCM asks
// for six hours (load_balancer.go, serviceAccountTokenExpiry); an hour bounds what a leaked
// token allows, and the API server accepts anything from ten minutes.
const TokenLifetime = time.Hour

// ServiceAccountTokens mints tokens for ServiceAccounts with the TokenRequest API and keeps
// one per ServiceAccount until half its lifetime has passed, so a caller asking often (the OCI
// SDK asks at every session-token renewal) costs one request per half hour per ServiceAccount,
// and never gets a token about to expire. Safe for concurrent use.
type ServiceAccountTokens struct {
	client func() kubernetes.Interface // nil until the cloud provider is initialised
	now    func() time.Time

	mu     sync.Mutex
	tokens map[string]mintedToken // "namespace/name" → its token
}

type mintedToken struct {
	token   string
	renewAt time.Time
}

// NewServiceAccountTokens returns a token source calling the API server through client, which
// is read at each request (the cloud provider's client arrives after it is built).
func NewServiceAccountTokens(client func() kubernetes.Interface) *ServiceAccountTokens {
	return &ServiceAccountTokens{client: client, now: time.Now, tokens: map[string]mintedToken{}}
}

// Token returns a token for the ServiceAccount namespace/name, minting one when there is none
// or the one kept is past half its lifetime. A ServiceAccount that does not exist is the API
// server's NotFound error.
func (t *ServiceAccountTokens) Token(ctx context.Context, namespace, name string) (string, error) {
	key := namespace + "/" + name
	t.mu.Lock()
	defer t.mu.Unlock() // one request at a time: a burst of asks for one account makes one token
	if m, ok := t.tokens[key]; ok && t.now().Before(m.renewAt) {
		return m.token, nil
	}
	client := t.client()
	if client == nil {
		return "", fmt.Errorf("no Kubernetes client to request a token for ServiceAccount %s", key)
	}
	seconds := int64(TokenLifetime / time.Second)
	asked := t.now()
	tr, err := client.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &seconds}}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("request a token for ServiceAccount %s: %w", key, err)
	}
	expires := tr.Status.ExpirationTimestamp.Time
	if expires.IsZero() {
		expires = asked.Add(TokenLifetime)
	}
	t.tokens[key] = mintedToken{token: tr.Status.Token, renewAt: asked.Add(expires.Sub(asked) / 2)}
	return tr.Status.Token, nil
}
