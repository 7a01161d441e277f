// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package instances

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oracle/oci-go-sdk/v65/core"
	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"
)

// How a Node was matched to its instance, for logs.
const (
	byProviderID  = "providerID"
	byDisplayName = "display name"
	byHostname    = "hostname label"
	byPrivateIP   = "private IP"
)

// errConfirmedAbsent marks the one "not found" that InstanceExists may report as false: a 404
// from GetInstance for an instance that a fresh listing of every compartment it is known to live
// in does not hold. It wraps cloudprovider.InstanceNotFound, which callers of the other methods
// test for.
var errConfirmedAbsent = fmt.Errorf("confirmed absent: %w", cloudprovider.InstanceNotFound)

// lookup finds the Node's instance: by spec.providerID when it is set, otherwise by display
// name, hostname label or private IP in the configured compartment. Its errors wrap
// cloudprovider.InstanceNotFound when nothing was found after successful reads, and also
// errConfirmedAbsent when that absence is confirmed; every other failure is returned as it is.
// With fresh, the instance's state comes from reads that began after the call, never from a
// cache (see instanceByID and instanceByNode).
func (i *Instances) lookup(ctx context.Context, node *v1.Node, fresh bool) (core.Instance, string, error) {
	if node == nil {
		return core.Instance{}, "", errors.New("instances: nil Node")
	}
	if node.Spec.ProviderID != "" {
		id, err := ParseProviderID(node.Spec.ProviderID)
		if err != nil {
			return core.Instance{}, "", fmt.Errorf("node %s: %w", node.Name, err)
		}
		inst, err := i.instanceByID(ctx, node, id, fresh)
		return inst, byProviderID, err
	}
	return i.instanceByNode(ctx, node, fresh)
}

// getInstanceFresh reads an instance fresh: GetInstanceFresh when the Compute has it (see
// FreshInstanceGetter), else GetInstance.
func (i *Instances) getInstanceFresh(ctx context.Context, id string) (core.Instance, error) {
	if f, ok := i.compute.(FreshInstanceGetter); ok {
		return f.GetInstanceFresh(ctx, id)
	}
	return i.compute.GetInstance(ctx, id)
}

// instanceByID returns the instance with the OCID, read by ID, so that a Node costs the same
// whatever the size of its compartment: GetInstance (cached by ociclient), or with fresh
// GetInstanceFresh (one call). A 404 is settled by fresh listings either way.
func (i *Instances) instanceByID(ctx context.Context, node *v1.Node, id string, fresh bool) (core.Instance, error) {
	get := i.compute.GetInstance
	if fresh {
		get = i.getInstanceFresh
	}
	inst, err := get(ctx, id)
	switch {
	case err == nil:
		i.remember(inst)
		return inst, nil
	case ociclient.IsNotFound(err):
		return i.afterNotFound(ctx, node, id, err)
	default:
		return core.Instance{}, fmt.Errorf("getting instance %s: %w", id, err)
	}
}

// afterNotFound decides what a 404 from GetInstance means. OCI answers 404
// NotAuthorizedOrNotFound both for an instance that does not exist and for one the policy does
// not let us read, so the 404 proves nothing alone. The instance is looked for in fresh listings
// of the compartments it is known to live in: the Node's CompartmentAnnotation and the
// compartment this process last read it in. Absent from all of them is confirmed absence; found
// in one, it is returned as listed (its state then decides). When no compartment is known, the
// configured one is listed, which may find it but cannot prove it gone: that is an error saying
// so.
func (i *Instances) afterNotFound(ctx context.Context, node *v1.Node, id string, notFound error) (core.Instance, error) {
	if i.consistency != nil {
		i.consistency.CountConsistencyWait(ctx, "instances", ociclient.ConsistencyAmbiguousNotFound)
	}
	known, err := i.knownCompartments(node, id)
	if err != nil {
		return core.Instance{}, err
	}
	look := known
	if len(look) == 0 {
		look = []string{i.compartmentID}
	}
	for _, c := range look {
		listed, err := i.compute.ListInstancesFresh(ctx, c)
		if err != nil {
			return core.Instance{}, fmt.Errorf("GetInstance answered 404 for instance %s, which is also what a missing IAM policy looks like, and listing compartment %s to tell which failed: %w (GetInstance: %w)",
				id, c, err, notFound)
		}
		for _, inst := range listed {
			if deref(inst.Id) == id {
				i.remember(inst)
				return inst, nil
			}
		}
	}
	if len(known) == 0 {
		return core.Instance{}, fmt.Errorf("absence of instance %s is not proven: GetInstance answered 404 (%w), which is also what a missing IAM policy looks like; "+
			"a fresh listing of the configured compartment %s does not hold it, but the instance's own compartment is unknown "+
			"(the Node has no %s annotation and no read since this process started found the instance). "+
			"Set the annotation to the instance's compartment, or let the CCM read instances there; delete the Node by hand if its instance is gone",
			id, notFound, i.compartmentID, CompartmentAnnotation)
	}
	// The compartment stays remembered: the next question about this Node gets the same answer.
	return core.Instance{}, fmt.Errorf("instance %s: GetInstance answered 404 and a fresh listing of its compartment %s does not hold it: %w (%w)",
		id, strings.Join(known, ", "), errConfirmedAbsent, notFound)
}

