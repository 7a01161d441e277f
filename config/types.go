// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package config reads, defaults and validates cloud-provider.yaml, the one file that configures
// oci-ccm, and turns its auth section into an oci-go-sdk configuration provider.
//
// Loading is one call that returns a Config ready to use, or every problem at once as a
// *ValidationError: Open for a file (the binary's form; it also fills a missing region and
// compartment from instance metadata) and Load for a reader (tests, embedding); the option
// WithEnvironment adds what the file cannot hold. A Config built in code instead takes the
// advanced path: SetDefaults, then Validate (or ValidateExceptCredentials when the caller brings
// its own OCI client). Parse, which reads a file without validating it, is for tools that
// report on a file rather than run with it.
package config

// Config is the content of cloud-provider.yaml after parsing and defaulting (Load, Open).
type Config struct {
	// ClusterID is this cluster's identity among every cluster sharing the tenancy's load
	// balancer compartments and subnets. It is written into the ownership tags of every load
	// balancer and the description of every security rule oci-ccm manages, so it must be unique
	// and must never change for the life of the cluster. When empty, --cluster-name is used
	// instead (see ClusterIdentity); one of them must name the cluster.
	ClusterID string `yaml:"clusterID"`
	// AllowDefaultClusterName accepts the framework's default cluster name "kubernetes" as the
	// identity. Only for a cluster already running under that name that shares its subnets and
	// compartment with no other cluster.
	AllowDefaultClusterName bool `yaml:"allowDefaultClusterName"`
	// Auth holds user-principal credentials and the region.
	Auth Auth `yaml:"auth"`
	// UseInstancePrincipals authenticates as the instance the CCM runs on instead of a user.
	UseInstancePrincipals bool `yaml:"useInstancePrincipals"`
	// UseWorkloadIdentity authenticates by exchanging the CCM's Kubernetes service account token
	// for an OCI session token at an identity domain (self-managed workload identity), as the
	// upstream CCM's field of the same name does. WorkloadIdentity says how; auth.region is
	// required and the auth key fields are not allowed.
	UseWorkloadIdentity bool `yaml:"useWorkloadIdentity"`
	// WorkloadIdentity configures the token exchange of UseWorkloadIdentity. It is not part of
	// the file: the upstream CCM reads it from OCI_WORKLOAD_IDENTITY_* environment variables, and
	// the binary does too (WorkloadIdentityFromEnvironment).
	WorkloadIdentity WorkloadIdentity `yaml:"-"`
	// CompartmentID is the compartment load balancers are created in and instances listed from.
	CompartmentID string `yaml:"compartment"`
	// VCNID is the virtual cloud network the cluster's subnets belong to.
	VCNID string `yaml:"vcn"`
	// LoadBalancer configures load balancer and security-list management.
	LoadBalancer LoadBalancer `yaml:"loadBalancer"`
	// RateLimiter configures the client-side limits on calls to OCI.
	RateLimiter RateLimiter `yaml:"rateLimiter"`
	// Endpoint, when its URL is set, points every OCI client at one base URL instead of the
	// regional OCI endpoints. It exists for tests (the in-memory OCI server) and proxies.
	Endpoint Endpoint `yaml:"endpoint,omitempty"`
}

// Auth holds what the SDK needs to sign requests as a user. Region applies to every auth mode.
type Auth struct {
	// Region is the OCI region, e.g. "us-phoenix-1". It is never defaulted: when absent it must
	// be inferred from instance metadata (Open) or validation fails.
	Region string `yaml:"region"`
	// Tenancy is the tenancy OCID of the signing user.
	Tenancy string `yaml:"tenancy"`
	// User is the OCID of the user whose API key signs requests.
	User string `yaml:"user"`
	// Key is the PEM-encoded API signing key, inline. Mutually exclusive with KeyFile.
	Key Secret `yaml:"key"`
	// KeyFile is the path of a file holding the PEM-encoded API signing key.
	KeyFile string `yaml:"keyFile"`
	// Fingerprint is the API key's fingerprint, 16 colon-separated hex bytes.
	Fingerprint string `yaml:"fingerprint"`
	// Passphrase decrypts Key or KeyFile when the key is encrypted.
	Passphrase Secret `yaml:"passphrase"`
}

// LoadBalancer configures how Services of type LoadBalancer are realised.
type LoadBalancer struct {
	// Disabled turns the load balancer controller off; Services of type LoadBalancer are ignored.
	Disabled bool `yaml:"disabled"`
	// Subnet1 is the default subnet OCID for load balancers (a regional subnet, or the first of
	// two availability-domain subnets).
	Subnet1 string `yaml:"subnet1"`
	// Subnet2 is the second availability-domain subnet OCID, for AD-specific subnets only.
	Subnet2 string `yaml:"subnet2"`
	// SecurityListManagementMode says which security rules are managed (default All).
	SecurityListManagementMode SecurityListMode `yaml:"securityListManagementMode"`
	// SecurityLists maps a subnet OCID to the security list OCID to manage for that subnet.
	SecurityLists map[string]string `yaml:"securityLists"`
	// DefaultSourceCIDRs are the ingress sources allowed when a Service sets no
	// loadBalancerSourceRanges (default ["0.0.0.0/0"]).
	DefaultSourceCIDRs []string `yaml:"defaultSourceCIDRs"`
	// OpenNodePortRange, in modes All and Backend, opens the whole NodePortRange from the load
	// balancer subnets to the node subnets with one rule per pair of subnets, instead of one
	// rule per node port per Service (default false). It lets a cluster run far more load
	// balancer Services than OCI's 200 rules per security list allow; the trade-off is in
	// seclist/README.md ("Past 200 rules").
	OpenNodePortRange bool `yaml:"openNodePortRange"`
	// NodePortRange is the cluster's node port range, as given to kube-apiserver's
	// --service-node-port-range ("MIN-MAX" or "BASE+SIZE"; default DefaultNodePortRange).
	// Only OpenNodePortRange uses it.
	NodePortRange string `yaml:"nodePortRange"`
	// AdoptUndescribedRules lets oci-ccm take over security rules that have no description and
	// exactly match a rule a Service of this cluster needs — the rules the upstream OCI CCM
	// wrote — by rewriting them with its own description, so they are removed with the Service
	// (default false). See seclist/README.md ("Migrating from the upstream CCM").
	AdoptUndescribedRules bool `yaml:"adoptUndescribedRules"`
	// BackendSubset says which Nodes become backends of one Service's load balancer when the
	// cluster has more eligible Nodes than OCI allows: "auto" (the default) chooses a stable
	// subset per Service only when every Node would exceed OCI's backend limits; "off" makes
	// every eligible Node a backend and refuses a Service that would exceed them; a number N
	// chooses at most N Nodes per Service (within the limits). See ParseBackendSubset and
	// lb/README.md ("Big clusters").
	BackendSubset string `yaml:"backendSubset"`
	// Naming says how load balancers are named in OCI (default scheme uid).
	Naming Naming `yaml:"naming"`
	// Tags are applied to every load balancer created.
	Tags Tags `yaml:"tags"`
}

