// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestValidConfigPasses(t *testing.T) {
	if err := validConfig(t).Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
}

// Frequently repeated details, spelled out once.
const (
	userPrincipalRequired = "required for user-principal auth (or set useInstancePrincipals: true)"
	notWithIP             = "not allowed with useInstancePrincipals: true; instance principals sign with the instance's own certificate"
	positiveRate          = "must be greater than 0 (0 or absent means the default; set rateLimiter.disabled to turn limiting off)"
	prefixRule            = "must be at most 32 characters of a-z, 0-9 and '-', starting and ending with a letter or digit"
	noPath                = "must have no path, query or fragment (not even a trailing slash): every OCI API path is appended to it"
)

func TestValidateReportsEachProblem(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(c *Config)
		want   []FieldError // nil: valid
	}{
		// Region and compartment.
		{"region missing", func(c *Config) { c.Auth.Region = "" },
			[]FieldError{{"auth.region", "", "required" + inferredHint}}},
		{"region malformed", func(c *Config) { c.Auth.Region = "US East" },
			[]FieldError{{"auth.region", "US East", "must be a region name such as us-phoenix-1 or a region key such as phx"}}},
		{"region key accepted", func(c *Config) { c.Auth.Region = "phx" }, nil},
		{"compartment missing", func(c *Config) { c.CompartmentID = "" },
			[]FieldError{{"compartment", "", "required" + inferredHint}}},
		{"compartment may be the tenancy (root compartment)", func(c *Config) { c.CompartmentID = tenancyID }, nil},
		{"compartment of the wrong type", func(c *Config) { c.CompartmentID = vcnID },
			[]FieldError{{"compartment", vcnID, "is a vcn OCID; want a compartment or tenancy OCID"}}},
		{"compartment not an OCID", func(c *Config) { c.CompartmentID = "my-compartment" },
			[]FieldError{{"compartment", "my-compartment", "must be a compartment or tenancy OCID: ocid1.compartment.<realm>.[region].<unique id>"}}},
		{"OCID with a future-use part accepted", func(c *Config) { c.CompartmentID = "ocid1.compartment.oc1.phx.future.aaaa" }, nil},
		{"OCID with upper case refused", func(c *Config) { c.CompartmentID = "ocid1.compartment.oc1..AAAA" },
			[]FieldError{{"compartment", "ocid1.compartment.oc1..AAAA", "must be a compartment or tenancy OCID: ocid1.compartment.<realm>.[region].<unique id>"}}},
		{"OCID with empty unique part refused", func(c *Config) { c.CompartmentID = "ocid1.compartment.oc1.." },
			[]FieldError{{"compartment", "ocid1.compartment.oc1..", "must be a compartment or tenancy OCID: ocid1.compartment.<realm>.[region].<unique id>"}}},
		{"OCID version other than 1 refused", func(c *Config) { c.CompartmentID = "ocid2.compartment.oc1..aaaa" },
			[]FieldError{{"compartment", "ocid2.compartment.oc1..aaaa", "must be a compartment or tenancy OCID: ocid1.compartment.<realm>.[region].<unique id>"}}},
		{"vcn of the wrong type", func(c *Config) { c.VCNID = subnet1ID },
			[]FieldError{{"vcn", subnet1ID, "is a subnet OCID; want a vcn OCID"}}},
		{"vcn optional when subnet1 is set", func(c *Config) { c.VCNID = "" }, nil},

		// User principal.
		{"tenancy missing", func(c *Config) { c.Auth.Tenancy = "" },
			[]FieldError{{"auth.tenancy", "", userPrincipalRequired}}},
		{"tenancy of the wrong type", func(c *Config) { c.Auth.Tenancy = compartmentID },
			[]FieldError{{"auth.tenancy", compartmentID, "is a compartment OCID; want a tenancy OCID"}}},
		{"user missing", func(c *Config) { c.Auth.User = "" },
			[]FieldError{{"auth.user", "", userPrincipalRequired}}},
		{"user of the wrong type", func(c *Config) { c.Auth.User = tenancyID },
			[]FieldError{{"auth.user", tenancyID, "is a tenancy OCID; want a user OCID"}}},
		{"fingerprint missing", func(c *Config) { c.Auth.Fingerprint = "" },
			[]FieldError{{"auth.fingerprint", "", userPrincipalRequired}}},
		{"fingerprint malformed", func(c *Config) { c.Auth.Fingerprint = "aa:bb" },
			[]FieldError{{"auth.fingerprint", "aa:bb", "must be 16 colon-separated hex bytes, e.g. 12:34:56:78:9a:bc:de:f0:12:34:56:78:9a:bc:de:f0"}}},
		{"fingerprint in upper case accepted", func(c *Config) { c.Auth.Fingerprint = strings.ToUpper(c.Auth.Fingerprint) }, nil},
		{"no key and no keyFile", func(c *Config) { c.Auth.Key = "" },
			[]FieldError{{"auth.key", "", "required: set auth.key (the PEM key inline) or auth.keyFile, or set useInstancePrincipals: true"}}},
		{"key and keyFile both", func(c *Config) { c.Auth.KeyFile = "/etc/oci/key.pem" },
			[]FieldError{{"auth.keyFile", "/etc/oci/key.pem", "not allowed together with auth.key; set one of them"}}},
		{"keyFile alone accepted", func(c *Config) { c.Auth.Key = ""; c.Auth.KeyFile = "/etc/oci/key.pem" }, nil},
		{"key not PEM", func(c *Config) { c.Auth.Key = "not a key" },
			[]FieldError{{"auth.key", redacted, "must be a PEM-encoded private key (-----BEGIN ... PRIVATE KEY-----)"}}},
		{"key a PEM certificate, not a private key", func(c *Config) {
			c.Auth.Key = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
		}, []FieldError{{"auth.key", redacted, "must be a PEM-encoded private key (-----BEGIN ... PRIVATE KEY-----)"}}},
		{"legacy encrypted key without passphrase", func(c *Config) { c.Auth.Key = Secret(legacyEncryptedPEM(t, testPassphrase)) },
			[]FieldError{{"auth.passphrase", "", "required: auth.key is encrypted"}}},
		{"PKCS#8 encrypted key without passphrase", func(c *Config) { c.Auth.Key = Secret(pkcs8EncryptedPEM(t, testPassphrase)) },
			[]FieldError{{"auth.passphrase", "", "required: auth.key is encrypted"}}},
		{"encrypted key with passphrase accepted", func(c *Config) {
			c.Auth.Key = Secret(pkcs8EncryptedPEM(t, testPassphrase))
			c.Auth.Passphrase = testPassphrase
		}, nil},

		// Instance principals.
		{"instance principals alone accepted", func(c *Config) {
			c.UseInstancePrincipals = true
			c.Auth = Auth{Region: "us-phoenix-1"}
		}, nil},
		{"instance principals with key, keyFile and passphrase", func(c *Config) {
			c.UseInstancePrincipals = true
			c.Auth.KeyFile = "/k.pem"
			c.Auth.Passphrase = testPassphrase
		}, []FieldError{
			{"auth.key", redacted, notWithIP},
			{"auth.keyFile", "/k.pem", notWithIP},
			{"auth.passphrase", redacted, notWithIP},
		}},
		{"instance principals still check OCID shapes", func(c *Config) {
			c.UseInstancePrincipals = true
			c.Auth = Auth{Region: "us-phoenix-1", User: "bob"}
		}, []FieldError{{"auth.user", "bob", "must be a user OCID: ocid1.user.<realm>.[region].<unique id>"}}},

		// Load balancer subnets.
		{"no subnet1 and no vcn", func(c *Config) { c.LoadBalancer.Subnet1, c.LoadBalancer.Subnet2, c.VCNID = "", "", "" },
			[]FieldError{{"loadBalancer.subnet1", "", "required unless vcn is set (or set loadBalancer.disabled: true)"}}},
		{"no subnets with vcn accepted", func(c *Config) { c.LoadBalancer.Subnet1, c.LoadBalancer.Subnet2 = "", "" }, nil},
		{"no subnets with load balancers disabled accepted", func(c *Config) {
			c.LoadBalancer.Subnet1, c.LoadBalancer.Subnet2, c.VCNID = "", "", ""
			c.LoadBalancer.Disabled = true
		}, nil},
		{"regional subnet1 alone accepted", func(c *Config) { c.LoadBalancer.Subnet2 = "" }, nil},
		{"subnet1 of the wrong type", func(c *Config) { c.LoadBalancer.Subnet1 = vcnID },
			[]FieldError{{"loadBalancer.subnet1", vcnID, "is a vcn OCID; want a subnet OCID"}}},
		{"subnet2 without subnet1 accepted (each Service names its first)", func(c *Config) { c.LoadBalancer.Subnet1 = "" }, nil},
		{"subnet2 equal to subnet1", func(c *Config) { c.LoadBalancer.Subnet2 = subnet1ID },
			[]FieldError{{"loadBalancer.subnet2", subnet1ID, "must differ from loadBalancer.subnet1"}}},
		{"subnet2 malformed", func(c *Config) { c.LoadBalancer.Subnet2 = "subnet-b" },
			[]FieldError{{"loadBalancer.subnet2", "subnet-b", "must be a subnet OCID: ocid1.subnet.<realm>.[region].<unique id>"}}},

		// Security lists.
		{"every mode accepted", func(c *Config) { c.LoadBalancer.SecurityListManagementMode = SecurityListModeBackend }, nil},
		{"mode in the wrong case", func(c *Config) { c.LoadBalancer.SecurityListManagementMode = "all" },
			[]FieldError{{"loadBalancer.securityListManagementMode", "all", "must be one of All, Frontend, Backend, None"}}},
		{"mode NSG refused as the cluster default: it is chosen per Service", func(c *Config) { c.LoadBalancer.SecurityListManagementMode = SecurityListModeNSG },
			[]FieldError{{"loadBalancer.securityListManagementMode", "NSG", "must be one of All, Frontend, Backend, None: " +
				"NSG is chosen per Service with the annotation oci.oraclecloud.com/security-rule-management-mode: NSG, " +
				"because the backend NSGs are named per Service (oci.oraclecloud.com/oci-backend-network-security-group)"}}},
		{"mode empty (SetDefaults skipped)", func(c *Config) { c.LoadBalancer.SecurityListManagementMode = "" },
			[]FieldError{{"loadBalancer.securityListManagementMode", "", "must be one of All, Frontend, Backend, None"}}},
		{"securityLists with good entries accepted", func(c *Config) {
			c.LoadBalancer.SecurityLists = map[string]string{subnet1ID: seclist1ID, nodeSubnetID: seclist2ID}
		}, nil},
		{"securityLists key not a subnet, value not a security list", func(c *Config) {
			c.LoadBalancer.SecurityLists = map[string]string{vcnID: seclist1ID, subnet1ID: subnet2ID}
		}, []FieldError{
			{"loadBalancer.securityLists[" + subnet1ID + "]", subnet2ID, "is a subnet OCID; want a securitylist OCID"},
			{"loadBalancer.securityLists", vcnID, "is a vcn OCID; want a subnet OCID"},
		}},

		// Source CIDRs.
		{"IPv6 CIDR accepted", func(c *Config) { c.LoadBalancer.DefaultSourceCIDRs = []string{"::/0", "10.0.0.0/8"} }, nil},
		{"CIDR malformed and with host bits", func(c *Config) {
			c.LoadBalancer.DefaultSourceCIDRs = []string{"0.0.0.0/0", "10.0.0.1", "10.0.0.1/8"}
		}, []FieldError{
			{"loadBalancer.defaultSourceCIDRs[1]", "10.0.0.1", "must be a CIDR such as 10.0.0.0/16, 0.0.0.0/0 or 2001:db8::/32"},
			{"loadBalancer.defaultSourceCIDRs[2]", "10.0.0.1/8", "has host bits set; did you mean 10.0.0.0/8?"},
		}},

		// Naming.
		{"name scheme with prefix accepted", func(c *Config) { c.LoadBalancer.Naming = Naming{Scheme: NamingName, Prefix: "prod-1"} }, nil},
		{"name scheme without prefix accepted", func(c *Config) { c.LoadBalancer.Naming = Naming{Scheme: NamingName} }, nil},
		{"unknown scheme", func(c *Config) { c.LoadBalancer.Naming.Scheme = "UID" },
			[]FieldError{{"loadBalancer.naming.scheme", "UID", "must be one of uid, name"}}},
		{"uid scheme with upstream's LOAD_BALANCER_PREFIX accepted", func(c *Config) { c.LoadBalancer.Naming.Prefix = "Prod_1-" }, nil},
		{"uid scheme with a prefix of 987 characters accepted", func(c *Config) { c.LoadBalancer.Naming.Prefix = strings.Repeat("p", 987) }, nil},
		{"uid scheme with a prefix that leaves no room for the UID", func(c *Config) { c.LoadBalancer.Naming.Prefix = strings.Repeat("p", 988) },
			[]FieldError{{"loadBalancer.naming.prefix", strings.Repeat("p", 988), "must be at most 987 characters with naming.scheme: uid, " +
				"so the Service UID fits in OCI's 1024-character display name after it"}}},
		{"prefix too long", func(c *Config) { c.LoadBalancer.Naming = Naming{Scheme: NamingName, Prefix: strings.Repeat("a", 33)} },
			[]FieldError{{"loadBalancer.naming.prefix", strings.Repeat("a", 33), prefixRule}}},
		{"prefix of 32 characters accepted", func(c *Config) { c.LoadBalancer.Naming = Naming{Scheme: NamingName, Prefix: strings.Repeat("a", 32)} }, nil},
		{"prefix with upper case", func(c *Config) { c.LoadBalancer.Naming = Naming{Scheme: NamingName, Prefix: "Prod"} },
			[]FieldError{{"loadBalancer.naming.prefix", "Prod", prefixRule}}},
		{"prefix ending in a dash", func(c *Config) { c.LoadBalancer.Naming = Naming{Scheme: NamingName, Prefix: "prod-"} },
			[]FieldError{{"loadBalancer.naming.prefix", "prod-", prefixRule}}},

		// Tags.
		{"tags of every value kind accepted", func(c *Config) {
			c.LoadBalancer.Tags = Tags{
				FreeformTags: map[string]string{"team": "platform", "a.b": "periods are fine in freeform keys"},
				DefinedTags:  map[string]map[string]any{"Ops": {"Name": "x", "Count": 3, "Ratio": 0.5, "On": true}},
			}
		}, nil},
		{"freeform tag problems", func(c *Config) {
			c.LoadBalancer.Tags.FreeformTags = map[string]string{"": "x", "has space": "x", "long": strings.Repeat("v", 257), strings.Repeat("k", 101): "x"}
		}, []FieldError{
			{"loadBalancer.tags.freeformTags[]", "", "key must not be empty"},
			{"loadBalancer.tags.freeformTags[has space]", "has space", "key must not contain spaces"},
			{"loadBalancer.tags.freeformTags[" + strings.Repeat("k", 101) + "]", strings.Repeat("k", 101), "key must be at most 100 characters"},
			{"loadBalancer.tags.freeformTags[long]", strings.Repeat("v", 257), "value must be at most 256 characters"},
		}},
		{"defined tag problems", func(c *Config) {
			c.LoadBalancer.Tags.DefinedTags = map[string]map[string]any{
				"Empty":  {},
				"Ops.v2": {"k.1": "x", "nested": map[string]any{"a": 1}, "null": nil, "long": strings.Repeat("v", 257)},
			}
		}, []FieldError{
			{"loadBalancer.tags.definedTags[Empty]", "", "must hold at least one key"},
			{"loadBalancer.tags.definedTags[Ops.v2]", "Ops.v2", "namespace must not contain periods"},
			{"loadBalancer.tags.definedTags[Ops.v2][k.1]", "k.1", "key must not contain periods"},
			{"loadBalancer.tags.definedTags[Ops.v2][long]", strings.Repeat("v", 257), "value must be at most 256 characters"},
			{"loadBalancer.tags.definedTags[Ops.v2][nested]", "map[string]interface {}", "value must be a string, number or boolean"},
			{"loadBalancer.tags.definedTags[Ops.v2][null]", "<nil>", "value must be a string, number or boolean"},
		}},

		// Rate limiter.
		{"rate limiter values below zero", func(c *Config) {
			c.RateLimiter = RateLimiter{ReadQPS: -1, ReadBurst: -2, WriteQPS: math.NaN(), WriteBurst: -4}
		}, []FieldError{
			{"rateLimiter.readQPS", "-1", "must be a non-negative number of calls per second"},
			{"rateLimiter.writeQPS", "NaN", "must be a non-negative number of calls per second"},
			{"rateLimiter.readBurst", "-2", "must be a non-negative number of calls"},
			{"rateLimiter.writeBurst", "-4", "must be a non-negative number of calls"},
		}},
		{"rate limiter infinite rate", func(c *Config) { c.RateLimiter.ReadQPS = math.Inf(1) },
			[]FieldError{{"rateLimiter.readQPS", "+Inf", "must be a non-negative number of calls per second"}}},
		{"rate limiter zeros while enabled (SetDefaults skipped)", func(c *Config) { c.RateLimiter = RateLimiter{} },
			[]FieldError{
				{"rateLimiter.readQPS", "0", positiveRate},
				{"rateLimiter.writeQPS", "0", positiveRate},
				{"rateLimiter.readBurst", "0", positiveRate},
				{"rateLimiter.writeBurst", "0", positiveRate},
			}},
		{"rate limiter zeros while disabled accepted", func(c *Config) { c.RateLimiter = RateLimiter{Disabled: true} }, nil},
		{"rate limiter negative while disabled", func(c *Config) { c.RateLimiter = RateLimiter{Disabled: true, WriteQPS: -1} },
			[]FieldError{{"rateLimiter.writeQPS", "-1", "must be a non-negative number of calls per second"}}},

		// Endpoint.
		{"https endpoint with CA accepted", func(c *Config) { c.Endpoint = Endpoint{URL: "https://127.0.0.1:8443", CAFile: "/ca.pem"} }, nil},
		{"http endpoint accepted", func(c *Config) { c.Endpoint = Endpoint{URL: "http://localhost:9000"} }, nil},
		{"endpoint with another scheme", func(c *Config) { c.Endpoint.URL = "ftp://host" },
			[]FieldError{{"endpoint.url", "ftp://host", "scheme must be http or https"}}},
		{"endpoint without a scheme", func(c *Config) { c.Endpoint.URL = "127.0.0.1:8443" },
			[]FieldError{{"endpoint.url", "127.0.0.1:8443", "must be a URL such as https://127.0.0.1:8443"}}},
		{"endpoint without a host", func(c *Config) { c.Endpoint.URL = "https:///x" },
			[]FieldError{{"endpoint.url", "https:///x", "must have a host, e.g. https://127.0.0.1:8443"}}},
		{"endpoint with a path", func(c *Config) { c.Endpoint.URL = "https://proxy/oci" },
			[]FieldError{{"endpoint.url", "https://proxy/oci", noPath}}},
		{"endpoint with a trailing slash", func(c *Config) { c.Endpoint.URL = "https://proxy/" },
			[]FieldError{{"endpoint.url", "https://proxy/", noPath}}},
		{"endpoint with a query", func(c *Config) { c.Endpoint.URL = "https://proxy?a=b" },
			[]FieldError{{"endpoint.url", "https://proxy?a=b", noPath}}},
		{"endpoint with credentials shows no password", func(c *Config) { c.Endpoint.URL = "https://bob:hunter2@proxy" },
			[]FieldError{{"endpoint.url", "https://bob:xxxxx@proxy", "must not carry user information"}}},
		{"endpoint caFile without url", func(c *Config) { c.Endpoint = Endpoint{CAFile: "/ca.pem"} },
			[]FieldError{{"endpoint.caFile", "/ca.pem", "needs endpoint.url"}}},
		{"endpoint caFile with http", func(c *Config) { c.Endpoint = Endpoint{URL: "http://127.0.0.1:1", CAFile: "/ca.pem"} },
			[]FieldError{{"endpoint.caFile", "/ca.pem", "only meaningful with an https endpoint.url"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := validConfig(t)
			tt.mutate(c)
			err := c.Validate()
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate: %v, want nil", err)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Validate error = %v, want a *ValidationError", err)
			}
			if diff := cmp.Diff(tt.want, ve.Errors); diff != "" {
				t.Errorf("FieldErrors mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateReportsEveryProblemAtOnce(t *testing.T) {
	c := &Config{ // nothing right, nothing defaulted
		LoadBalancer: LoadBalancer{Subnet2: "x", DefaultSourceCIDRs: []string{"nope"}},
		RateLimiter:  RateLimiter{ReadQPS: -1},
		Endpoint:     Endpoint{URL: "ftp://x"},
	}
	err := c.Validate()
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Validate error = %v, want a *ValidationError", err)
	}
	var fields []string
	for _, fe := range ve.Errors {
		fields = append(fields, fe.Field)
	}
	want := []string{
		"auth.region", "compartment", "auth.tenancy", "auth.user", "auth.fingerprint", "auth.key",
		"loadBalancer.subnet1", "loadBalancer.subnet2",
		"loadBalancer.securityListManagementMode", "loadBalancer.defaultSourceCIDRs[0]", "loadBalancer.naming.scheme",
		"rateLimiter.readQPS", "rateLimiter.writeQPS", "rateLimiter.readBurst", "rateLimiter.writeBurst",
		"endpoint.url",
	}
	if diff := cmp.Diff(want, fields); diff != "" {
		t.Errorf("fields mismatch (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(err.Error(), "invalid cloud-provider config: 16 problem(s): auth.region: required") {
		t.Errorf("Error() = %q, want it to count the problems and start with the first", err)
	}
}

func TestValidationErrorExposesFieldErrorsToErrorsAs(t *testing.T) {
	c := validConfig(t)
	c.Auth.Region = ""
	var fe FieldError
	if !errors.As(c.Validate(), &fe) {
		t.Fatal("errors.As(err, *FieldError) failed")
	}
	if fe.Field != "auth.region" {
		t.Errorf("FieldError.Field = %q, want auth.region", fe.Field)
	}
}

func TestFieldErrorQuotesTheValue(t *testing.T) {
	tests := []struct {
		fe   FieldError
		want string
	}{
		{FieldError{"a.b", "", "required"}, "a.b: required"},
		{FieldError{"a.b", "x y", "bad"}, `a.b: bad (got "x y")`},
	}
	for _, tt := range tests {
		if got := tt.fe.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}