// knownCompartments returns the compartments the instance is known to live in: the Node's
// annotation and where this process last read it, without duplicates. A malformed annotation
// is an error naming it.
func (i *Instances) knownCompartments(node *v1.Node, id string) ([]string, error) {
	var out []string
	if v, ok := node.Annotations[CompartmentAnnotation]; ok {
		if problem := compartmentOCIDProblem(v); problem != "" {
			return nil, fmt.Errorf("node %s: annotation %s=%q: %s; want the OCID of the compartment of the Node's instance (ocid1.compartment.… or ocid1.tenancy.…)",
				node.Name, CompartmentAnnotation, v, problem)
		}
		out = append(out, v)
	}
	if c, ok := i.homes.Get(id); ok && !slices.Contains(out, c.(string)) {
		out = append(out, c.(string))
	}
	return out, nil
}

// compartmentOCIDProblem says what is wrong with v as a compartment OCID, or "" if nothing is.
// The root compartment is the tenancy, so a tenancy OCID is a compartment too.
func compartmentOCIDProblem(v string) string {
	for _, r := range v {
		if !isOCIDRune(r) {
			return fmt.Sprintf("%q is not allowed in an OCID", r)
		}
	}
	parts := strings.Split(v, ".")
	switch {
	case len(parts) < 5 || parts[0] != "ocid1":
		return "it is not an OCID"
	case parts[1] != "compartment" && parts[1] != "tenancy":
		return fmt.Sprintf("it is the OCID of a %q, not of a compartment", parts[1])
	case parts[len(parts)-1] == "":
		return "its unique ID is empty"
	}
	return ""
}

// instanceByNode finds the instance of a Node that has no providerID yet, in the configured
// compartment: first by display name (no VNIC reads), then by hostname label, then by private
// IP. A live (not terminated) match wins; two live matches at the same step are an error, not a
// guess. When only a terminated instance matches, it is returned so that InstanceExists reports
// the Node gone, but only after fresh listings agree: a Node name reused by a new instance must
// not resolve to the old one because a cached listing predates the new one.
//
// With fresh, a live match in a listing that may be cached is read again with GetInstanceFresh,
// and its state then is the answer; terminated or 404 since, the Node is looked for again in
// fresh listings (ListInstancesFresh), as when nothing live matched.
func (i *Instances) instanceByNode(ctx context.Context, node *v1.Node, fresh bool) (core.Instance, string, error) {
	inst, by, err := i.instanceByNodeFrom(ctx, node, i.compute.ListInstances)
	switch {
	case err == nil && !isTerminated(inst.LifecycleState) && !fresh:
		i.remember(inst)
		return inst, by, nil
	case err == nil && !isTerminated(inst.LifecycleState):
		id := deref(inst.Id)
		cur, err := i.getInstanceFresh(ctx, id)
		if err == nil && !isTerminated(cur.LifecycleState) {
			i.remember(cur)
			return cur, by, nil
		}
		if err != nil && !ociclient.IsNotFound(err) {
			return core.Instance{}, by, fmt.Errorf("getting instance %s, which node %s matches by %s: %w", id, node.Name, by, err)
		}
		// Terminated, or a 404 (gone, or hidden by the policy), since the listing: fresh
		// listings decide, below.
	case err != nil && !errors.Is(err, cloudprovider.InstanceNotFound):
		return inst, by, err
	}
	// The listings may predate the instance (a Node registers right after its instance boots,
	// within the cache's TTL), or its end: look once more in fresh ones before answering.
	list := i.compute.ListInstances
	if fresh {
		list = i.compute.ListInstancesFresh
	}
	i.compute.InvalidateCompartment(i.compartmentID)
	inst, by, err = i.instanceByNodeFrom(ctx, node, list)
	if err == nil {
		i.remember(inst)
	}
	return inst, by, err
}

