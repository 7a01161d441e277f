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
	"github.com/oci-ccm/oci-ccm/internal/compatdata"
	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// Status is what oci-ccm does with an upstream key, next to what upstream does. The values are
// internal/compatdata's, which programs read the table through.
type Status = compatdata.Status

// The statuses. There is no "unknown": a key whose outcome is none of these fails generation, and
// so does a sample whose facets differ from upstream's without a Difference saying why.
const (
	Supported            = compatdata.Supported
	SupportedDifferently = compatdata.SupportedDifferently
	Refused              = compatdata.Refused
	// RefusedAsUpstream is a sample both CCMs refuse (an edge value).
	RefusedAsUpstream = compatdata.RefusedAsUpstream
)

// Row is one line of the compatibility table.
type Row struct {
	Key string
	// Value is the sample's value, with what it needs beside it.
	Value  string
	Status Status
	// Upstream and OCI are the compared facets of each side; OCI is "same" when they agree.
	Upstream, OCI string
	// Note is the difference (SupportedDifferently), the refusal's message (Refused), or empty.
	Note string
}

// errUnknown marks a key oci-ccm neither implements nor refuses: it would be ignored silently.
var errUnknown = errors.New("neither implemented nor refused (silently ignored)")

// errUndocumented marks a sample whose facets differ from upstream's with no Difference text.
var errUndocumented = errors.New("differs from the upstream CCM and no Difference says why")

// errStaleDifference marks a Difference text on a sample whose facets agree with upstream's.
var errStaleDifference = errors.New("has a Difference text but the same facets as the upstream CCM")

// comparison is one sample's two sides and what documents their differences.
type comparison struct {
	key, value             string
	upstreamBase, upstream Facets
	ociBase, oci           Facets
	difference, also       string
	// unseen says why a sample shows no facet (what it changes is not in a load balancer's spec).
	unseen string
}

// verdict compares the sides on the facets the sample touches and returns the row, or an error
// when they differ undocumented (or a Difference documents nothing).
func (c comparison) verdict() (Row, error) {
	fs := relevant(c.upstreamBase, c.upstream, c.ociBase, c.oci)
	diff := differing(fs, c.upstream, c.oci)
	upRefused, ociRefused := c.upstream[Refusal] != "", c.oci[Refusal] != ""
	shown := slices.DeleteFunc(slices.Clone(fs), func(f Facet) bool { return f == Refusal })
	row := Row{Key: c.key, Value: c.value, Upstream: c.upstream.render(shown), OCI: "same"}
	switch {
	case upRefused:
		row.Upstream = "refused: " + c.upstream[Refusal]
	case len(shown) == 0 && c.unseen != "":
		row.Upstream = c.unseen
	case len(shown) == 0:
		row.Upstream = "as without it"
	}
	switch {
	case len(diff) == 0:
	case ociRefused:
		row.OCI = "refused"
	case len(shown) == 0:
		row.OCI = "as without it"
	default:
		row.OCI = c.oci.render(shown)
	}
	name := c.key + " " + c.value
	switch {
	case ociRefused && c.difference != "":
		return Row{}, fmt.Errorf("%s is refused by oci-ccm: its Difference text is not shown; remove it", name)
	case ociRefused && upRefused:
		row.Status = RefusedAsUpstream
		row.Note = c.oci[Refusal]
	case ociRefused:
		row.Status, row.Note = Refused, c.oci[Refusal]
	case len(diff) > 0 && c.difference == "":
		return Row{}, fmt.Errorf("%s %w: upstream %s; oci-ccm %s", name, errUndocumented, c.upstream.render(diff), c.oci.render(diff))
	case len(diff) == 0 && c.difference != "":
		return Row{}, fmt.Errorf("%s %w", name, errStaleDifference)
	case len(diff) > 0 || c.also != "":
		row.Status = SupportedDifferently
		row.Note = strings.TrimPrefix(c.difference+"; "+c.also, "; ")
		row.Note = strings.TrimSuffix(row.Note, "; ")
	default:
		row.Status = Supported
	}
	return row, nil
}

// expected is upstream's facets for a sample: base with the expectation's changes, or the
// refusal alone when the expectation is one.
func expected(base, changes Facets) Facets {
	if msg := changes[Refusal]; msg != "" {
		return refused(msg)
	}
	return base.with(changes)
}

// sampleOf returns the sample Service of an annotation row: Key=Value, its With, its Spec.
func sampleOf(a upstreamAnnotation) *v1.Service {
	ann := map[string]string{a.Key: a.Value}
	for k, v := range a.With {
		ann[k] = v
	}
	svc := sampleService(ann)
	if a.Spec != nil {
		a.Spec(&svc.Spec)
	}
	return svc
}

