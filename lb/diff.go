package lb

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// compareOptions make equal what OCI treats as equal: nil and empty, slice order of backends,
// NSGs and TLS versions.
var compareOptions = cmp.Options{
	cmpopts.EquateEmpty(),
	cmpopts.SortSlices(func(a, b Backend) bool {
		if a.IP != b.IP {
			return compareIPs(a.IP, b.IP) < 0
		}
		return a.Port < b.Port
	}),
	cmpopts.SortSlices(func(a, b string) bool { return a < b }),
}

// Diff computes the plan that turns observed into desired. observed is nil when no load balancer
// exists yet; the plan then creates it in one call. A change OCI cannot make in place (subnets,
// internal/public, reserved IP, kind, flexible→fixed shape) returns an *ImmutableError and no
// plan. An observed load balancer that already matches yields an empty plan.
//
// Diff is pure. Fields marked Defaulted in desired take the observed value, so a changed default
// never touches existing load balancers.
func Diff(observed, desired *Spec) (*Plan, error) {
	if desired == nil {
		return nil, errors.New("lb: Diff needs a desired Spec")
	}
	target := desired.Clone()
	if observed == nil {
		target.ID = ""
		return &Plan{
			Name:    target.Name,
			Changes: []Change{{Action: ActionCreateLoadBalancer, Name: target.Name, After: target}},
			Target:  target,
		}, nil
	}
	target.ID = observed.ID
	if target.Defaulted.Subnets && len(observed.Subnets) > 0 {
		target.Subnets = slices.Clone(observed.Subnets)
	}
	if target.Defaulted.Shape && observed.Shape.Name != "" {
		target.Shape = observed.Shape
	}
	if err := immutable(observed, target); err != nil {
		return nil, err
	}

	var changes []Change
	add := func(a Action, name string, before, after any) {
		changes = append(changes, Change{Action: a, Name: name, Before: before, After: after})
	}
	desiredNSGs := target.NetworkSecurityGroups
	target.NetworkSecurityGroups = targetNSGs(observed.NetworkSecurityGroups, managedNSGs(observed.FreeformTags), desiredNSGs)
	tags, changed := ownerTagsAfter(observed.FreeformTags, target.Owner)
	tags, nsgsChanged := nsgTagsAfter(tags, desiredNSGs)
	if changed || nsgsChanged || observed.Name != target.Name {
		add(ActionUpdateLoadBalancer, target.Name,
			Settings{Name: observed.Name, FreeformTags: observed.FreeformTags},
			Settings{Name: target.Name, FreeformTags: tags})
	}
	if observed.Shape != target.Shape {
		add(ActionUpdateShape, target.Name, observed.Shape, target.Shape)
	}
	if !cmp.Equal(observed.NetworkSecurityGroups, target.NetworkSecurityGroups, compareOptions) {
		add(ActionUpdateNetworkSecurityGroups, target.Name, slices.Clone(observed.NetworkSecurityGroups), slices.Clone(target.NetworkSecurityGroups))
	}

	// Certificates are never updated in place (nil equal, so the update action is unused): their
	// names carry a hash of their content.
	changes = append(changes, diffNamed(observed.Certificates, target.Certificates, nil,
		ActionCreateCertificate, ActionCreateCertificate, ActionDeleteCertificate)...)
	changes = append(changes, diffNamed(observed.BackendSets, target.BackendSets, equalBackendSet,
		ActionCreateBackendSet, ActionUpdateBackendSet, ActionDeleteBackendSet)...)
	// What the Spec does not manage stays as observed (an update replaces the whole listener).
	for name, l := range target.Listeners {
		if o, ok := observed.Listeners[name]; ok {
			l.Routing = o.Routing.clone()
			target.Listeners[name] = l
		}
	}
	changes = append(changes, diffNamed(observed.Listeners, target.Listeners, equalListener,
		ActionCreateListener, ActionUpdateListener, ActionDeleteListener)...)

	ordered, err := order(changes, observed)
	if err != nil {
		return nil, err
	}
	return &Plan{LoadBalancerID: observed.ID, Name: observed.Name, Changes: ordered, Target: target}, nil
}

// DeletePlan is the plan that deletes the observed load balancer.
func DeletePlan(observed *Spec) *Plan {
	return &Plan{
		LoadBalancerID: observed.ID,
		Name:           observed.Name,
		Changes:        []Change{{Action: ActionDeleteLoadBalancer, Name: observed.Name, Before: observed}},
	}
}

