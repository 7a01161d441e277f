// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import (
	"encoding/pem"
	"fmt"
	"maps"
	"math"
	"net/url"
	"slices"
	"strings"
)

// FieldError is one problem with one field.
type FieldError struct {
	// Field is the path of the field as written in the file, e.g. "loadBalancer.subnet1" or
	// "loadBalancer.securityLists[ocid1.subnet...]".
	Field string
	// Value is the offending value as text, "" when the field is missing, and never a secret
	// (secrets appear as the redaction placeholder).
	Value string
	// Detail says what is wrong and what is allowed.
	Detail string
}

// Error renders the problem as `field: detail (got "value")`.
func (e FieldError) Error() string {
	if e.Value == "" {
		return e.Field + ": " + e.Detail
	}
	return fmt.Sprintf("%s: %s (got %q)", e.Field, e.Detail, e.Value)
}

// ValidationError lists every problem Validate found, in a stable order. Inspect it with
// errors.As; each FieldError is also reachable through errors.As because Unwrap returns them.
type ValidationError struct {
	Errors []FieldError
}

// Error renders every problem on one line, separated by semicolons.
func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Errors))
	for i, fe := range e.Errors {
		parts[i] = fe.Error()
	}
	return fmt.Sprintf("invalid cloud-provider config: %d problem(s): %s", len(e.Errors), strings.Join(parts, "; "))
}

// Unwrap exposes the individual FieldErrors to errors.As.
func (e *ValidationError) Unwrap() []error {
	errs := make([]error, len(e.Errors))
	for i, fe := range e.Errors {
		errs[i] = fe
	}
	return errs
}

// Validate checks the whole config and reports every problem at once as a *ValidationError,
// or returns nil. Load and Open run it already, so it is for advanced use: a Config built in
// code (after SetDefaults) or changed after loading, as ccm.New changes it with the environment.
// The region and compartment are required, and Validate never guesses them. It does no I/O:
// auth.keyFile is read, and the key parsed with its passphrase, by ConfigurationProvider.
func (c *Config) Validate() error { return c.validate(checkAll) }

// ValidateExceptCredentials is Validate without the checks of how to sign requests (tenancy,
// user, fingerprint, key, instance principals), for a caller that brings its own OCI client:
// the region and compartment are still required, since the library reads them. Like Validate,
// it is for advanced use.
func (c *Config) ValidateExceptCredentials() error { return c.validate(checkExceptCredentials) }

// checks says how much of a Config validate covers.
type checks int

const (
	// checkAll is Validate: everything.
	checkAll checks = iota
	// checkExceptCredentials is ValidateExceptCredentials.
	checkExceptCredentials
	// checkFile is what Load and Open check without WithEnvironment: every field the file
	// holds, but not the token exchange settings of workload identity, which come from the
	// environment afterwards.
	checkFile
)

func (c *Config) validate(which checks) error {
	v := &validator{exceptCredentials: which == checkExceptCredentials, fileOnly: which == checkFile}
	c.validateClusterID(v)
	c.validateAuth(v)
	c.validateLoadBalancer(v)
	c.validateRateLimiter(v)
	c.validateEndpoint(v)
	if len(v.errs) == 0 {
		return nil
	}
	return &ValidationError{Errors: v.errs}
}

// validator accumulates FieldErrors.
type validator struct {
	errs []FieldError
	// exceptCredentials skips the credential checks (ValidateExceptCredentials).
	exceptCredentials bool
	// fileOnly skips what the file cannot hold (checkFile).
	fileOnly bool
}

func (v *validator) add(field, value, detail string) {
	v.errs = append(v.errs, FieldError{Field: field, Value: value, Detail: detail})
}

const inferredHint = "; when running on an OCI instance it is inferred from instance metadata (Complete)"