// instanceByNodeFrom is one search for a Node without providerID, among the instances list
// returns.
func (i *Instances) instanceByNodeFrom(ctx context.Context, node *v1.Node,
	list func(ctx context.Context, compartmentID string) ([]core.Instance, error)) (core.Instance, string, error) {
	listed, err := list(ctx, i.compartmentID)
	if err != nil {
		return core.Instance{}, "", fmt.Errorf("listing instances in compartment %s to find node %s: %w", i.compartmentID, node.Name, err)
	}
	named := matchDisplayName(listed, node.Name)
	if inst, ok, err := chooseLive(node.Name, byDisplayName, named); ok || err != nil {
		return inst, byDisplayName, err
	}

	live := make([]core.Instance, 0, len(listed))
	for _, inst := range listed {
		if !isTerminated(inst.LifecycleState) {
			live = append(live, inst)
		}
	}
	vnics, fetchErr := i.vnicsOf(ctx, i.compartmentID, live)
	for _, step := range []struct {
		by    string
		match func(core.Vnic) bool
	}{
		{byHostname, hostnameMatcher(node.Name)},
		{byPrivateIP, privateIPMatcher(node)},
	} {
		found := matchVNICs(live, vnics, step.match)
		if inst, ok, err := chooseLive(node.Name, step.by, found); ok || err != nil {
			return inst, step.by, err
		}
	}
	if fetchErr != nil {
		// A VNIC we could not read might be the Node's: absence is not confirmed.
		return core.Instance{}, "", fmt.Errorf("finding node %s by hostname or private IP: %w", node.Name, fetchErr)
	}
	if len(named) > 0 {
		return named[0], byDisplayName, nil // all terminated, or chooseLive would have taken one
	}
	// Not confirmed absence: a Node name that matches nothing may be a naming mismatch, and
	// reporting it gone would delete it. Setting spec.providerID resolves either way.
	return core.Instance{}, "", fmt.Errorf("no instance in compartment %s has the display name, hostname label or private IP of node %s: %w",
		i.compartmentID, node.Name, cloudprovider.InstanceNotFound)
}

// chooseLive picks the one live instance among matches. ok is false when none is live; an error
// says the match is ambiguous.
func chooseLive(nodeName, by string, matches []core.Instance) (core.Instance, bool, error) {
	var live []core.Instance
	for _, inst := range matches {
		if !isTerminated(inst.LifecycleState) {
			live = append(live, inst)
		}
	}
	switch len(live) {
	case 0:
		return core.Instance{}, false, nil
	case 1:
		return live[0], true, nil
	}
	ids := make([]string, len(live))
	for n, inst := range live {
		ids[n] = deref(inst.Id)
	}
	return core.Instance{}, false, fmt.Errorf("node %s matches %d live instances by %s (%s); set its spec.providerID to say which",
		nodeName, len(live), by, strings.Join(ids, ", "))
}

func matchDisplayName(listed []core.Instance, name string) []core.Instance {
	var out []core.Instance
	for _, inst := range listed {
		if deref(inst.DisplayName) == name {
			out = append(out, inst)
		}
	}
	return out
}

// matchVNICs returns the instances with at least one VNIC for which match is true.
func matchVNICs(instances []core.Instance, vnics map[string][]core.Vnic, match func(core.Vnic) bool) []core.Instance {
	var out []core.Instance
	for _, inst := range instances {
		for _, vnic := range vnics[deref(inst.Id)] {
			if match(vnic) {
				out = append(out, inst)
				break
			}
		}
	}
	return out
}

// hostnameMatcher matches a VNIC whose hostname label is the Node name, or the Node name's first
// DNS label when it is a fully qualified name (<label>.<subnet>.<vcn>.oraclevcn.com on OCI).
func hostnameMatcher(nodeName string) func(core.Vnic) bool {
	short, _, _ := strings.Cut(nodeName, ".")
	if net.ParseIP(nodeName) != nil {
		short = "" // "10.0.0.5" is an address, not a host "10"
	}
	return func(v core.Vnic) bool {
		label := deref(v.HostnameLabel)
		return label != "" && (strings.EqualFold(label, nodeName) || strings.EqualFold(label, short))
	}
}

// privateIPMatcher matches a VNIC holding one of the Node's internal addresses as a private IPv4
// or IPv6 address. The Node name counts when it is an IP: OKE names Nodes after their IP.
func privateIPMatcher(node *v1.Node) func(core.Vnic) bool {
	ips := map[string]bool{}
	add := func(s string) {
		if ip := net.ParseIP(s); ip != nil {
			ips[ip.String()] = true
		}
	}
	add(node.Name)
	for _, a := range node.Status.Addresses {
		if a.Type == v1.NodeInternalIP {
			add(a.Address)
		}
	}
	return func(v core.Vnic) bool {
		if len(ips) == 0 {
			return false
		}
		for _, s := range append([]string{deref(v.PrivateIp)}, v.Ipv6Addresses...) {
			if ip := net.ParseIP(s); ip != nil && ips[ip.String()] {
				return true
			}
		}
		return false
	}
}

// homeTTL is how long the compartment of an instance is remembered after the last successful
// read of it. The node lifecycle controller asks about every Node every few seconds, so a Node
// whose instance goes away is asked about well within it; the bound keeps instances that come
// and go from growing memory.
const homeTTL = time.Hour

// remember records the compartment an instance was read in, so that a later 404 for it can be
// settled by a fresh listing of that compartment.
func (i *Instances) remember(inst core.Instance) {
	id, c := deref(inst.Id), deref(inst.CompartmentId)
	if id == "" || c == "" {
		return
	}
	i.homes.Set(id, c, homeTTL)
}