// baseKind is the kind of the row's sample without its key: the kind whose plain Service its
// facets are compared against (the load-balancer-type row's is lb, its sample's nlb).
func baseKind(a upstreamAnnotation) model.Kind {
	if strings.EqualFold(a.With[o+"load-balancer-type"], "nlb") {
		return model.KindNetworkLoadBalancer
	}
	return model.KindLoadBalancer
}

// ociFacets runs lb.Desired on svc with cfg and describes the result; refused names the field
// whose refusal is the sample's outcome (another field's refusal is an error).
func ociFacets(svc *v1.Service, cfg *config.Config, field string) (Facets, error) {
	spec, err := lb.Desired(svc, sampleNodes(), cfg, lb.Known{Secrets: anySecret(svc)})
	var ve *lb.ValidationError
	switch {
	case errors.As(err, &ve):
		for _, p := range ve.Problems {
			if p.Field == field {
				return refused(fmt.Sprintf("%q: %s", p.Value, p.Allowed)), nil
			}
		}
		return nil, fmt.Errorf("the sample is refused for another reason: %w", err)
	case err != nil:
		return nil, err
	}
	x := specFacets(spec)
	// Who makes the calls is not in the Spec: the Reconciler chooses the clients from the
	// annotation (lb/engine/workload.go, driversFor).
	if sa, ok := svc.Annotations[string(annotation.WorkloadServiceAccount)]; ok {
		x[AuthPrincipal] = "workload identity of ServiceAccount " + sa
	}
	return x, nil
}

// plainFacets are oci-ccm's facets for the plain sample Service of a kind.
func plainFacets(kind model.Kind) (Facets, error) {
	var ann map[string]string
	if kind == model.KindNetworkLoadBalancer {
		ann = maps.Clone(nlb)
	}
	return ociFacets(sampleService(ann), sampleConfig(), "")
}

// classifyAnnotation runs lb.Desired on a Service carrying the annotation (and what it needs
// beside it), compares what it builds with what the upstream CCM builds (a.Upstream), and
// reports what oci-ccm does with it.
func classifyAnnotation(a upstreamAnnotation) (Row, error) {
	cfg := sampleConfig()
	if a.Config != nil {
		a.Config(cfg)
	}
	oci, err := ociFacets(sampleOf(a), cfg, a.Key)
	if err != nil {
		return Row{}, fmt.Errorf("annotation %s=%q: %w", a.Key, a.Value, err)
	}
	if oci[Refusal] == "" && !slices.Contains(annotation.All(), annotation.Name(a.Key)) {
		return Row{}, fmt.Errorf("annotation %s: %w", a.Key, errUnknown)
	}
	if a.Upstream == nil {
		return Row{}, fmt.Errorf("annotation %s=%q: no Upstream expectation", a.Key, a.Value)
	}
	kind := baseKind(a)
	ociBase, err := plainFacets(kind)
	if err != nil {
		return Row{}, fmt.Errorf("the plain sample %s: %w", kind, err)
	}
	upstreamBase := upstreamPlain[kind]
	c := comparison{key: a.Key, value: sampleValue(a), upstreamBase: upstreamBase, upstream: expected(upstreamBase, a.Upstream),
		ociBase: ociBase, oci: oci, difference: a.Difference, also: a.Also, unseen: a.Unseen}
	return c.verdict()
}

// plainKey is the key column of the rows without annotations or keys, which show the defaults.
const plainKey = "(none)"

// classifyPlain compares the plain sample Service of a kind, every facet: the defaults.
func classifyPlain(p upstreamPlainRow) (Row, error) {
	oci, err := plainFacets(p.Kind)
	if err != nil {
		return Row{}, fmt.Errorf("the plain sample %s: %w", p.Kind, err)
	}
	c := comparison{key: plainKey, value: p.Sample, upstreamBase: Facets{}, upstream: upstreamPlain[p.Kind],
		ociBase: Facets{}, oci: oci, difference: p.Difference}
	return c.verdict()
}

// sampleValue renders an annotation row's value with what it needs beside it.
func sampleValue(a upstreamAnnotation) string {
	v := fmt.Sprintf("%q", a.Value)
	var with []string
	for _, k := range slices.Sorted(maps.Keys(a.With)) {
		with = append(with, fmt.Sprintf("%s=%q", strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(k, s), o), n), a.With[k]))
	}
	for _, note := range []string{a.SpecNote, a.ConfigNote} {
		if note != "" {
			with = append(with, note)
		}
	}
	if len(with) > 0 {
		v += " with " + strings.Join(with, ", ")
	}
	return v
}

