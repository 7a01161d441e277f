// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/internal/equal"
	"github.com/oci-ccm/oci-ccm/lb/internal/freeform"
	"github.com/oci-ccm/oci-ccm/lb/internal/listener"
	"github.com/oci-ccm/oci-ccm/lb/internal/lookup"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// Diff computes the plan that turns observed into desired. observed is nil when no load balancer
// exists yet; the plan then creates it in one call. A change OCI cannot make in place (subnets,
// internal/public, reserved IP, kind, flexible→fixed shape), or oci-ccm does not (compartment),
// returns an *ImmutableError and no plan. An observed load balancer that already matches yields
// an empty plan.
//
// Diff is pure. Fields marked Defaulted in desired take the observed value, so a changed default
// never touches existing load balancers.
func Diff(observed, desired *model.Spec) (*model.Plan, error) {
	if desired == nil {
		return nil, errors.New("lb: Diff needs a desired Spec")
	}
	target := desired.Clone()
	if observed == nil {
		target.ID = ""
		return &model.Plan{
			Name:    target.Name,
			Changes: []model.Change{{Op: model.OpCreate, Name: target.Name, After: target}},
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
	if target.Defaulted.Compartment && observed.CompartmentID != "" {
		target.CompartmentID = observed.CompartmentID
	}
	if err := immutable(observed, target); err != nil {
		return nil, err
	}

	var changes []model.Change
	update := func(name string, before, after model.Object) {
		changes = append(changes, model.Change{Op: model.OpUpdate, Name: name, Before: before, After: after})
	}
	desiredNSGs := target.NetworkSecurityGroups
	target.NetworkSecurityGroups = targetNSGs(observed.NetworkSecurityGroups, managedNSGs(observed.FreeformTags), desiredNSGs)
	if err := checkNSGTotal(target, desiredNSGs); err != nil {
		return nil, err
	}
	tags, changed := freeform.WithOwner(observed.FreeformTags, target.Owner)
	tags, nsgsChanged := freeform.WithNSGs(tags, desiredNSGs)
	managedRS := managedRuleSets(observed.FreeformTags)
	ruleSetChanges := diffRuleSets(observed.RuleSets, target.RuleSets, managedRS)
	tags, ruleSetsChanged := freeform.WithRuleSets(tags, recordedRuleSets(target, observed, ruleSetChanges))
	before, after := model.Settings{Name: observed.Name, FreeformTags: observed.FreeformTags}, model.Settings{Name: target.Name, FreeformTags: tags}
	if target.Kind == model.KindNetworkLoadBalancer && !sameFamilies(observed.IPFamilies, target.IPFamilies) {
		before.IPFamilies, after.IPFamilies = slices.Clone(observed.IPFamilies), slices.Clone(target.IPFamilies)
	}
	if changed || nsgsChanged || ruleSetsChanged || observed.Name != target.Name || after.IPFamilies != nil {
		update(target.Name, before, after)
	}
	if observed.Shape != target.Shape {
		update(target.Name, observed.Shape, target.Shape)
	}
	if !model.Equal(observed.NetworkSecurityGroups, target.NetworkSecurityGroups) {
		update(target.Name, model.NSGs(slices.Clone(observed.NetworkSecurityGroups)), model.NSGs(slices.Clone(target.NetworkSecurityGroups)))
	}

	// Certificates are never updated in place (nil equal): their names carry a hash of their
	// content.
	changes = append(changes, diffNamed(observed.Certificates, target.Certificates, nil)...)
	changes = append(changes, diffNamed(observed.BackendSets, target.BackendSets, equal.BackendSet)...)
	changes = append(changes, ruleSetChanges...)
	keepListenerSpelling(observed.Listeners, target.Listeners)
	// What the Spec does not manage stays as observed (an update replaces the whole listener),
	// and so do the rule sets oci-ccm does not manage.
	for name, l := range target.Listeners {
		if o, ok := observed.Listeners[name]; ok {
			desiredRS := l.Routing.RuleSets
			l.Routing = o.Routing.Clone()
			l.Routing.RuleSets = listenerRuleSets(o.Routing.RuleSets, desiredRS, managedRS)
			target.Listeners[name] = l
		}
	}
	changes = append(changes, diffNamed(observed.Listeners, target.Listeners, equalListener)...)

	ordered, err := order(changes, observed)
	if err != nil {
		return nil, err
	}
	return &model.Plan{LoadBalancerID: observed.ID, Name: observed.Name, Changes: ordered, Target: target}, nil
}

// immutable reports the differences OCI cannot apply to an existing load balancer, each named by
// the annotation or Service field the user changed, with the value to set back.
func immutable(observed, target *model.Spec) error {
	var cs []ImmutableChange
	change := func(field annotation.Name, was, want, how string) {
		back := fmt.Sprintf("set it back to %q", was)
		if was == "" {
			back = "remove it"
		}
		cs = append(cs, ImmutableChange{Field: string(field), Observed: was, Desired: want,
			Hint: how + "; " + back + ", or delete and recreate the Service to get a new load balancer"})
	}
	if observed.CompartmentID != "" && target.CompartmentID != observed.CompartmentID {
		cs = append(cs, ImmutableChange{Field: string(annotation.CompartmentID), Observed: observed.CompartmentID, Desired: target.CompartmentID,
			Hint: fmt.Sprintf("oci-ccm does not move a load balancer between compartments; set it back to %q, or move the load balancer "+
				"to %s first (OCI's change-compartment operation), or delete and recreate the Service to get a new load balancer",
				observed.CompartmentID, target.CompartmentID)})
	}
	if observed.Kind != "" && observed.Kind != target.Kind {
		change(annotation.LoadBalancerType, string(observed.Kind), string(target.Kind), "OCI cannot change a load balancer's type")
	}
	internal, subnets := annotation.Internal, []annotation.Name{annotation.Subnet1, annotation.Subnet2}
	if target.Kind == model.KindNetworkLoadBalancer {
		internal, subnets = annotation.NLBInternal, []annotation.Name{annotation.NLBSubnet}
	}
	if observed.Internal != target.Internal {
		change(internal, fmt.Sprint(observed.Internal), fmt.Sprint(target.Internal),
			"OCI cannot turn a public load balancer into an internal one or back")
	} else if !model.Equal(observed.Subnets, target.Subnets) {
		// Internal load balancers use the first subnet only, so a change of internal changes the
		// subnets too; that change is reported once, above.
		for i, a := range subnets {
			was, want := at(observed.Subnets, i), at(target.Subnets, i)
			if was != want {
				change(a, was, want, "OCI cannot move a load balancer to other subnets")
			}
		}
	}
	if target.ReservedIP != "" && target.ReservedIP != observed.ReservedIP {
		c := ImmutableChange{Field: "spec.loadBalancerIP", Observed: observed.ReservedIP, Desired: target.ReservedIP,
			Hint: fmt.Sprintf("OCI cannot change the address of a load balancer; set it back to %q, or delete and recreate the Service to get a new load balancer", observed.ReservedIP)}
		if observed.ReservedIP == "" {
			c.Observed = "an ephemeral IP"
			c.Hint = "OCI cannot give an existing load balancer a reserved IP; remove spec.loadBalancerIP, or delete and recreate the Service to get a new load balancer"
		}
		cs = append(cs, c)
	}
	if observed.Shape.IsFlexible() && !target.Shape.IsFlexible() {
		change(annotation.Shape, shapeFlexible, target.Shape.String(), "OCI cannot turn a flexible shape back into a fixed one (for a fixed bandwidth, set "+
			string(annotation.ShapeFlexMin)+" and "+string(annotation.ShapeFlexMax)+" to the same value)")
	}
	if len(cs) == 0 {
		return nil
	}
	return &ImmutableError{LoadBalancerID: observed.ID, Changes: cs}
}

// at is s[i], or "" past its end.
func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return ""
}

// equalListener compares after normalising what OCI fills in when the Service leaves it open.
func equalListener(observed, desired model.Listener) bool {
	o := observed
	if o.IdleTimeoutSeconds == 0 && desired.IdleTimeoutSeconds != 0 {
		o.IdleTimeoutSeconds = listener.DefaultIdleTimeout(o.Protocol)
	}
	o.TLS = equal.NormaliseTLS(o.TLS, desired.TLS)
	// Of the routing only the rule sets are managed, and their order does not matter.
	sameRuleSets := model.Equal(o.Routing.RuleSets, desired.Routing.RuleSets)
	o.Routing = desired.Routing
	if strings.EqualFold(o.Protocol, desired.Protocol) {
		o.Protocol = desired.Protocol // OCI's protocols are in capitals; upstream sent them as written
	}
	return sameRuleSets && model.Equal(o, desired)
}

// keepListenerSpelling renames, in target, each listener that observed has under the same name in
// another letter case ("http-80" for "HTTP-80": the upstream CCM names a listener after the
// backend-protocol annotation as written): OCI cannot rename a listener, and replacing it would
// drop its connections for a difference of spelling.
func keepListenerSpelling(observed, target map[string]model.Listener) {
	for name, l := range target {
		if _, ok := observed[name]; ok {
			continue
		}
		for other := range observed {
			_, taken := target[other]
			if !taken && strings.EqualFold(other, name) {
				delete(target, name)
				l.Name = other
				target[other] = l
				break
			}
		}
	}
}

// diffNamed compares two sets of named parts (certificates, backend sets, listeners): a part only
// in target is created, one only in observed is deleted, and one in both is updated when equal
// says it differs (equal nil: never updated). Names are visited in order, so plans are stable.
func diffNamed[V model.Object](observed, target map[string]V, equal func(a, b V) bool) []model.Change {
	var out []model.Change
	for _, name := range slices.Sorted(maps.Keys(target)) {
		t := target[name]
		o, ok := observed[name]
		switch {
		case !ok:
			out = append(out, model.Change{Op: model.OpCreate, Name: name, After: t})
		case equal != nil && !equal(o, t):
			out = append(out, model.Change{Op: model.OpUpdate, Name: name, Before: o, After: t})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(observed)) {
		if _, ok := target[name]; !ok {
			out = append(out, model.Change{Op: model.OpDelete, Name: name, Before: observed[name]})
		}
	}
	return out
}

// checkNSGTotal refuses a plan whose NSGs, the Service's and those someone else attached to the
// load balancer, exceed the model.MaxNetworkSecurityGroups OCI allows per resource: OCI would refuse
// the UpdateNetworkSecurityGroups with 400 LimitExceeded after the plan's other changes ran.
func checkNSGTotal(target *model.Spec, desired []string) error {
	if len(target.NetworkSecurityGroups) <= model.MaxNetworkSecurityGroups {
		return nil
	}
	others := len(target.NetworkSecurityGroups) - len(desired)
	return &ValidationError{Service: target.Owner.Service, Problems: []*Problem{problemf(lookup.NSGAnnotation(target.Kind),
		strings.Join(desired, ","), "at most %d OCIDs: the load balancer is also in %d NSG(s) oci-ccm did not attach, and OCI allows %d in all",
		model.MaxNetworkSecurityGroups-others, others, model.MaxNetworkSecurityGroups)}}
}
