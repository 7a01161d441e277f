// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"gopkg.in/yaml.v3"
)

// MaxFileSize bounds what Load, Open and Parse read. The file arrives in a Kubernetes Secret, which cannot
// exceed 1 MiB, so anything larger is not a cloud-provider.yaml.
const MaxFileSize = 1 << 20

// Warning is a finding that does not stop the config from loading, such as a deprecated field
// name from the upstream CCM. The caller decides how to log it.
type Warning struct {
	// Field is the path of the field in the file, e.g. "auth.key_passphrase".
	Field string
	// Message says what was done with the field and what to write instead.
	Message string
}

// String renders the warning as "field: message".
func (w Warning) String() string { return w.Field + ": " + w.Message }

// Load reads one cloud-provider.yaml document and returns it ready to use: parsed strictly,
// with the upstream CCM's field names mapped onto the current ones, defaulted, and validated.
// It is the reader form, for tests and programs that embed the library; the binary uses Open.
//
// The error is a parse error (bad YAML, an unknown field: each names its line) or a
// *ValidationError listing every problem at once, each with its field path, the bad value and
// what is allowed. Load consults no instance metadata, so auth.region and compartment must be
// in the document. What the file cannot hold comes through opts (WithEnvironment) and is
// checked with it; without it, the token exchange settings of useWorkloadIdentity
// (Config.WorkloadIdentity) are left to whoever fills them in: ccm.New, or Validate.
// Deprecated names are accepted and reported as warnings, returned even with an error.
func Load(r io.Reader, opts ...Option) (*Config, []Warning, error) {
	cfg, warnings, err := Parse(r)
	if err != nil {
		return nil, warnings, err
	}
	if err := newLoadOptions(opts).finish(cfg); err != nil {
		return nil, warnings, err
	}
	return cfg, warnings, nil
}

// Open reads the cloud-provider.yaml at path and returns it ready to use, as Load does, with
// one addition for the binary: when the file sets no auth.region or no compartment, Open fills
// them from the instance metadata service of the OCI instance it runs on, waiting 30 seconds
// at most, so a cluster's file need not repeat what the instance knows. Errors reading or
// parsing the file name the path; the others do not, since the caller knows which file it
// opened. The warnings are returned even with an error.
func Open(ctx context.Context, path string, opts ...Option) (*Config, []Warning, error) {
	return open(ctx, path, &MetadataClient{}, newLoadOptions(opts))
}

// open is Open reading the instance metadata from src.
func open(ctx context.Context, path string, src InstanceMetadataSource, o loadOptions) (*Config, []Warning, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("open cloud-provider config: %w", err)
	}
	defer f.Close()
	cfg, warnings, err := Parse(f)
	if err != nil {
		return nil, warnings, fmt.Errorf("%s: %w", path, err)
	}
	if cfg.needsMetadata() {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := cfg.complete(ctx, src); err != nil {
			return nil, warnings, fmt.Errorf("region or compartment not set and not readable from instance metadata: %w", err)
		}
	}
	if err := o.finish(cfg); err != nil {
		return nil, warnings, err
	}
	return cfg, warnings, nil
}

// Option gives Load and Open what cloud-provider.yaml cannot hold, so that the Config they
// return has been checked with it.
type Option func(*loadOptions)

// WithEnvironment has Load and Open read, with getenv (os.Getenv in the binary), the upstream
// CCM's environment variables that complete the file: LOAD_BALANCER_PREFIX, carried into
// loadBalancer.naming.prefix (see ApplyUpstreamPrefix, whose error is returned as it is), and,
// with useWorkloadIdentity: true, OCI_WORKLOAD_IDENTITY_* (see WorkloadIdentityFromEnvironment),
// which are then validated with the file.
func WithEnvironment(getenv func(string) string) Option {
	return func(o *loadOptions) { o.getenv = getenv }
}

// loadOptions are the Options of one Load or Open.
type loadOptions struct {
	// getenv reads the environment; nil reads none (WithEnvironment).
	getenv func(string) string
}

func newLoadOptions(opts []Option) loadOptions {
	var o loadOptions
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// finish completes a parsed Config with what the options give and validates it, in the order
// ccm.New has always applied them: the prefix, the workload identity, then the checks.
func (o loadOptions) finish(cfg *Config) error {
	if o.getenv == nil {
		return cfg.validate(checkFile)
	}
	if err := cfg.ApplyUpstreamPrefix(o.getenv(UpstreamPrefixVariable)); err != nil {
		return err
	}
	if cfg.UseWorkloadIdentity {
		wi, err := WorkloadIdentityFromEnvironment(o.getenv)
		if err != nil {
			return err
		}
		cfg.WorkloadIdentity = wi
	}
	return cfg.validate(checkAll)
}

// Parse is Load without the validation, and is for advanced use only: tools that report on a
// file rather than run with it, such as the binary's check subcommand, which lists a file's
// problems next to findings of its own. It parses one document strictly (at most MaxFileSize),
// maps the upstream CCM's names onto the current ones and applies SetDefaults. The Config it
// returns may be invalid: run Validate before using it. An empty document yields a Config
// holding only defaults.
func Parse(r io.Reader) (*Config, []Warning, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, nil, fmt.Errorf("read cloud-provider config: %w", err)
	}
	if len(data) > MaxFileSize {
		return nil, nil, fmt.Errorf("cloud-provider config is larger than %d bytes", MaxFileSize)
	}

	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var f fileConfig
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("parse cloud-provider config: %w", err)
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, nil, fmt.Errorf("parse cloud-provider config: %w", err)
		}
		return nil, nil, fmt.Errorf("parse cloud-provider config: line %d: a second YAML document; the file must hold exactly one", next.Line)
	}

	cfg, warnings, err := f.config()
	if err != nil {
		return nil, warnings, err
	}
	cfg.SetDefaults()
	return cfg, warnings, nil
}