// classifyConfigKey loads a document setting the key, runs lb.Desired on the sample Service with
// it, and compares both with what the upstream CCM makes of the key (k.Upstream). An error
// naming the key is a refusal, a warning on the key is shown beside the verdict.
func classifyConfigKey(k upstreamConfigKey) (Row, error) {
	if k.Upstream == nil {
		return Row{}, fmt.Errorf("config key %s: no Upstream expectation", k.Key)
	}
	oci, warnings, err := loadedFacets(k.YAML, k.Key)
	if err != nil {
		return Row{}, fmt.Errorf("config key %s: %w", k.Key, err)
	}
	also := k.Also
	for _, w := range warnings {
		if w.Field == k.Key {
			also = strings.TrimPrefix(also+"; accepted with a warning: "+w.Message, "; ")
		}
	}
	ociBase, _, err := loadedFacets("", "")
	if err != nil {
		return Row{}, fmt.Errorf("an empty config: %w", err)
	}
	c := comparison{key: k.Key, value: k.YAML, upstreamBase: upstreamPlainConfig, upstream: expected(upstreamPlainConfig, k.Upstream),
		ociBase: ociBase, oci: oci, difference: k.Difference, also: also, unseen: k.Unseen}
	return c.verdict()
}

// classifyPlainConfig compares an empty cloud-provider.yaml, every facet: the defaults.
func classifyPlainConfig() (Row, error) {
	oci, _, err := loadedFacets("", "")
	if err != nil {
		return Row{}, fmt.Errorf("an empty config: %w", err)
	}
	c := comparison{key: plainKey, value: "a file setting only the sample's compartment and subnets", upstreamBase: Facets{}, upstream: upstreamPlainConfig,
		ociBase: Facets{}, oci: oci, difference: upstreamPlainConfigDifference}
	return c.verdict()
}

// loadedFacets parses doc with config.Parse (the file's reading and defaults, without the
// validation that would refuse a document lacking the sample's compartment) and describes the configuration and the sample
// Service's load balancer under it; a ValidationError naming key is a refusal. The sample's
// compartment and subnets stand in for those the document does not set.
func loadedFacets(doc, key string) (Facets, []config.Warning, error) {
	cfg, warnings, err := config.Parse(strings.NewReader(doc))
	if err != nil {
		var ve *config.ValidationError
		if errors.As(err, &ve) {
			for _, fe := range ve.Errors {
				if fe.Field == key {
					return refused(fe.Detail), warnings, nil
				}
			}
		}
		return nil, warnings, fmt.Errorf("refused without naming it: %w", err)
	}
	if cfg == nil {
		return nil, warnings, errUnknown
	}
	withSample := *cfg
	sample := sampleConfig()
	if withSample.CompartmentID == "" {
		withSample.CompartmentID = sample.CompartmentID
	}
	if withSample.LoadBalancer.Subnet1 == "" && withSample.LoadBalancer.Subnet2 == "" {
		withSample.LoadBalancer.Subnet1, withSample.LoadBalancer.Subnet2 = sample.LoadBalancer.Subnet1, sample.LoadBalancer.Subnet2
	}
	x, err := ociFacets(sampleService(nil), &withSample, "")
	if err != nil {
		return nil, warnings, err
	}
	return x.with(configFacets(cfg)), warnings, nil
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
	spec, err := lb.Desired(svc, sampleNodes(), cfg, lb.Known{})
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

// The sample configuration's compartment and subnets.
const (
	sampleCompartment = "ocid1.compartment.oc1..c"
	sampleSubnet1     = "ocid1.subnet.oc1.phx.a"
	sampleSubnet2     = "ocid1.subnet.oc1.phx.b"
)

// sampleNodes are two instances' Nodes, one labelled pool=web, so a node-label selector shows.
func sampleNodes() []*v1.Node {
	node := func(name, ip, pool string) *v1.Node {
		return &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"pool": pool}},
			Spec:       v1.NodeSpec{ProviderID: "oci://ocid1.instance.oc1.phx." + name},
			Status:     v1.NodeStatus{Addresses: []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: ip}}},
		}
	}
	return []*v1.Node{node("node-1", "10.0.10.2", "web"), node("node-2", "10.0.10.3", "api")}
}

func sampleConfig() *config.Config {
	return &config.Config{
		CompartmentID: sampleCompartment,
		LoadBalancer:  config.LoadBalancer{Subnet1: sampleSubnet1, Subnet2: sampleSubnet2},
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
