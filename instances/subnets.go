// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package instances

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/oracle/oci-go-sdk/v65/core"
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/ociclient"
)

// Unplaced is a backend address whose subnet cannot be found, so no security rules can be
// managed for it. Err says why (it wraps ErrUnplaceable).
type Unplaced struct {
	IP string
	// Node is the Node with the address; nil when no Node has it.
	Node *v1.Node
	Err  error
}

// ErrUnplaceable marks (errors.Is) an address whose subnet OCI has nothing to say about: no Node
// has the address, the Node has no instance, or the instance or its VNICs answer 404 (gone, or
// hidden by the IAM policy).
var ErrUnplaceable = errors.New("subnet of the backend cannot be found")

// Subnets returns the OCIDs of the subnets the addresses ips are in, sorted, and the addresses
// whose subnet cannot be found. nodes are the cluster's Nodes, to find an address's instance.
//
// An address is placed by the subnet listing of the configured compartment and VCN (one cached
// ListSubnets for all), and when that misses — a node subnet in a network compartment or another
// VCN, or one created after the listing was cached — by the subnet of its instance's VNIC with
// that address. An address that cannot be placed either way is returned as Unplaced, so it never
// blocks the others; an OCI error that may pass (not a 404) is returned as the error.
func (i *Instances) Subnets(ctx context.Context, ips []string, nodes []*v1.Node) ([]string, []Unplaced, error) {
	var byIP map[string]*v1.Node // made at the first address the listing misses: seldom
	seen := map[string]bool{}
	ids := map[string]bool{}
	var skipped []Unplaced
	for _, ip := range ips {
		if seen[ip] {
			continue
		}
		seen[ip] = true
		subnet, err := i.network.SubnetForIP(ctx, i.compartmentID, i.vcnID, ip)
		switch {
		case err == nil && subnet.Id != nil:
			ids[*subnet.Id] = true
			continue
		case err != nil && !errors.Is(err, ociclient.ErrNoSubnetForIP):
			return nil, nil, fmt.Errorf("subnet of backend %s: %w", ip, err)
		}
		if byIP == nil {
			byIP = nodesByIP(nodes)
		}
		id, err := i.subnetOfVNIC(ctx, byIP[ip], ip)
		switch {
		case errors.Is(err, ErrUnplaceable):
			skipped = append(skipped, Unplaced{IP: ip, Node: byIP[ip], Err: err})
		case err != nil:
			return nil, nil, fmt.Errorf("subnet of backend %s: %w", ip, err)
		default:
			ids[id] = true
		}
	}
	return slices.Sorted(maps.Keys(ids)), skipped, nil
}

// subnetOfVNIC returns the subnet of the VNIC of node's instance that has address ip. All its
// reads are cached by ociclient. The instance's own compartment is listed, which may differ from
// the configured one.
func (i *Instances) subnetOfVNIC(ctx context.Context, node *v1.Node, ip string) (string, error) {
	if node == nil {
		return "", fmt.Errorf("%w: %s is in no subnet of the configured compartment and VCN, and no Node has it", ErrUnplaceable, ip)
	}
	id, err := ParseProviderID(node.Spec.ProviderID)
	if err != nil {
		return "", fmt.Errorf("%w: %s (Node %s) is in no subnet of the configured compartment and VCN, and the Node has no instance: %w",
			ErrUnplaceable, ip, node.Name, err)
	}
	notFound := func(what string, err error) error {
		return fmt.Errorf("%w: %s (Node %s): %s answered 404; it does not exist or the IAM policy does not let the CCM read it (node subnets in another compartment need \"read instances\" and \"read virtual-network-family\" there): %w",
			ErrUnplaceable, ip, node.Name, what, err)
	}
	inst, err := i.compute.GetInstance(ctx, id)
	switch {
	case ociclient.IsNotFound(err):
		return "", notFound("instance "+id, err)
	case err != nil:
		return "", err
	}
	atts, err := i.compute.ListVnicAttachments(ctx, deref(inst.CompartmentId), id)
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
		vnic, err := i.network.GetVnic(ctx, *att.VnicId)
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
	return "", fmt.Errorf("%w: %s (Node %s): no VNIC of instance %s has this address", ErrUnplaceable, ip, node.Name, id)
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

// WithAddresses gives each Node that has a providerID but no InternalIP yet the InternalIPs OCI
// reports for its instance. The cloud-node controller writes a new Node's providerID before its
// addresses, and the service controller syncs load balancers on the providerID change but not on
// the addresses change, so without this such a Node would miss its backend sets until some other
// change. The Nodes passed in are never modified; changed ones are copies.
func (i *Instances) WithAddresses(ctx context.Context, nodes []*v1.Node) []*v1.Node {
	out, copied := nodes, false
	for k, n := range nodes {
		if n == nil || n.Spec.ProviderID == "" || slices.ContainsFunc(n.Status.Addresses, isInternalIP) {
			continue
		}
		md, err := i.InstanceMetadata(ctx, n)
		if err != nil {
			klog.FromContext(ctx).V(2).Info("Node has no InternalIP and its instance's addresses are unknown; not a backend yet",
				"node", klog.KObj(n), "err", err)
			continue
		}
		cp := n.DeepCopy()
		for _, a := range md.NodeAddresses {
			if isInternalIP(a) {
				cp.Status.Addresses = append(cp.Status.Addresses, a)
			}
		}
		if !copied {
			out, copied = slices.Clone(nodes), true
		}
		out[k] = cp
	}
	return out
}

func isInternalIP(a v1.NodeAddress) bool { return a.Type == v1.NodeInternalIP }