// fileConfig is the file's schema: every current field (through the inlined contract types) plus
// the upstream CCM's names, so strict decoding accepts both and rejects everything else.
// The type names appear in yaml.v3's "field X not found in type Y" errors, hence the wording.
type fileConfig struct {
	ClusterID               string              `yaml:"clusterID"`
	AllowDefaultClusterName bool                `yaml:"allowDefaultClusterName"`
	Auth                    authSection         `yaml:"auth"`
	UseInstancePrincipals   bool                `yaml:"useInstancePrincipals"`
	UseWorkloadIdentity     bool                `yaml:"useWorkloadIdentity"`
	CompartmentID           string              `yaml:"compartment"`
	VCNID                   string              `yaml:"vcn"`
	LoadBalancer            loadBalancerSection `yaml:"loadBalancer"`
	RateLimiter             rateLimiterSection  `yaml:"rateLimiter"`
	Endpoint                Endpoint            `yaml:"endpoint"`

	// Upstream CCM fields. Metrics (and the storage tag sets below) are decoded as any because
	// their content is ignored; strictness there would only break upstream files.
	RegionKey *string       `yaml:"regionKey"`
	Tags      *upstreamTags `yaml:"tags"`
	Metrics   any           `yaml:"metrics"`
}

type authSection struct {
	Auth `yaml:",inline"`

	// Upstream CCM fields.
	UseInstancePrincipals *bool   `yaml:"useInstancePrincipals"`
	KeyPassphrase         Secret  `yaml:"key_passphrase"`
	CompartmentID         string  `yaml:"compartment"`
	RegionKey             *string `yaml:"regionKey"`
}

type loadBalancerSection struct {
	LoadBalancer `yaml:",inline"`

	// Upstream CCM field.
	DisableSecurityListManagement *bool `yaml:"disableSecurityListManagement"`
}

type rateLimiterSection struct {
	RateLimiter `yaml:",inline"`

	// Upstream CCM fields.
	RateLimitQPSRead     *float64 `yaml:"rateLimitQPSRead"`
	RateLimitBucketRead  *int     `yaml:"rateLimitBucketRead"`
	RateLimitQPSWrite    *float64 `yaml:"rateLimitQPSWrite"`
	RateLimitBucketWrite *int     `yaml:"rateLimitBucketWrite"`
	DisableRateLimiter   *bool    `yaml:"disableRateLimiter"`
}

// upstreamTags is the upstream CCM's top-level tags section. Only the load balancer and common
// sets concern oci-ccm; the others belong to the upstream storage drivers.
type upstreamTags struct {
	LoadBalancer *upstreamTagSet `yaml:"loadBalancer"`
	Common       *upstreamTagSet `yaml:"common"`
	BlockVolume  any             `yaml:"blockVolume"`
	FSS          any             `yaml:"fss"`
	Lustre       any             `yaml:"lustre"`
}

type upstreamTagSet struct {
	FreeformTags map[string]string         `yaml:"freeform"`
	DefinedTags  map[string]map[string]any `yaml:"defined"`
}

