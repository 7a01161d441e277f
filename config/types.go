// Package config reads, defaults and validates cloud-provider.yaml, the one file that configures
// oci-ccm, and turns its auth section into an oci-go-sdk configuration provider.
package config

// Config is the content of cloud-provider.yaml after parsing and defaulting.
type Config struct {
	// Auth holds user-principal credentials and the region.
	Auth Auth `yaml:"auth"`
	// UseInstancePrincipals authenticates as the instance the CCM runs on instead of a user.
	UseInstancePrincipals bool `yaml:"useInstancePrincipals"`
	// CompartmentID is the compartment load balancers are created in and instances listed from.
	CompartmentID string `yaml:"compartment"`
	// VCNID is the virtual cloud network the cluster's subnets belong to.
	VCNID string `yaml:"vcn"`
	// LoadBalancer configures load balancer and security-list management.
	LoadBalancer LoadBalancer `yaml:"loadBalancer"`
	// RateLimiter configures the client-side limits on calls to OCI.
	RateLimiter RateLimiter `yaml:"rateLimiter"`
}

// Auth holds what the SDK needs to sign requests as a user.
type Auth struct {
	Region      string `yaml:"region"`
	Tenancy     string `yaml:"tenancy"`
	User        string `yaml:"user"`
	Key         Secret `yaml:"key"`
	KeyFile     string `yaml:"keyFile"`
	Fingerprint string `yaml:"fingerprint"`
	Passphrase  Secret `yaml:"passphrase"`
}

// LoadBalancer configures how Services of type LoadBalancer are realised.
type LoadBalancer struct {
	Disabled                   bool              `yaml:"disabled"`
	Subnet1                    string            `yaml:"subnet1"`
	Subnet2                    string            `yaml:"subnet2"`
	SecurityListManagementMode SecurityListMode  `yaml:"securityListManagementMode"`
	SecurityLists              map[string]string `yaml:"securityLists"`
	DefaultSourceCIDRs         []string          `yaml:"defaultSourceCIDRs"`
	Naming                     Naming            `yaml:"naming"`
	Tags                       Tags              `yaml:"tags"`
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
)

// Naming says how load balancers are named in OCI.
type Naming struct {
	Scheme NamingScheme `yaml:"scheme"`
	Prefix string       `yaml:"prefix"`
}

// NamingScheme selects how a load balancer's display name is derived from its Service.
type NamingScheme string

// The naming schemes.
const (
	// NamingUID names a load balancer after the Service UID (compatible with the upstream CCM).
	NamingUID NamingScheme = "uid"
	// NamingName names a load balancer [prefix-]namespace-name, bounded in length.
	NamingName NamingScheme = "name"
)

// Tags are applied to every load balancer oci-ccm creates.
type Tags struct {
	FreeformTags map[string]string         `yaml:"freeformTags"`
	DefinedTags  map[string]map[string]any `yaml:"definedTags"`
}

// RateLimiter configures client-side token buckets for OCI calls.
type RateLimiter struct {
	Disabled   bool    `yaml:"disabled"`
	ReadQPS    float64 `yaml:"readQPS"`
	ReadBurst  int     `yaml:"readBurst"`
	WriteQPS   float64 `yaml:"writeQPS"`
	WriteBurst int     `yaml:"writeBurst"`
}

// Secret is a string that never prints: String, GoString and every fmt verb show a placeholder.
// Call Reveal to use the value.
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