// immutable reports the differences OCI cannot apply to an existing load balancer.
func immutable(observed, target *Spec) error {
	var cs []ImmutableChange
	const recreate = "delete and recreate the Service to get a new load balancer"
	if observed.Kind != "" && observed.Kind != target.Kind {
		cs = append(cs, ImmutableChange{Field: "load balancer type", Observed: string(observed.Kind), Desired: string(target.Kind), Hint: recreate})
	}
	if observed.Internal != target.Internal {
		cs = append(cs, ImmutableChange{Field: "internal", Observed: fmt.Sprint(observed.Internal), Desired: fmt.Sprint(target.Internal), Hint: recreate})
	}
	if !cmp.Equal(observed.Subnets, target.Subnets, compareOptions) {
		cs = append(cs, ImmutableChange{Field: "subnets", Observed: strings.Join(observed.Subnets, ","), Desired: strings.Join(target.Subnets, ","),
			Hint: "OCI cannot move a load balancer; restore the subnet annotations or recreate the Service"})
	}
	if target.ReservedIP != "" && target.ReservedIP != observed.ReservedIP {
		was := observed.ReservedIP
		if was == "" {
			was = "an ephemeral IP"
		}
		cs = append(cs, ImmutableChange{Field: "reserved IP (spec.loadBalancerIP)", Observed: was, Desired: target.ReservedIP, Hint: recreate})
	}
	if observed.Shape.IsFlexible() && !target.Shape.IsFlexible() {
		cs = append(cs, ImmutableChange{Field: "shape", Observed: observed.Shape.String(), Desired: target.Shape.String(),
			Hint: "OCI cannot turn a flexible shape back into a fixed one; use " + string(AnnotationShapeFlexMin) + "/-max"})
	}
	if len(cs) == 0 {
		return nil
	}
	return &ImmutableError{LoadBalancerID: observed.ID, Changes: cs}
}

// String returns e.g. "flexible 10–100 Mbps" or "100Mbps".
func (s Shape) String() string {
	if s.IsFlexible() {
		return fmt.Sprintf("%s %d–%d Mbps", s.Name, s.MinMbps, s.MaxMbps)
	}
	return s.Name
}

// equalListener compares after normalising what OCI fills in when the Service leaves it open.
func equalListener(observed, desired Listener) bool {
	o := observed
	if o.IdleTimeoutSeconds == 0 {
		o.IdleTimeoutSeconds = defaultIdleTimeout(o.Protocol)
	}
	o.TLS = normaliseTLS(o.TLS, desired.TLS)
	o.Routing = desired.Routing // not managed: never a reason to update
	return cmp.Equal(o, desired, compareOptions)
}

// equalBackendSet compares after normalising what OCI fills in.
func equalBackendSet(observed, desired BackendSet) bool {
	o := observed
	o.Policy = strings.ToUpper(o.Policy)
	o.TLS = normaliseTLS(o.TLS, desired.TLS)
	if o.HealthCheck.Protocol == ProtocolTCP && desired.HealthCheck.Protocol == ProtocolTCP {
		o.HealthCheck.Path, o.HealthCheck.ReturnCode = desired.HealthCheck.Path, desired.HealthCheck.ReturnCode
	}
	return cmp.Equal(o, desired, compareOptions)
}

// normaliseTLS drops observed cipher suite and versions when the desired side leaves them to OCI.
func normaliseTLS(observed, desired *TLS) *TLS {
	if observed == nil || desired == nil {
		return observed
	}
	o := observed.clone()
	if desired.CipherSuite == "" {
		o.CipherSuite = ""
	}
	if len(desired.Protocols) == 0 {
		o.Protocols = nil
	}
	return o
}

func defaultIdleTimeout(protocol string) int64 {
	if protocol == ProtocolTCP {
		return defaultIdleTimeoutTCP
	}
	return defaultIdleTimeoutHTTP
}

// diffNamed compares two sets of named parts (certificates, backend sets, listeners): a part only
// in target is created, one only in observed is deleted, and one in both is updated when equal
// says it differs (equal nil: never updated). Names are visited in order, so plans are stable.
func diffNamed[V any](observed, target map[string]V, equal func(a, b V) bool, create, update, del Action) []Change {
	var out []Change
	for _, name := range slices.Sorted(maps.Keys(target)) {
		t := target[name]
		o, ok := observed[name]
		switch {
		case !ok:
			out = append(out, Change{Action: create, Name: name, After: t})
		case equal != nil && !equal(o, t):
			out = append(out, Change{Action: update, Name: name, Before: o, After: t})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(observed)) {
		if _, ok := target[name]; !ok {
			out = append(out, Change{Action: del, Name: name, Before: observed[name]})
		}
	}
	return out
}