// config converts the file's schema into a Config, folding each upstream name into its
// replacement. A current field always wins over its upstream counterpart.
func (f *fileConfig) config() (*Config, []Warning, error) {
	cfg := &Config{
		ClusterID:               f.ClusterID,
		AllowDefaultClusterName: f.AllowDefaultClusterName,
		Auth:                    f.Auth.Auth,
		UseInstancePrincipals:   f.UseInstancePrincipals,
		UseWorkloadIdentity:     f.UseWorkloadIdentity,
		CompartmentID:           f.CompartmentID,
		VCNID:                   f.VCNID,
		LoadBalancer:            f.LoadBalancer.LoadBalancer,
		RateLimiter:             f.RateLimiter.RateLimiter,
		Endpoint:                f.Endpoint,
	}
	var w warnings

	a := &f.Auth
	if a.UseInstancePrincipals != nil {
		if *a.UseInstancePrincipals {
			cfg.UseInstancePrincipals = true
		}
		w.add("auth.useInstancePrincipals", "deprecated; write useInstancePrincipals at the top level")
	}
	if a.KeyPassphrase != "" {
		if cfg.Auth.Passphrase == "" {
			cfg.Auth.Passphrase = a.KeyPassphrase
			w.add("auth.key_passphrase", "deprecated; write auth.passphrase")
		} else {
			w.add("auth.key_passphrase", "deprecated and ignored because auth.passphrase is set")
		}
	}
	if a.CompartmentID != "" {
		if cfg.CompartmentID == "" {
			cfg.CompartmentID = a.CompartmentID
			w.add("auth.compartment", "deprecated; write compartment at the top level")
		} else {
			w.add("auth.compartment", "deprecated and ignored because compartment is set")
		}
	}
	if a.RegionKey != nil {
		w.add("auth.regionKey", "ignored; oci-ccm derives everything it needs from auth.region")
	}
	if f.RegionKey != nil {
		w.add("regionKey", "ignored; oci-ccm derives everything it needs from auth.region")
	}

	lb := &f.LoadBalancer
	if lb.DisableSecurityListManagement != nil {
		switch {
		case cfg.LoadBalancer.SecurityListManagementMode != "":
			w.add("loadBalancer.disableSecurityListManagement",
				"deprecated and ignored because loadBalancer.securityListManagementMode is set")
		case *lb.DisableSecurityListManagement:
			cfg.LoadBalancer.SecurityListManagementMode = SecurityListModeNone
			w.add("loadBalancer.disableSecurityListManagement",
				"deprecated; write loadBalancer.securityListManagementMode: None")
		default:
			w.add("loadBalancer.disableSecurityListManagement",
				"deprecated; remove it (false is the default) or write loadBalancer.securityListManagementMode")
		}
	}

	rl := &f.RateLimiter
	fold(&w, "rateLimiter.rateLimitQPSRead", "rateLimiter.readQPS", rl.RateLimitQPSRead, &cfg.RateLimiter.ReadQPS)
	fold(&w, "rateLimiter.rateLimitBucketRead", "rateLimiter.readBurst", rl.RateLimitBucketRead, &cfg.RateLimiter.ReadBurst)
	fold(&w, "rateLimiter.rateLimitQPSWrite", "rateLimiter.writeQPS", rl.RateLimitQPSWrite, &cfg.RateLimiter.WriteQPS)
	fold(&w, "rateLimiter.rateLimitBucketWrite", "rateLimiter.writeBurst", rl.RateLimitBucketWrite, &cfg.RateLimiter.WriteBurst)
	if rl.DisableRateLimiter != nil {
		if *rl.DisableRateLimiter {
			cfg.RateLimiter.Disabled = true
		}
		w.add("rateLimiter.disableRateLimiter", "deprecated; write rateLimiter.disabled")
	}

	if f.Tags != nil {
		f.Tags.fold(&w, &cfg.LoadBalancer.Tags)
	}
	if f.Metrics != nil {
		w.add("metrics", "ignored; oci-ccm exposes Prometheus metrics and does not push to OCI Monitoring")
	}
	return cfg, w.list, nil
}

// fold merges the upstream load balancer and common tag sets into dst. Precedence, highest
// first: loadBalancer.tags, tags.loadBalancer, tags.common. The common set goes on load
// balancers as its name says; upstream v1.35 merges it only in OKE's own build (load_balancer.go,
// enableOkeSystemTags), a documented difference (lb/COMPATIBILITY.md).
func (t *upstreamTags) fold(w *warnings, dst *Tags) {
	for _, set := range []struct {
		field string
		tags  *upstreamTagSet
	}{{"tags.loadBalancer", t.LoadBalancer}, {"tags.common", t.Common}} {
		if set.tags == nil {
			continue
		}
		w.add(set.field, "deprecated; write loadBalancer.tags (freeformTags, definedTags)")
		for k, v := range set.tags.FreeformTags {
			if _, ok := dst.FreeformTags[k]; !ok {
				if dst.FreeformTags == nil {
					dst.FreeformTags = map[string]string{}
				}
				dst.FreeformTags[k] = v
			}
		}
		for ns, kv := range set.tags.DefinedTags {
			for k, v := range kv {
				if _, ok := dst.DefinedTags[ns][k]; ok {
					continue
				}
				if dst.DefinedTags == nil {
					dst.DefinedTags = map[string]map[string]any{}
				}
				if dst.DefinedTags[ns] == nil {
					dst.DefinedTags[ns] = map[string]any{}
				}
				dst.DefinedTags[ns][k] = v
			}
		}
	}
	for _, other := range []struct {
		field string
		value any
	}{{"tags.blockVolume", t.BlockVolume}, {"tags.fss", t.FSS}, {"tags.lustre", t.Lustre}} {
		if other.value != nil {
			w.add(other.field, "ignored; oci-ccm manages load balancers only")
		}
	}
}

// fold copies a deprecated rate-limiter value into its replacement unless the replacement is set.
func fold[T int | float64](w *warnings, old, current string, from *T, to *T) {
	if from == nil {
		return
	}
	if *to != 0 {
		w.add(old, "deprecated and ignored because "+current+" is set")
		return
	}
	*to = *from
	w.add(old, "deprecated; write "+current)
}

// warnings collects Warnings in the order the fields are checked, which is stable.
type warnings struct{ list []Warning }

func (w *warnings) add(field, msg string) {
	w.list = append(w.list, Warning{Field: field, Message: msg})
}
