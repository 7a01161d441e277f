package instances

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

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
// from GetInstance for an instance that a successful listing of its compartment does not hold.
// It wraps cloudprovider.InstanceNotFound, which callers of the other methods test for.
var errConfirmedAbsent = fmt.Errorf("confirmed absent: %w", cloudprovider.InstanceNotFound)

// lookup finds the Node's instance: by spec.providerID when it is set, otherwise by display
// name, hostname label or private IP in the configured compartment. Its errors wrap
// cloudprovider.InstanceNotFound when nothing was found after successful reads, and also
// errConfirmedAbsent when that absence is confirmed; every other failure is returned as it is.
func (i *Instances) lookup(ctx context.Context, node *v1.Node) (core.Instance, string, error) {
	if node == nil {
		return core.Instance{}, "", errors.New("instances: nil Node")
	}
	if node.Spec.ProviderID != "" {
		id, err := ParseProviderID(node.Spec.ProviderID)
		if err != nil {
			return core.Instance{}, "", fmt.Errorf("node %s: %w", node.Name, err)
		}
		inst, err := i.instanceByID(ctx, id)
		return inst, byProviderID, err
	}
	return i.instanceByNode(ctx, node)
}

// instanceByID returns the instance with the OCID. It looks in the listing of the instance's
// compartment first: ociclient caches that listing and shares it between all Nodes, which keeps a
// resync at O(compartments) calls. Only an instance the listing lacks (created after the listing
// was cached, or living in a compartment not yet known) costs a GetInstance.
func (i *Instances) instanceByID(ctx context.Context, id string) (core.Instance, error) {
	compartment := i.compartmentOf(id)
	listed, err := i.compute.ListInstances(ctx, compartment)
	if err != nil {
		return core.Instance{}, fmt.Errorf("listing instances in compartment %s to find instance %s: %w", compartment, id, err)
	}
	for _, inst := range listed {
		if deref(inst.Id) == id {
			return inst, nil
		}
	}
	inst, err := i.compute.GetInstance(ctx, id)
	switch {
	case err == nil:
		i.remember(inst)
		return inst, nil
	case ociclient.IsNotFound(err):
		// Confirmed absence: the get says 404 and the listing of its compartment, which succeeded
		// just above, does not hold it. A 404 alone is not enough: OCI answers
		// NotAuthorizedOrNotFound both for a missing instance and for a missing IAM policy.
		i.forget(id)
		return core.Instance{}, fmt.Errorf("instance %s is not in compartment %s and GetInstance answered 404: %w (%w)",
			id, compartment, errConfirmedAbsent, err)
	default:
		return core.Instance{}, fmt.Errorf("getting instance %s: %w", id, err)
	}
}

// instanceByNode finds the instance of a Node that has no providerID yet, in the configured
// compartment: first by display name (no VNIC reads), then by hostname label, then by private
// IP. A live (not terminated) match wins; two live matches at the same step are an error, not a
// guess. When only a terminated instance matches, it is returned so that InstanceExists reports
// the Node gone.
func (i *Instances) instanceByNode(ctx context.Context, node *v1.Node) (core.Instance, string, error) {
	inst, by, err := i.instanceByNodeFrom(ctx, node)
	if !errors.Is(err, cloudprovider.InstanceNotFound) {
		return inst, by, err
	}
	// The listings may predate the instance (a Node registers right after its instance boots,
	// within the cache's TTL): look once more in fresh ones before giving up.
	refresher, ok := i.compute.(interface{ InvalidateCompartment(compartmentID string) })
	if !ok {
		return inst, by, err
	}
	refresher.InvalidateCompartment(i.compartmentID)
	return i.instanceByNodeFrom(ctx, node)
}

func (i *Instances) instanceByNodeFrom(ctx context.Context, node *v1.Node) (core.Instance, string, error) {
	listed, err := i.compute.ListInstances(ctx, i.compartmentID)
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

// compartmentOf is the compartment to look for an instance in: where it was last seen, or the
// configured compartment.
func (i *Instances) compartmentOf(id string) string {
	i.mu.Lock()
	defer i.mu.Unlock()
	if c, ok := i.homes[id]; ok {
		return c
	}
	return i.compartmentID
}

// remember records the compartment of an instance found by GetInstance, so the next lookup
// lists that compartment. The configured compartment is the default and needs no entry; one
// moved back into it loses its entry.
func (i *Instances) remember(inst core.Instance) {
	id, c := deref(inst.Id), deref(inst.CompartmentId)
	if id == "" || c == "" {
		return
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if c == i.compartmentID {
		delete(i.homes, id)
		return
	}
	i.homes[id] = c
}

func (i *Instances) forget(id string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	delete(i.homes, id)
}
