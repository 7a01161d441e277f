// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ccm

import (
	"context"
	"os"
	"time"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/common/auth"
	"k8s.io/client-go/kubernetes"

	"github.com/oci-ccm/oci-ccm/internal/kube"
	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/ociclient"
)

// Environment reads environment variables (Options.Environment).
type Environment interface {
	// Getenv returns the variable's value, "" when unset.
	Getenv(key string) string
}

// OSEnvironment is the process environment.
type OSEnvironment struct{}

// Getenv is os.Getenv.
func (OSEnvironment) Getenv(key string) string { return os.Getenv(key) }

// WorkloadIdentityProvider builds the OCI configuration provider of a ServiceAccount's workload
// identity from a source of its tokens (Options.WorkloadIdentity).
type WorkloadIdentityProvider interface {
	Provider(tokens auth.ServiceAccountTokenProvider) (common.ConfigurationProvider, error)
}

// OKEWorkloadIdentity is the OCI SDK's provider for OKE workload identity:
// auth.OkeWorkloadIdentityConfigurationProviderWithServiceAccountTokenProvider, as the upstream
// CCM (pkg/oci/client/client.go, LoadBalancer) uses. It reads, as the SDK does,
// KUBERNETES_SERVICE_HOST, OCI_RESOURCE_PRINCIPAL_VERSION, OCI_RESOURCE_PRINCIPAL_REGION and
// OCI_KUBERNETES_SERVICE_ACCOUNT_CERT_PATH from the process environment.
type OKEWorkloadIdentity struct{}

// Provider builds the SDK's OKE workload identity provider for tokens.
func (OKEWorkloadIdentity) Provider(tokens auth.ServiceAccountTokenProvider) (common.ConfigurationProvider, error) {
	return auth.OkeWorkloadIdentityConfigurationProviderWithServiceAccountTokenProvider(tokens)
}

// tokenTimeout bounds one TokenRequest made for the SDK, which asks without a context.
const tokenTimeout = 30 * time.Second

// workloadClients returns lb's Options.WorkloadClients: the clients of a ServiceAccount's OKE
// workload identity, signing with session tokens the SDK gets for the ServiceAccount's tokens,
// which are minted with the TokenRequest API and renewed before they expire
// (kube.ServiceAccountTokens). lb keeps the clients per ServiceAccount; they share client's rate
// limiter and metrics (ociclient.Client.LoadBalancersAs). Building them makes the first session
// token, so a ServiceAccount that does not exist fails the Service's sync before any OCI call.
func workloadClients(client *ociclient.Client, kubeClient func() kubernetes.Interface,
	provider func(auth.ServiceAccountTokenProvider) (common.ConfigurationProvider, error)) func(context.Context, string, string) (*lb.WorkloadClients, error) {
	tokens := kube.NewServiceAccountTokens(kubeClient)
	return func(_ context.Context, namespace, name string) (*lb.WorkloadClients, error) {
		p, err := provider(accountTokens{tokens: tokens, namespace: namespace, name: name})
		if err != nil {
			return nil, err
		}
		lbs, nlbs, err := client.LoadBalancersAs(p)
		if err != nil {
			return nil, err
		}
		return &lb.WorkloadClients{LoadBalancers: lbs, NetworkLoadBalancers: nlbs}, nil
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
