// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/oracle/oci-go-sdk/v65/core"
)

// ComputeClient implements Compute on the Core Compute API. Its reads are cached for
// Options.CacheTTL and concurrent identical reads share one call. Values it returns are shared
// with the cache: treat them as read-only (returned slices are copies; what they point to is
// not).
type ComputeClient struct {
	sdk core.ComputeClient
	c   *caller

	instances     *cache[core.Instance] // by instance OCID
	instanceLists *cache[instanceList]  // by compartment OCID
	// VNIC attachments: a compartment's, and one instance's. A compartment listing also fills
	// the per-instance entries of the instances it holds.
	vnicAttachmentLists     *cache[[]core.VnicAttachment] // by compartment OCID
	instanceVnicAttachments *cache[[]core.VnicAttachment] // by instance OCID
}

func newComputeClient(sdk core.ComputeClient, c *caller) *ComputeClient {
	cc := &ComputeClient{
		sdk:                     sdk,
		c:                       c,
		instances:               newCache[core.Instance]("instance", c),
		instanceLists:           newCache[instanceList]("instance_list", c),
		vnicAttachmentLists:     newCache[[]core.VnicAttachment]("vnic_attachments", c),
		instanceVnicAttachments: newCache[[]core.VnicAttachment]("instance_vnic_attachments", c),
	}
	// An instance still provisioning has no attachment yet; caching that would hide its VNIC
	// for a whole TTL.
	cc.instanceVnicAttachments.keep = func(atts []core.VnicAttachment) bool { return len(atts) > 0 }
	return cc
}

func (cc *ComputeClient) op(name string, resource string) operation {
	return operation{service: serviceCompute, name: name, class: classRead, resource: resource}
}

// GetInstance returns the instance with the given OCID, from the cache when fresh. A 404 drops
// the instance and its VNIC attachments from the cache.
func (cc *ComputeClient) GetInstance(ctx context.Context, id string) (core.Instance, error) {
	inst, err := cc.instances.get(ctx, id, cc.loadInstance(id))
	if IsNotFound(err) {
		cc.InvalidateInstance(id)
	}
	return inst, err
}

// GetInstanceFresh is GetInstance from a read that began after the call did, never from the
// cache nor from a read already under way: for questions whose answer must be OCI's current one
// (does the instance still exist, is it stopped). It makes one call each time; what it reads
// refreshes GetInstance's cache, and a 404 drops the instance and its VNIC attachments from it.
func (cc *ComputeClient) GetInstanceFresh(ctx context.Context, id string) (core.Instance, error) {
	inst, err := cc.instances.fresh(ctx, id, cc.loadInstance(id))
	if IsNotFound(err) {
		cc.InvalidateInstance(id)
	}
	return inst, err
}

func (cc *ComputeClient) loadInstance(id string) func(ctx context.Context) (core.Instance, error) {
	return func(ctx context.Context) (core.Instance, error) {
		req := core.GetInstanceRequest{InstanceId: &id}
		resp, err := call(ctx, cc.c, cc.op("GetInstance", id), cc.sdk.GetInstance, req)
		return resp.Instance, err
	}
}

// instanceList is a compartment's instances and when the listing that read them began.
type instanceList struct {
	items  []core.Instance
	readAt time.Time
}

// ListInstances returns every instance in the compartment (all pages), from the cache when
// fresh. The instances it reads also refresh GetInstance's cache.
func (cc *ComputeClient) ListInstances(ctx context.Context, compartmentID string) ([]core.Instance, error) {
	list, err := cc.instanceLists.get(ctx, compartmentID, cc.loadInstances(compartmentID))
	return slices.Clone(list.items), err
}

// maxFreshListTries bounds how often ListInstancesFresh discards a listing that began before
// it was called (one already cached, or under way) and asks again.
const maxFreshListTries = 3

// ListInstancesFresh returns every instance in the compartment from a listing that began after
// this call did, so it holds every instance that existed when the call was made: what "absent
// from its compartment" must be judged on. Concurrent callers share one such listing, so many
// Nodes asking at once cost one listing, not one each; it then serves ListInstances too.
func (cc *ComputeClient) ListInstancesFresh(ctx context.Context, compartmentID string) ([]core.Instance, error) {
	asked := cc.c.clock.now()
	for range maxFreshListTries {
		list, err := cc.instanceLists.get(ctx, compartmentID, cc.loadInstances(compartmentID))
		if err != nil {
			return nil, err
		}
		if !list.readAt.Before(asked) {
			return slices.Clone(list.items), nil
		}
		cc.instanceLists.invalidate(compartmentID)
	}
	return nil, fmt.Errorf("listing instances in compartment %s: no listing that began after the call in %d tries",
		compartmentID, maxFreshListTries)
}