// SecurityListMode says which security rules oci-ccm manages for load balancers.
type SecurityListMode string

// The security-list management modes.
const (
	// SecurityListModeAll manages LB-subnet ingress and egress and node-subnet ingress.
	SecurityListModeAll SecurityListMode = "All"
	// SecurityListModeFrontend manages LB-subnet ingress only.
	SecurityListModeFrontend SecurityListMode = "Frontend"
	// SecurityListModeBackend manages the rules between LB and node subnets only.
	SecurityListModeBackend SecurityListMode = "Backend"
	// SecurityListModeNone manages no security rules.
	SecurityListModeNone SecurityListMode = "None"
	// SecurityListModeNSG manages rules in network security groups instead of security lists: a
	// frontend NSG per load balancer and rules in the backend NSGs a Service names. It is chosen
	// per Service (annotation oci.oraclecloud.com/security-rule-management-mode: NSG), never as
	// the configuration's default, because the backend NSGs are named per Service.
	SecurityListModeNSG SecurityListMode = "NSG"
)

// Naming says how load balancers are named in OCI.
type Naming struct {
	// Scheme selects how names are derived (default uid).
	Scheme NamingScheme `yaml:"scheme"`
	// Prefix is prepended to names. Under the name scheme it tells clusters apart in one
	// compartment ("<prefix>-<namespace>-<name>"). Under the uid scheme it is the upstream CCM's
	// LOAD_BALANCER_PREFIX: load balancers are named "<prefix>-<uid>" (the "-" added when missing),
	// network load balancers are not prefixed, as upstream. The LOAD_BALANCER_PREFIX environment
	// variable sets it (ApplyUpstreamPrefix).
	Prefix string `yaml:"prefix"`
}

// NamingScheme selects how a load balancer's display name is derived from its Service.
type NamingScheme string

// The naming schemes.
const (
	// NamingUID names load balancers as the upstream CCM does: "[prefix-]<uid>" for a load
	// balancer, "<namespace>/<name>/<uid>" for a network load balancer.
	NamingUID NamingScheme = "uid"
	// NamingName names a load balancer [prefix-]namespace-name, bounded in length.
	NamingName NamingScheme = "name"
)

// Tags are applied to every load balancer oci-ccm creates.
type Tags struct {
	// FreeformTags are key/value tags.
	FreeformTags map[string]string `yaml:"freeformTags"`
	// DefinedTags are tags from tag namespaces: namespace → key → value (string, number or bool).
	DefinedTags map[string]map[string]any `yaml:"definedTags"`
}

// RateLimiter configures client-side token buckets for OCI calls: one for reads (GET, list,
// work-request polls) and one for writes. A zero rate or burst means the default (SetDefaults).
type RateLimiter struct {
	// Disabled turns client-side rate limiting off.
	Disabled bool `yaml:"disabled"`
	// ReadQPS is the sustained rate of read calls per second (default DefaultReadQPS).
	ReadQPS float64 `yaml:"readQPS"`
	// ReadBurst is how many read calls may go at once above the sustained rate (default DefaultReadBurst).
	ReadBurst int `yaml:"readBurst"`
	// WriteQPS is the sustained rate of write calls per second (default DefaultWriteQPS).
	WriteQPS float64 `yaml:"writeQPS"`
	// WriteBurst is how many write calls may go at once above the sustained rate (default DefaultWriteBurst).
	WriteBurst int `yaml:"writeBurst"`
}

// Endpoint points every OCI client at one base URL. It is meant for tests against an in-memory
// OCI server and for proxies; production configs leave it out.
type Endpoint struct {
	// URL is the base URL, http or https with a host and no path, e.g. "https://127.0.0.1:8443".
	URL string `yaml:"url"`
	// CAFile is an optional PEM bundle of CA certificates for an https URL. When set, only these
	// CAs are trusted for the endpoint (not the system roots), so a test server's own CA suffices.
	CAFile string `yaml:"caFile,omitempty"`
}

// Secret is a string that never prints: String, GoString, every fmt verb, JSON, YAML, text and
// slog show a placeholder (see secret.go). Call Reveal to use the value.
type Secret string

const redacted = "[redacted]"

// Reveal returns the secret value.
func (s Secret) Reveal() string { return string(s) }

// String returns a placeholder, never the value.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return redacted
}

// GoString returns a placeholder, never the value.
func (s Secret) GoString() string { return s.String() }
