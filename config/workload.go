// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import (
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/common/auth"
)

// The environment variables of self-managed workload identity (useWorkloadIdentity: true), named
// as the upstream CCM names them (v1.35, pkg/cloudprovider/providers/oci/config/config.go,
// NewWorkloadIdentityConfigurationProvider), so a deployment migrated from it changes nothing.
// WorkloadIdentityFromEnvironment reads them.
const (
	EnvWorkloadIdentityDomainURL            = "OCI_WORKLOAD_IDENTITY_DOMAIN_URL"
	EnvWorkloadIdentityClientID             = "OCI_WORKLOAD_IDENTITY_CLIENT_ID"
	EnvWorkloadIdentityClientSecret         = "OCI_WORKLOAD_IDENTITY_CLIENT_SECRET"
	EnvWorkloadIdentityResourceType         = "OCI_WORKLOAD_IDENTITY_RESOURCE_TYPE"
	EnvWorkloadIdentitySubjectTokenType     = "OCI_WORKLOAD_IDENTITY_SUBJECT_TOKEN_TYPE"
	EnvWorkloadIdentityRequestedTokenType   = "OCI_WORKLOAD_IDENTITY_REQUESTED_TOKEN_TYPE"
	EnvWorkloadIdentityTokenPath            = "OCI_WORKLOAD_IDENTITY_TOKEN_PATH"
	EnvWorkloadIdentityRPSTExp              = "OCI_WORKLOAD_IDENTITY_RPST_EXP"
	EnvWorkloadIdentityPublicKey            = "OCI_WORKLOAD_IDENTITY_PUBLIC_KEY"
	EnvWorkloadIdentityUseInstancePrincipal = "OCI_WORKLOAD_IDENTITY_USE_INSTANCE_PRINCIPAL_FOR_TOKEN_EXCHANGE"
)

// The defaults upstream applies to the token types (config.go, defaultRequestedTokenType and
// defaultSubjectTokenType).
const (
	DefaultRequestedTokenType = "urn:oci:token-type:oci-rpst"
	DefaultSubjectTokenType   = "jwt"
)

// WorkloadIdentity is how the CCM exchanges its own Kubernetes service account token for an OCI
// session token at an identity domain (useWorkloadIdentity: true). It is not read from
// cloud-provider.yaml: the upstream CCM takes it from environment variables, and so does the
// binary (WorkloadIdentityFromEnvironment). A library user sets the fields directly.
type WorkloadIdentity struct {
	// DomainURL is the identity domain's base URL, e.g. https://idcs-….identity.oraclecloud.com
	// (OCI_WORKLOAD_IDENTITY_DOMAIN_URL). The SDK posts the exchange to DomainURL +
	// "/oauth2/v1/token", so it has no path.
	DomainURL string
	// ClientID and ClientSecret are the OAuth client of the identity domain's confidential
	// application that may exchange tokens (OCI_WORKLOAD_IDENTITY_CLIENT_ID, _CLIENT_SECRET).
	// Required unless UseInstancePrincipal.
	ClientID     string
	ClientSecret Secret
	// ResourceType is the res_type of the session token requested, as configured on the
	// identity propagation trust (OCI_WORKLOAD_IDENTITY_RESOURCE_TYPE). Required.
	ResourceType string
	// SubjectTokenType is the type of the token exchanged (OCI_WORKLOAD_IDENTITY_SUBJECT_TOKEN_TYPE;
	// default DefaultSubjectTokenType).
	SubjectTokenType string
	// RequestedTokenType is the type of token asked for
	// (OCI_WORKLOAD_IDENTITY_REQUESTED_TOKEN_TYPE; default DefaultRequestedTokenType).
	RequestedTokenType string
	// TokenPath is the file holding the service account token to exchange, read again at every
	// renewal because the kubelet rotates it (OCI_WORKLOAD_IDENTITY_TOKEN_PATH; default the pod's
	// projected token, auth.KubernetesServiceAccountTokenPath).
	TokenPath string
	// RPSTExp is passed to the identity domain as rpst_exp unchanged
	// (OCI_WORKLOAD_IDENTITY_RPST_EXP; default none, the domain's own lifetime).
	RPSTExp string
	// PublicKey is OCI_WORKLOAD_IDENTITY_PUBLIC_KEY, accepted because upstream reads it. It has no
	// effect: the SDK (v65.130.0, common/auth/federation_client.go, newTokenExchangeToken)
	// replaces public_key with the public half of the session key it generates.
	PublicKey string
	// UseInstancePrincipal signs the exchange as the instance (instance principals) instead of
	// with ClientID and ClientSecret
	// (OCI_WORKLOAD_IDENTITY_USE_INSTANCE_PRINCIPAL_FOR_TOKEN_EXCHANGE=true).
	UseInstancePrincipal bool
}

