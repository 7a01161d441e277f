// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package service

import (
	"context"
	"time"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/common/auth"
	"k8s.io/client-go/kubernetes"

	"github.com/oci-ccm/oci-ccm/ccm/service/internal/kube"
	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/ociclient"
)

// tokenTimeout bounds one TokenRequest made for the SDK, which asks without a context.
const tokenTimeout = 30 * time.Second

// workloadClients returns lb's Options.WorkloadClients: the clients of a ServiceAccount's OKE
// workload identity, signing with session tokens the SDK gets for the ServiceAccount's tokens,
// which are minted with the TokenRequest API and renewed before they expire
// (kube.ServiceAccountTokens). lb keeps the clients per ServiceAccount; they share client's rate
// limiter and metrics (ociclient.Client.LoadBalancersAs). Building them makes the first session
// token, so a ServiceAccount that does not exist fails the Service's sync before any OCI call.
func workloadClients(client *ociclient.Client, kubeClient func() kubernetes.Interface,
	provider func(auth.ServiceAccountTokenProvider) (common.ConfigurationProvider, error)) func(context.Context, string, string) (*engine.WorkloadClients, error) {
	tokens := kube.NewServiceAccountTokens(kubeClient)
	return func(_ context.Context, namespace, name string) (*engine.WorkloadClients, error) {
		p, err := provider(accountTokens{tokens: tokens, namespace: namespace, name: name})
		if err != nil {
			return nil, err
		}
		lbs, nlbs, err := client.LoadBalancersAs(p)
		if err != nil {
			return nil, err
		}
		return &engine.WorkloadClients{LoadBalancers: lbs, NetworkLoadBalancers: nlbs}, nil
	}
}

// accountTokens is the SDK's source of one ServiceAccount's tokens.
type accountTokens struct {
	tokens          *kube.ServiceAccountTokens
	namespace, name string
}

// ServiceAccountToken returns a current token for the ServiceAccount.
func (a accountTokens) ServiceAccountToken() (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), tokenTimeout)
	defer cancel()
	return a.tokens.Token(ctx, a.namespace, a.name)
}