func (c *Config) validateAuth(v *validator) {
	a := &c.Auth
	if a.Region == "" {
		v.add("auth.region", "", "required"+inferredHint)
	} else if !validRegion(a.Region) {
		v.add("auth.region", a.Region, "must be a region name such as us-phoenix-1 or a region key such as phx")
	}
	if c.CompartmentID == "" {
		v.add("compartment", "", "required"+inferredHint)
	} else {
		v.ocid("compartment", c.CompartmentID, "compartment", "tenancy")
	}
	if c.VCNID != "" {
		v.ocid("vcn", c.VCNID, "vcn")
	}
	if v.exceptCredentials {
		return
	}
	if a.Tenancy != "" {
		v.ocid("auth.tenancy", a.Tenancy, "tenancy")
	}
	if a.User != "" {
		v.ocid("auth.user", a.User, "user")
	}
	if a.Fingerprint != "" && !validFingerprint(a.Fingerprint) {
		v.add("auth.fingerprint", a.Fingerprint, "must be 16 colon-separated hex bytes, e.g. 12:34:56:78:9a:bc:de:f0:12:34:56:78:9a:bc:de:f0")
	}

	if c.UseWorkloadIdentity {
		c.validateWorkloadIdentity(v)
		return
	}
	if c.UseInstancePrincipals {
		v.noUserKey(a, "not allowed with useInstancePrincipals: true; instance principals sign with the instance's own certificate")
		return
	}

	// User principal.
	if a.Tenancy == "" {
		v.add("auth.tenancy", "", "required for user-principal auth (or set useInstancePrincipals: true)")
	}
	if a.User == "" {
		v.add("auth.user", "", "required for user-principal auth (or set useInstancePrincipals: true)")
	}
	if a.Fingerprint == "" {
		v.add("auth.fingerprint", "", "required for user-principal auth (or set useInstancePrincipals: true)")
	}
	switch {
	case a.Key == "" && a.KeyFile == "":
		v.add("auth.key", "", "required: set auth.key (the PEM key inline) or auth.keyFile, or set useInstancePrincipals: true")
	case a.Key != "" && a.KeyFile != "":
		v.add("auth.keyFile", a.KeyFile, "not allowed together with auth.key; set one of them")
	case a.Key != "":
		encrypted, ok := pemPrivateKey(a.Key.Reveal())
		if !ok {
			v.add("auth.key", a.Key.String(), "must be a PEM-encoded private key (-----BEGIN ... PRIVATE KEY-----)")
		} else if encrypted && a.Passphrase == "" {
			v.add("auth.passphrase", "", "required: auth.key is encrypted")
		}
	}
}

// noUserKey refuses the user-principal key fields, for the modes that sign otherwise.
func (v *validator) noUserKey(a *Auth, why string) {
	if a.Key != "" {
		v.add("auth.key", a.Key.String(), why)
	}
	if a.KeyFile != "" {
		v.add("auth.keyFile", a.KeyFile, why)
	}
	if a.Passphrase != "" {
		v.add("auth.passphrase", a.Passphrase.String(), why)
	}
}

// pemPrivateKey reports whether s holds a PEM private-key block and whether that block is
// encrypted. It does not decrypt or parse the key: that needs the passphrase and happens once,
// in ConfigurationProvider.
func pemPrivateKey(s string) (encrypted, ok bool) {
	block, _ := pem.Decode([]byte(s))
	if block == nil || !strings.HasSuffix(block.Type, "PRIVATE KEY") {
		return false, false
	}
	// PKCS#8 marks encryption in the block type; legacy PKCS#1 in a Proc-Type header.
	encrypted = block.Type == "ENCRYPTED PRIVATE KEY" || strings.Contains(block.Headers["Proc-Type"], "ENCRYPTED")
	return encrypted, true
}

// Naming-prefix limits: the prefix is joined to "namespace-name" in display names and should
// read like a DNS label so names stay valid wherever they are reused.
const maxPrefixLength = 32

// maxUpstreamPrefixLength bounds the prefix under the uid scheme, which is the upstream CCM's
// LOAD_BALANCER_PREFIX and as free as it: any characters, as long as "<prefix>-<uid>" (a UID is
// 36 characters) fits in OCI's 1024-character display name. Upstream cuts a longer name, which
// could cut the UID and give two Services one name; oci-ccm refuses it instead.
const maxUpstreamPrefixLength = 1024 - 1 - 36

