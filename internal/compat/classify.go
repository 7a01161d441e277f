// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
)

// Status is what oci-ccm does with an upstream key.
type Status string

// The statuses. There is no "unknown": a key whose outcome is none of these fails generation.
const (
	Supported            Status = "supported"
	SupportedDifferently Status = "supported, with a difference"
	Refused              Status = "refused"
)

// Row is one line of the compatibility table.
type Row struct {
	Key    string
	Status Status
	// Note is the difference (SupportedDifferently), the refusal's message (Refused), or empty.
	Note string
}

// errUnknown marks a key oci-ccm neither implements nor refuses: it would be ignored silently.
var errUnknown = errors.New("neither implemented nor refused (silently ignored)")

// classifyAnnotation runs lb.Desired on a Service carrying the annotation (and what it needs
// beside it) and reports what oci-ccm does with it.
func classifyAnnotation(a upstreamAnnotation) (Row, error) {
	ann := map[string]string{a.Key: a.Value}
	for k, v := range a.With {
		ann[k] = v
	}
	svc := sampleService(ann)
	if a.Spec != nil {
		a.Spec(&svc.Spec)
	}
	_, err := lb.Desired(svc, sampleNodes(), sampleConfig(), anySecret(svc))
	var ve *lb.ValidationError
	switch {
	case errors.As(err, &ve):
		for _, p := range ve.Problems {
			if p.Field == a.Key {
				return Row{Key: a.Key, Status: Refused, Note: fmt.Sprintf("%q: %s", a.Value, p.Allowed)}, nil
			}
		}
		return Row{}, fmt.Errorf("annotation %s: the sample is refused for another reason: %w", a.Key, err)
	case err != nil:
		return Row{}, fmt.Errorf("annotation %s: %w", a.Key, err)
	case !slices.Contains(annotation.All(), annotation.Name(a.Key)):
		return Row{}, fmt.Errorf("annotation %s: %w", a.Key, errUnknown)
	case a.Difference != "":
		return Row{Key: a.Key, Status: SupportedDifferently, Note: a.Difference}, nil
	}
	return Row{Key: a.Key, Status: Supported}, nil
}

// classifyConfigKey loads a document setting the key and reports what config.Load makes of it:
// an error is a refusal, a warning on the key a difference (deprecated or ignored), silence
// support, but only when the key is one of the current schema's.
func classifyConfigKey(k upstreamConfigKey) (Row, error) {
	cfg, warnings, err := config.Load(strings.NewReader(k.YAML))
	if err != nil {
		var ve *config.ValidationError
		if errors.As(err, &ve) {
			for _, fe := range ve.Errors {
				if fe.Field == k.Key {
					return Row{Key: k.Key, Status: Refused, Note: fe.Detail}, nil
				}
			}
		}
		return Row{}, fmt.Errorf("config key %s: refused without naming it: %w", k.Key, err)
	}
	for _, w := range warnings {
		if w.Field == k.Key {
			return Row{Key: k.Key, Status: SupportedDifferently, Note: "accepted with a warning: " + w.Message}, nil
		}
	}
	if cfg == nil {
		return Row{}, fmt.Errorf("config key %s: %w", k.Key, errUnknown)
	}
	if k.Difference != "" {
		return Row{Key: k.Key, Status: SupportedDifferently, Note: k.Difference}, nil
	}
	return Row{Key: k.Key, Status: Supported}, nil
}

// upstreamPrefixVariable is the upstream CCM's environment variable for a load balancer name prefix.
const upstreamPrefixVariable = config.UpstreamPrefixVariable

// samplePrefix is the value of upstreamPrefixVariable classified.
const samplePrefix = "prod"

// classifyEnvironment reports what the binary does with the upstream CCM's environment variable:
// it runs config.Config.ApplyUpstreamPrefix (what ccm.New does with the value the binary reads)
// and lb.Desired and checks that a load balancer gets the name
// upstream gives it with the variable set.
func classifyEnvironment() (Row, error) {
	row, err := classifyName(upstreamName{Service: "load balancer", Prefix: samplePrefix})
	if err != nil {
		return Row{}, fmt.Errorf("environment %s: %w", upstreamPrefixVariable, err)
	}
	return Row{Key: upstreamPrefixVariable, Status: Supported, Note: "read once at start-up into loadBalancer.naming.prefix; a load balancer is named " + row.Note +
		"; with loadBalancer.naming.prefix also set, or naming.scheme: name, the two must agree or the binary refuses to start"}, nil
}

