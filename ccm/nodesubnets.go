package ccm

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/oracle/oci-go-sdk/v65/core"
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/instances"
	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/ociclient"
)

// EventNodeSubnetUnknown is the reason of the Warning Events on a Node whose subnet cannot be
// found, and on the Services it is a backend of: no security rules are managed for it.
const EventNodeSubnetUnknown = "NodeSubnetUnknown"

// errUnplaceable marks a backend whose subnet cannot be found because OCI has nothing to say
// about it (no Node with the address, no instance, or one this process may not read); other
// errors (OCI unavailable) are retried rather than skipped.
var errUnplaceable = errors.New("subnet of the backend cannot be found")

// unplaced is a backend whose subnet is unknown, so rules for it are not managed.
type unplaced struct {
	IP   string
	Node *v1.Node // nil when no Node has the address
	Err  error
}

// nodeSubnets returns the subnets of the Spec's backends, sorted, and the backends whose subnet
// cannot be found. A backend is placed by the configured compartment's and VCN's subnet listing
// (one cached ListSubnets for all), and when that misses — a node subnet in a network
// compartment or another VCN, or a subnet created after the listing was cached — by the
// subnetId of its instance's VNIC with that address. A backend that cannot be placed either way
// is skipped, so it never blocks the other backends or other Services; an OCI error that may
// pass (not a 404) is returned.
func (c *Cloud) nodeSubnets(ctx context.Context, spec *lb.Spec, nodes []*v1.Node) ([]string, []unplaced, error) {
	byIP := nodesByIP(nodes)
	seen := map[string]bool{}
	ids := map[string]bool{}
	var skipped []unplaced
	for _, name := range slices.Sorted(maps.Keys(spec.BackendSets)) {
		for _, b := range spec.BackendSets[name].Backends {
			if seen[b.IP] {
				continue
			}
			seen[b.IP] = true
			subnet, err := c.oci.VirtualNetwork.SubnetForIP(ctx, c.cfg.CompartmentID, c.cfg.VCNID, b.IP)
			switch {
			case err == nil && subnet.Id != nil:
				ids[*subnet.Id] = true
				continue
			case err != nil && !errors.Is(err, ociclient.ErrNoSubnetForIP):
				return nil, nil, fmt.Errorf("subnet of backend %s: %w", b.IP, err)
			}
			id, err := c.subnetOfVNIC(ctx, byIP[b.IP], b.IP)
			switch {
			case errors.Is(err, errUnplaceable):
				skipped = append(skipped, unplaced{IP: b.IP, Node: byIP[b.IP], Err: err})
			case err != nil:
				return nil, nil, fmt.Errorf("subnet of backend %s: %w", b.IP, err)
			default:
				ids[id] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(ids)), skipped, nil
}

// subnetOfVNIC returns the subnet of the VNIC of node's instance that has address ip. All its
// reads are cached by ociclient. The instance's own compartment is listed, which may differ from
// the configured one.
func (c *Cloud) subnetOfVNIC(ctx context.Context, node *v1.Node, ip string) (string, error) {
	if node == nil {
		return "", fmt.Errorf("%w: %s is in no subnet of the configured compartment and VCN, and no Node has it", errUnplaceable, ip)
	}
	id, err := instances.ParseProviderID(node.Spec.ProviderID)
	if err != nil {
		return "", fmt.Errorf("%w: %s (Node %s) is in no subnet of the configured compartment and VCN, and the Node has no instance: %w",
			errUnplaceable, ip, node.Name, err)
	}
	notFound := func(what string, err error) error {
		return fmt.Errorf("%w: %s (Node %s): %s answered 404; it does not exist or the IAM policy does not let the CCM read it (node subnets in another compartment need \"read instances\" and \"read virtual-network-family\" there): %w",
			errUnplaceable, ip, node.Name, what, err)
	}
	inst, err := c.oci.Compute.GetInstance(ctx, id)
	switch {
	case ociclient.IsNotFound(err):
		return "", notFound("instance "+id, err)
	case err != nil:
		return "", err
	}
	compartment := deref(inst.CompartmentId)
	atts, err := c.oci.Compute.ListVnicAttachments(ctx, compartment, id)
	switch {
	case ociclient.IsNotFound(err):
		return "", notFound("VNIC attachments of instance "+id, err)
	case err != nil:
		return "", err
	}
	for _, att := range atts {
		if att.VnicId == nil || att.LifecycleState != core.VnicAttachmentLifecycleStateAttached {
			continue
		}
		vnic, err := c.oci.VirtualNetwork.GetVnic(ctx, *att.VnicId)
		switch {
		case ociclient.IsNotFound(err):
			continue
		case err != nil:
			return "", err
		}
		if vnic.SubnetId != nil && (deref(vnic.PrivateIp) == ip || slices.Contains(vnic.Ipv6Addresses, ip)) {
			return *vnic.SubnetId, nil
		}
	}
	return "", fmt.Errorf("%w: %s (Node %s): no VNIC of instance %s has this address", errUnplaceable, ip, node.Name, id)
}

// nodesByIP indexes Nodes by their InternalIP and ExternalIP addresses.
func nodesByIP(nodes []*v1.Node) map[string]*v1.Node {
	out := map[string]*v1.Node{}
	for _, n := range nodes {
		if n == nil {
			continue
		}
		for _, a := range n.Status.Addresses {
			if a.Type == v1.NodeInternalIP || a.Type == v1.NodeExternalIP {
				if _, ok := out[a.Address]; !ok {
					out[a.Address] = n
				}
			}
		}
	}
	return out
}

// warnUnplaced reports backends whose subnet is unknown: a Warning Event on the Node and on the
// Service (when events can be recorded), and a log line either way.
func (c *Cloud) warnUnplaced(ctx context.Context, svc *v1.Service, skipped []unplaced) {
	for _, u := range skipped {
		klog.FromContext(ctx).Info("Backend left out of security rules: its subnet cannot be found",
			"service", klog.KObj(svc), "ip", u.IP, "node", klog.KObj(u.Node), "reason", u.Err)
		if c.events == nil {
			continue
		}
		name := "no Node"
		if u.Node != nil {
			name = "Node " + u.Node.Name
			c.events.Eventf(u.Node, v1.EventTypeWarning, EventNodeSubnetUnknown,
				"No security rules are managed for this Node's address %s: %v", u.IP, u.Err)
		}
		if svc != nil {
			c.events.Eventf(svc, v1.EventTypeWarning, EventNodeSubnetUnknown,
				"Backend %s (%s) left out of the security rules: %v", u.IP, name, u.Err)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
