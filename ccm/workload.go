// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ccm

import (
	"os"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/common/auth"
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