// upstreamName is a kind of Service whose load balancer name is classified, with upstream's
// LOAD_BALANCER_PREFIX (empty: unset).
type upstreamName struct {
	Service string // "load balancer" or "network load balancer"
	Prefix  string
}

// upstreamNames are the names classified.
var upstreamNames = []upstreamName{
	{Service: "load balancer"},
	{Service: "load balancer", Prefix: samplePrefix},
	{Service: "network load balancer"},
	{Service: "network load balancer", Prefix: samplePrefix},
}

// want is the upstream CCM's name for the sample Service (upstream CCM v1.35.0,
// pkg/cloudprovider/providers/oci/load_balancer_util.go, GetLoadBalancerName): a network load
// balancer "<namespace>/<name>/<uid>", a load balancer "<prefix><uid>" with a "-" appended to a
// prefix lacking one.
func (u upstreamName) want(svc *v1.Service) string {
	if u.Service == "network load balancer" {
		return svc.Namespace + "/" + svc.Name + "/" + string(svc.UID)
	}
	prefix := u.Prefix
	if prefix != "" && !strings.HasSuffix(prefix, "-") {
		prefix += "-"
	}
	return prefix + string(svc.UID)
}

// classifyName runs oci-ccm's naming (config.Config.ApplyUpstreamPrefix, lb.Desired under the default
// scheme) on the sample Service and fails unless it gives the upstream CCM's name.
func classifyName(u upstreamName) (Row, error) {
	key := u.Service
	var ann map[string]string
	if u.Service == "network load balancer" {
		ann = maps.Clone(nlb)
	}
	if u.Prefix != "" {
		key += ", " + upstreamPrefixVariable + "=" + u.Prefix
	}
	cfg := sampleConfig()
	if err := cfg.ApplyUpstreamPrefix(u.Prefix); err != nil {
		return Row{}, fmt.Errorf("name of a %s: %w", key, err)
	}
	svc := sampleService(ann)
	spec, err := lb.Desired(svc, sampleNodes(), cfg, nil)
	if err != nil {
		return Row{}, fmt.Errorf("name of a %s: %w", key, err)
	}
	generic := strings.NewReplacer(string(svc.UID), "<uid>", svc.Namespace+"/"+svc.Name, "<namespace>/<name>")
	if want := u.want(svc); spec.Name != want {
		return Row{}, fmt.Errorf("name of a %s is %q, the upstream CCM's %q: a migrated cluster would get a second one", key, spec.Name, want)
	}
	note := "`" + generic.Replace(spec.Name) + "`, as upstream; one found under it is adopted and keeps it"
	if spec.Name != string(svc.UID) {
		note += " (one named `<uid>` is found too)"
	}
	return Row{Key: key, Status: Supported, Note: note}, nil
}

func sampleService(ann map[string]string) *v1.Service {
	return &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "0b7f4d5e-1c2a-4e8b-9f10-aa11bb22cc33", Annotations: ann},
		Spec: v1.ServiceSpec{
			Type:                  v1.ServiceTypeLoadBalancer,
			ExternalTrafficPolicy: v1.ServiceExternalTrafficPolicyCluster,
			Ports:                 []v1.ServicePort{{Name: "http", Protocol: v1.ProtocolTCP, Port: 80, NodePort: 30080}},
		},
	}
}

func sampleNodes() []*v1.Node {
	return []*v1.Node{{
		ObjectMeta: metav1.ObjectMeta{Name: "node-1", Labels: map[string]string{"pool": "web"}},
		Status:     v1.NodeStatus{Addresses: []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: "10.0.10.2"}}},
	}}
}

func sampleConfig() *config.Config {
	return &config.Config{
		CompartmentID: "ocid1.compartment.oc1..c",
		LoadBalancer:  config.LoadBalancer{Subnet1: "ocid1.subnet.oc1.phx.a"},
	}
}

// anySecret finds every Secret svc references: whether a Secret exists is not what is classified.
func anySecret(svc *v1.Service) lb.Secrets {
	found := lb.Secrets{}
	for _, ref := range lb.RequiredSecrets(svc) {
		found[ref] = lb.TLSSecret{
			Certificate: "-----BEGIN CERTIFICATE-----\nsample\n-----END CERTIFICATE-----",
			Key:         config.Secret("-----BEGIN PRIVATE KEY-----\nsample\n-----END PRIVATE KEY-----"),
			CA:          "-----BEGIN CERTIFICATE-----\nsample-ca\n-----END CERTIFICATE-----",
		}
	}
	return found
}