// WorkloadIdentityFromEnvironment reads the upstream CCM's workload identity variables with
// getenv (os.Getenv in the binary). Values are trimmed of spaces, as upstream does. The only
// value it can refuse is OCI_WORKLOAD_IDENTITY_USE_INSTANCE_PRINCIPAL_FOR_TOKEN_EXCHANGE, which
// must be true, false or unset; everything else is checked by Validate (ccm.New runs it).
func WorkloadIdentityFromEnvironment(getenv func(string) string) (WorkloadIdentity, error) {
	get := func(name string) string { return strings.TrimSpace(getenv(name)) }
	w := WorkloadIdentity{
		DomainURL:          get(EnvWorkloadIdentityDomainURL),
		ClientID:           get(EnvWorkloadIdentityClientID),
		ClientSecret:       Secret(get(EnvWorkloadIdentityClientSecret)),
		ResourceType:       get(EnvWorkloadIdentityResourceType),
		SubjectTokenType:   get(EnvWorkloadIdentitySubjectTokenType),
		RequestedTokenType: get(EnvWorkloadIdentityRequestedTokenType),
		TokenPath:          get(EnvWorkloadIdentityTokenPath),
		RPSTExp:            get(EnvWorkloadIdentityRPSTExp),
		PublicKey:          get(EnvWorkloadIdentityPublicKey),
	}
	// Upstream takes anything but "true" for false; a typo such as "yes" would then silently
	// switch to client credentials, so only the two words are accepted.
	switch v := get(EnvWorkloadIdentityUseInstancePrincipal); strings.ToLower(v) {
	case "true":
		w.UseInstancePrincipal = true
	case "false", "":
	default:
		return WorkloadIdentity{}, fmt.Errorf("environment variable %s=%q: must be true or false",
			EnvWorkloadIdentityUseInstancePrincipal, v)
	}
	return w, nil
}

// withDefaults fills the token types and token path as upstream does.
func (w WorkloadIdentity) withDefaults() WorkloadIdentity {
	if w.SubjectTokenType == "" {
		w.SubjectTokenType = DefaultSubjectTokenType
	}
	if w.RequestedTokenType == "" {
		w.RequestedTokenType = DefaultRequestedTokenType
	}
	if w.TokenPath == "" {
		w.TokenPath = auth.KubernetesServiceAccountTokenPath
	}
	return w
}

// validateWorkloadIdentity checks what the token exchange needs. Fields are named by their
// environment variables, the only place an operator sets them.
func (c *Config) validateWorkloadIdentity(v *validator) {
	const ip = "useInstancePrincipals"
	if c.UseInstancePrincipals {
		v.add("useWorkloadIdentity", "true", "not allowed together with "+ip+": true; choose one way to authenticate")
	}
	v.noUserKey(&c.Auth, "not allowed with useWorkloadIdentity: true; the CCM signs with the session key of the exchanged token")
	if v.fileOnly {
		return // the rest comes from the environment, after the file is loaded
	}

	w := c.WorkloadIdentity.withDefaults()
	switch u, err := url.Parse(w.DomainURL); {
	case w.DomainURL == "":
		v.add(EnvWorkloadIdentityDomainURL, "", "required with useWorkloadIdentity: true: the identity domain's URL, e.g. https://idcs-….identity.oraclecloud.com")
	case err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "":
		v.add(EnvWorkloadIdentityDomainURL, w.DomainURL, "must be an https URL such as https://idcs-….identity.oraclecloud.com")
	case u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "":
		v.add(EnvWorkloadIdentityDomainURL, u.Redacted(), "must have no path, query or fragment (not even a trailing slash): "+
			"the SDK appends /oauth2/v1/token and refuses any other")
	}
	if w.ResourceType == "" {
		v.add(EnvWorkloadIdentityResourceType, "", "required with useWorkloadIdentity: true: the res_type of the identity propagation trust")
	}
	if w.UseInstancePrincipal {
		return
	}
	if w.ClientID == "" {
		v.add(EnvWorkloadIdentityClientID, "", "required with useWorkloadIdentity: true unless "+EnvWorkloadIdentityUseInstancePrincipal+"=true")
	}
	if w.ClientSecret == "" {
		v.add(EnvWorkloadIdentityClientSecret, "", "required with useWorkloadIdentity: true unless "+EnvWorkloadIdentityUseInstancePrincipal+"=true")
	}
}

// workloadIdentityProvider builds the SDK's token-exchange provider. It makes no call: the SDK
// exchanges the token on the first signed request and again whenever the session token is
// within five minutes of its expiry (common/auth/jwt.go, bufferTimeBeforeTokenExpiration).
func (c *Config) workloadIdentityProvider(newInstancePrincipal instancePrincipalFunc) (common.ConfigurationProvider, error) {
	w := c.WorkloadIdentity.withDefaults()
	b := auth.TokenExchangeBuilder{
		DomainUrl:          w.DomainURL,
		Region:             c.Auth.Region,
		RequestedTokenType: w.RequestedTokenType,
		ResType:            w.ResourceType,
		SubjectTokenType:   w.SubjectTokenType,
		RpstExp:            w.RPSTExp,
		PublicKey:          w.PublicKey,
	}
	if w.UseInstancePrincipal {
		p, err := newInstancePrincipal(common.Region(c.Auth.Region))
		if err != nil {
			return nil, fmt.Errorf("workload identity: instance principals for the token exchange: %w", err)
		}
		b.InstancePrincipalProvider = p
	} else {
		b.ClientId, b.ClientSecret = w.ClientID, w.ClientSecret.Reveal()
	}
	p, err := auth.TokenExchangeConfigurationProviderFromIssuer(tokenFile(w.TokenPath), b)
	if err != nil {
		return nil, fmt.Errorf("workload identity: %w", err)
	}
	return p, nil
}

// tokenFile is a token issuer reading the service account token from a file at every call, so
// a token the kubelet rotated is picked up.
type tokenFile string

// GetToken returns the file's content without surrounding white space.
func (f tokenFile) GetToken() (string, error) {
	b, err := os.ReadFile(string(f))
	if err != nil {
		return "", fmt.Errorf("read the service account token (%s): %w", EnvWorkloadIdentityTokenPath, err)
	}
	return strings.TrimSpace(string(b)), nil
}