func (c *Config) validateLoadBalancer(v *validator) {
	lb := &c.LoadBalancer
	const p = "loadBalancer."

	if lb.Subnet1 != "" {
		v.ocid(p+"subnet1", lb.Subnet1, "subnet")
	} else if !lb.Disabled && c.VCNID == "" {
		v.add(p+"subnet1", "", "required unless vcn is set (or set loadBalancer.disabled: true)")
	}
	if lb.Subnet2 != "" {
		v.ocid(p+"subnet2", lb.Subnet2, "subnet")
		// Without subnet1, each Service names its first subnet (oci-load-balancer-subnet1) and
		// one that does not is refused by lb, as the upstream CCM refuses it per Service
		// (load_balancer.go, getOciLoadBalancerSubnets) and starts anyway.
		if lb.Subnet1 == lb.Subnet2 {
			v.add(p+"subnet2", lb.Subnet2, "must differ from loadBalancer.subnet1")
		}
	}

	switch {
	case lb.SecurityListManagementMode == SecurityListModeNSG:
		v.add(p+"securityListManagementMode", string(lb.SecurityListManagementMode), "must be one of All, Frontend, Backend, None: "+
			"NSG is chosen per Service with the annotation oci.oraclecloud.com/security-rule-management-mode: NSG, "+
			"because the backend NSGs are named per Service (oci.oraclecloud.com/oci-backend-network-security-group)")
	case !slices.Contains(securityListModes, lb.SecurityListManagementMode):
		v.add(p+"securityListManagementMode", string(lb.SecurityListManagementMode), "must be one of All, Frontend, Backend, None")
	}
	for _, subnet := range slices.Sorted(maps.Keys(lb.SecurityLists)) {
		// A bad key is reported against the map, since the key is not a path of its own.
		v.ocid(p+"securityLists", subnet, "subnet")
		v.ocid(p+"securityLists["+subnet+"]", lb.SecurityLists[subnet], "securitylist")
	}
	for i, cidr := range lb.DefaultSourceCIDRs {
		if detail := checkCIDR(cidr); detail != "" {
			v.add(fmt.Sprintf("%sdefaultSourceCIDRs[%d]", p, i), cidr, detail)
		}
	}

	if lb.NodePortRange != "" {
		if _, _, err := ParseNodePortRange(lb.NodePortRange); err != nil {
			v.add(p+"nodePortRange", lb.NodePortRange, nodePortRangeDetail)
		}
	}

	if _, _, err := ParseBackendSubset(lb.BackendSubset); err != nil {
		v.add(p+"backendSubset", lb.BackendSubset, backendSubsetDetail)
	}

	switch lb.Naming.Scheme {
	case NamingUID:
		if pre := lb.Naming.Prefix; len(pre) > maxUpstreamPrefixLength {
			v.add(p+"naming.prefix", pre, fmt.Sprintf("must be at most %d characters with naming.scheme: uid, so the Service UID fits "+
				"in OCI's 1024-character display name after it", maxUpstreamPrefixLength))
		}
	case NamingName:
		if pre := lb.Naming.Prefix; pre != "" && (len(pre) > maxPrefixLength || !dnsLabel(pre)) {
			v.add(p+"naming.prefix", pre, fmt.Sprintf("must be at most %d characters of a-z, 0-9 and '-', starting and ending with a letter or digit", maxPrefixLength))
		}
	default:
		v.add(p+"naming.scheme", string(lb.Naming.Scheme), "must be one of uid, name")
	}

	validateTags(v, p+"tags", &lb.Tags)
}

var securityListModes = []SecurityListMode{SecurityListModeAll, SecurityListModeFrontend, SecurityListModeBackend, SecurityListModeNone}

func (c *Config) validateRateLimiter(v *validator) {
	rl := &c.RateLimiter
	const p = "rateLimiter."
	// With the limiter on, a zero rate or burst would block every call; SetDefaults replaces
	// zeros, so a zero here means a Config built in code skipped it.
	positive := "must be greater than 0 (0 or absent means the default; set rateLimiter.disabled to turn limiting off)"
	if rl.Disabled {
		positive = ""
	}
	for _, q := range []struct {
		field string
		value float64
	}{{"readQPS", rl.ReadQPS}, {"writeQPS", rl.WriteQPS}} {
		switch {
		case math.IsNaN(q.value) || math.IsInf(q.value, 0) || q.value < 0:
			v.add(p+q.field, fmt.Sprint(q.value), "must be a non-negative number of calls per second")
		case q.value == 0 && positive != "":
			v.add(p+q.field, "0", positive)
		}
	}
	for _, b := range []struct {
		field string
		value int
	}{{"readBurst", rl.ReadBurst}, {"writeBurst", rl.WriteBurst}} {
		switch {
		case b.value < 0:
			v.add(p+b.field, fmt.Sprint(b.value), "must be a non-negative number of calls")
		case b.value == 0 && positive != "":
			v.add(p+b.field, "0", positive)
		}
	}
}

func (c *Config) validateEndpoint(v *validator) {
	e := &c.Endpoint
	if e.URL == "" {
		if e.CAFile != "" {
			v.add("endpoint.caFile", e.CAFile, "needs endpoint.url")
		}
		return
	}
	u, err := url.Parse(e.URL)
	if err != nil {
		v.add("endpoint.url", e.URL, "must be a URL such as https://127.0.0.1:8443")
		return
	}
	shown := e.URL
	if u.User != nil {
		shown = u.Redacted() // never echo a password
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		v.add("endpoint.url", shown, "scheme must be http or https")
	case u.Host == "":
		v.add("endpoint.url", shown, "must have a host, e.g. https://127.0.0.1:8443")
	case u.User != nil:
		v.add("endpoint.url", shown, "must not carry user information")
	case u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "":
		v.add("endpoint.url", shown, "must have no path, query or fragment (not even a trailing slash): every OCI API path is appended to it")
	}
	if e.CAFile != "" && u.Scheme == "http" {
		v.add("endpoint.caFile", e.CAFile, "only meaningful with an https endpoint.url")
	}
}
