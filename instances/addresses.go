// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package instances

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/oracle/oci-go-sdk/v65/core"
	"golang.org/x/sync/errgroup"
	v1 "k8s.io/api/core/v1"
)

// vnicReadConcurrency bounds the GetVnic calls one by-name lookup makes at once. The client's
// rate limiter is the real guard; this keeps one cold lookup from queueing hundreds of goroutines.
const vnicReadConcurrency = 8

// nodeAddresses returns a Node's addresses from its primary VNIC, IPv4 first because Kubernetes
// takes the first InternalIP as the Node's IP: private IPv4 and every IPv6 address as InternalIP,
// the public IP as ExternalIP, and the hostname label as Hostname. Only the primary VNIC counts:
// secondary VNICs are for pod networking or appliances, and their addresses are not the Node's.
func nodeAddresses(vnic core.Vnic) []v1.NodeAddress {
	var out []v1.NodeAddress
	add := func(t v1.NodeAddressType, addr string) {
		if addr == "" || slices.Contains(out, v1.NodeAddress{Type: t, Address: addr}) {
			return
		}
		out = append(out, v1.NodeAddress{Type: t, Address: addr})
	}
	add(v1.NodeInternalIP, deref(vnic.PrivateIp))
	for _, ip := range vnic.Ipv6Addresses {
		add(v1.NodeInternalIP, ip)
	}
	add(v1.NodeExternalIP, deref(vnic.PublicIp))
	add(v1.NodeHostName, deref(vnic.HostnameLabel))
	return out
}

// primaryVNIC returns the instance's primary VNIC. Its attachments are listed for the instance
// alone (ociclient serves that from a cached listing of the compartment when it has one), so a
// Node costs the same whatever the size of its compartment.
func (i *Instances) primaryVNIC(ctx context.Context, inst core.Instance) (core.Vnic, error) {
	id, compartment := deref(inst.Id), deref(inst.CompartmentId)
	atts, err := i.compute.ListVnicAttachments(ctx, compartment, id)
	if err != nil {
		return core.Vnic{}, fmt.Errorf("listing VNIC attachments of instance %s: %w", id, err)
	}
	vnicIDs := attachedVNICs(atts, func(instanceID string) bool { return instanceID == id })[id]
	if len(vnicIDs) == 0 {
		return core.Vnic{}, fmt.Errorf("instance %s (%s) has no attached VNIC yet", id, inst.LifecycleState)
	}
	var first *core.Vnic
	for _, vnicID := range vnicIDs {
		vnic, err := i.network.GetVnic(ctx, vnicID)
		if err != nil {
			return core.Vnic{}, fmt.Errorf("getting VNIC %s of instance %s: %w", vnicID, id, err)
		}
		if vnic.IsPrimary != nil && *vnic.IsPrimary {
			return vnic, nil
		}
		if first == nil {
			first = &vnic
		}
	}
	// No VNIC says it is primary (older API versions leave the flag out): the oldest attachment
	// is the one the instance was launched with.
	return *first, nil
}

// attachedVNICs returns, for each instance that want accepts, the IDs of its attached VNICs,
// oldest attachment first: the primary VNIC is attached at launch, so it nearly always comes
// first and is the only one read.
func attachedVNICs(atts []core.VnicAttachment, want func(instanceID string) bool) map[string][]string {
	var mine []core.VnicAttachment
	for _, a := range atts {
		if a.LifecycleState == core.VnicAttachmentLifecycleStateAttached && deref(a.VnicId) != "" && want(deref(a.InstanceId)) {
			mine = append(mine, a)
		}
	}
	slices.SortStableFunc(mine, func(a, b core.VnicAttachment) int {
		return cmp.Or(compareTime(a, b), cmp.Compare(intOf(a.NicIndex), intOf(b.NicIndex)), cmp.Compare(deref(a.Id), deref(b.Id)))
	})
	out := map[string][]string{}
	for _, a := range mine {
		out[*a.InstanceId] = append(out[*a.InstanceId], *a.VnicId)
	}
	return out
}

func intOf(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// compareTime orders attachments by creation time; one without a time sorts last.
func compareTime(a, b core.VnicAttachment) int {
	switch {
	case a.TimeCreated == nil && b.TimeCreated == nil:
		return 0
	case a.TimeCreated == nil:
		return 1
	case b.TimeCreated == nil:
		return -1
	}
	return a.TimeCreated.Compare(b.TimeCreated.Time)
}

// vnicsOf reads the attached VNICs of the given instances, keyed by instance OCID, with one
// listing of the compartment's attachments and one (cached) GetVnic per VNIC. VNICs that could
// not be read are left out and their errors joined into err; the caller decides whether the
// VNICs it did get are enough.
func (i *Instances) vnicsOf(ctx context.Context, compartment string, instances []core.Instance) (map[string][]core.Vnic, error) {
	atts, err := i.compute.ListVnicAttachments(ctx, compartment, "")
	if err != nil {
		return nil, fmt.Errorf("listing VNIC attachments in compartment %s: %w", compartment, err)
	}
	var (
		mu   sync.Mutex
		out  = make(map[string][]core.Vnic, len(instances))
		errs []error
	)
	var g errgroup.Group
	g.SetLimit(vnicReadConcurrency)
	wanted := make(map[string]bool, len(instances))
	for _, inst := range instances {
		wanted[deref(inst.Id)] = true
	}
	for id, vnicIDs := range attachedVNICs(atts, func(instanceID string) bool { return wanted[instanceID] }) {
		for _, vnicID := range vnicIDs {
			g.Go(func() error {
				vnic, err := i.network.GetVnic(ctx, vnicID)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					errs = append(errs, fmt.Errorf("getting VNIC %s of instance %s: %w", vnicID, id, err))
					return nil // keep reading the others; see the doc comment
				}
				out[id] = append(out[id], vnic)
				return nil
			})
		}
	}
	_ = g.Wait() // the goroutines report through errs
	return out, errors.Join(errs...)
}