func (cc *ComputeClient) loadInstances(compartmentID string) func(ctx context.Context) (instanceList, error) {
	return func(ctx context.Context) (instanceList, error) {
		readAt := cc.c.clock.now()
		list, err := pages(ctx, func(ctx context.Context, page *string) ([]core.Instance, *string, error) {
			req := core.ListInstancesRequest{CompartmentId: &compartmentID, Page: page}
			resp, err := call(ctx, cc.c, cc.op("ListInstances", compartmentID), cc.sdk.ListInstances, req)
			return resp.Items, resp.OpcNextPage, err
		})
		for _, inst := range list {
			if inst.Id != nil {
				cc.instances.put(*inst.Id, inst)
			}
		}
		return instanceList{items: list, readAt: readAt}, err
	}
}

// ListVnicAttachments returns the compartment's VNIC attachments (all pages), or only one
// instance's when instanceID is not empty (compartmentID must then be the instance's), from the
// cache when fresh. A compartment's listing also serves later per-instance calls for the
// instances it holds.
func (cc *ComputeClient) ListVnicAttachments(ctx context.Context, compartmentID, instanceID string) ([]core.VnicAttachment, error) {
	if instanceID != "" {
		list, err := cc.instanceVnicAttachments.get(ctx, instanceID, func(ctx context.Context) ([]core.VnicAttachment, error) {
			return cc.listVnicAttachments(ctx, compartmentID, instanceID)
		})
		return slices.Clone(list), err
	}
	list, err := cc.vnicAttachmentLists.get(ctx, compartmentID, func(ctx context.Context) ([]core.VnicAttachment, error) {
		list, err := cc.listVnicAttachments(ctx, compartmentID, "")
		if err != nil {
			return nil, err
		}
		byInstance := map[string][]core.VnicAttachment{}
		for _, a := range list {
			if a.InstanceId != nil {
				byInstance[*a.InstanceId] = append(byInstance[*a.InstanceId], a)
			}
		}
		for id, atts := range byInstance {
			cc.instanceVnicAttachments.put(id, atts)
		}
		return list, nil
	})
	return slices.Clone(list), err
}

func (cc *ComputeClient) listVnicAttachments(ctx context.Context, compartmentID, instanceID string) ([]core.VnicAttachment, error) {
	return pages(ctx, func(ctx context.Context, page *string) ([]core.VnicAttachment, *string, error) {
		req := core.ListVnicAttachmentsRequest{CompartmentId: &compartmentID, Page: page}
		resource := compartmentID
		if instanceID != "" {
			req.InstanceId = &instanceID
			resource = instanceID
		}
		resp, err := call(ctx, cc.c, cc.op("ListVnicAttachments", resource), cc.sdk.ListVnicAttachments, req)
		return resp.Items, resp.OpcNextPage, err
	})
}

// InvalidateInstance drops the cached instance and the cached VNIC attachments that may hold
// its own (its list, and compartment-wide lists), e.g. after learning elsewhere that it changed.
func (cc *ComputeClient) InvalidateInstance(id string) {
	cc.instances.invalidate(id)
	cc.instanceVnicAttachments.invalidate(id)
	cc.vnicAttachmentLists.invalidateAll() // one entry per compartment: few
}

// InvalidateCompartment drops every cached listing of a compartment: its instances and its VNIC
// attachments. Call it when something that should be in a listing is not, e.g. an instance that
// booted after the listing was cached, or before taking a listing's word that an instance is
// gone. (Per-instance attachment lists stay: they are keyed by instance, and an instance with no
// attachment yet has no entry.)
func (cc *ComputeClient) InvalidateCompartment(compartmentID string) {
	cc.instanceLists.invalidate(compartmentID)
	cc.vnicAttachmentLists.invalidate(compartmentID)
}

func (cc *ComputeClient) invalidateAll() {
	cc.instances.invalidateAll()
	cc.instanceLists.invalidateAll()
	cc.vnicAttachmentLists.invalidateAll()
	cc.instanceVnicAttachments.invalidateAll()
}
