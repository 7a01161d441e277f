// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"fmt"
	"net/netip"
	"slices"

	"github.com/oracle/oci-go-sdk/v65/core"
)

// VirtualNetworkClient implements VirtualNetwork on the Core Networking API. VNIC and subnet
// reads are cached for Options.CacheTTL (treat returned values as read-only); security lists
// and public IPs never are, because their callers need the current state and ETag.
type VirtualNetworkClient struct {
	sdk core.VirtualNetworkClient
	c   *caller

	vnics       *cache[core.Vnic]     // by VNIC OCID
	subnets     *cache[core.Subnet]   // by subnet OCID
	subnetLists *cache[[]core.Subnet] // by compartment OCID | VCN OCID
}

func newVirtualNetworkClient(sdk core.VirtualNetworkClient, c *caller) *VirtualNetworkClient {
	return &VirtualNetworkClient{
		sdk:         sdk,
		c:           c,
		vnics:       newCache[core.Vnic]("vnic", c),
		subnets:     newCache[core.Subnet]("subnet", c),
		subnetLists: newCache[[]core.Subnet]("subnet_list", c),
	}
}

func (v *VirtualNetworkClient) op(name string, class callClass, resource string) operation {
	return operation{service: serviceVCN, name: name, class: class, resource: resource}
}

// GetVnic returns the VNIC with the given OCID, from the cache when fresh.
func (v *VirtualNetworkClient) GetVnic(ctx context.Context, id string) (core.Vnic, error) {
	return v.vnics.get(ctx, id, func(ctx context.Context) (core.Vnic, error) {
		req := core.GetVnicRequest{VnicId: &id}
		resp, err := call(ctx, v.c, v.op("GetVnic", classRead, id), v.sdk.GetVnic, req)
		return resp.Vnic, err
	})
}

// GetSubnet returns the subnet with the given OCID, from the cache when fresh.
func (v *VirtualNetworkClient) GetSubnet(ctx context.Context, id string) (core.Subnet, error) {
	return v.subnets.get(ctx, id, func(ctx context.Context) (core.Subnet, error) {
		req := core.GetSubnetRequest{SubnetId: &id}
		resp, err := call(ctx, v.c, v.op("GetSubnet", classRead, id), v.sdk.GetSubnet, req)
		return resp.Subnet, err
	})
}

// ListSubnets returns the compartment's subnets in the VCN (all pages; every VCN when vcnID is
// empty), from the cache when fresh. The subnets it reads also refresh GetSubnet's cache.
func (v *VirtualNetworkClient) ListSubnets(ctx context.Context, compartmentID, vcnID string) ([]core.Subnet, error) {
	list, err := v.listSubnets(ctx, compartmentID, vcnID)
	return slices.Clone(list), err
}

// listSubnets is ListSubnets without the copy: the cached slice itself, which callers only read.
func (v *VirtualNetworkClient) listSubnets(ctx context.Context, compartmentID, vcnID string) ([]core.Subnet, error) {
	return v.subnetLists.get(ctx, cacheKey(compartmentID, vcnID), func(ctx context.Context) ([]core.Subnet, error) {
		list, err := pages(ctx, func(ctx context.Context, page *string) ([]core.Subnet, *string, error) {
			req := core.ListSubnetsRequest{CompartmentId: &compartmentID, Page: page}
			if vcnID != "" {
				req.VcnId = &vcnID
			}
			resp, err := call(ctx, v.c, v.op("ListSubnets", classRead, compartmentID), v.sdk.ListSubnets, req)
			return resp.Items, resp.OpcNextPage, err
		})
		for _, s := range list {
			if s.Id != nil {
				v.subnets.put(*s.Id, s)
			}
		}
		return list, err
	})
}

// SubnetForIP returns the subnet of the VCN (every VCN of the compartment when vcnID is empty)
// whose IPv4 or IPv6 CIDR contains ip, using ListSubnets and so its cache. If several do, the
// most specific wins. An error wrapping ErrNoSubnetForIP means none does.
func (v *VirtualNetworkClient) SubnetForIP(ctx context.Context, compartmentID, vcnID, ip string) (core.Subnet, error) {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return core.Subnet{}, fmt.Errorf("SubnetForIP: %w", err)
	}
	addr = addr.Unmap()
	// Read in place, not copied: a node sync resolves every backend of every Service here.
	subnets, err := v.listSubnets(ctx, compartmentID, vcnID)
	if err != nil {
		return core.Subnet{}, err
	}
	best, bestBits := -1, -1
	consider := func(i int, cidr string) {
		if p, err := netip.ParsePrefix(cidr); err == nil && p.Contains(addr) && p.Bits() > bestBits {
			best, bestBits = i, p.Bits()
		}
	}
	for i := range subnets {
		s := &subnets[i]
		for _, cidr := range s.Ipv6CidrBlocks {
			consider(i, cidr)
		}
		if s.CidrBlock != nil {
			consider(i, *s.CidrBlock)
		}
		if s.Ipv6CidrBlock != nil {
			consider(i, *s.Ipv6CidrBlock)
		}
	}
	if best < 0 {
		return core.Subnet{}, fmt.Errorf("%s in compartment %s, VCN %q: %w", ip, compartmentID, vcnID, ErrNoSubnetForIP)
	}
	return subnets[best], nil
}

// GetSecurityList returns a security list and its ETag. Never cached.
func (v *VirtualNetworkClient) GetSecurityList(ctx context.Context, id string) (core.SecurityList, string, error) {
	req := core.GetSecurityListRequest{SecurityListId: &id}
	resp, err := call(ctx, v.c, v.op("GetSecurityList", classRead, id), v.sdk.GetSecurityList, req)
	return resp.SecurityList, deref(resp.Etag), err
}

// UpdateSecurityList replaces the list's ingress and egress rules (nil means none) if its ETag
// still equals ifMatch (an empty ifMatch updates unconditionally). A stale ETag fails with an
// error for which IsPreconditionFailed is true; the retry layer never retries 412.
func (v *VirtualNetworkClient) UpdateSecurityList(ctx context.Context, id string, ingress []core.IngressSecurityRule, egress []core.EgressSecurityRule, ifMatch string) (core.SecurityList, string, error) {
	req := core.UpdateSecurityListRequest{
		SecurityListId: &id,
		// The SDK leaves nil slices out of the body, which would keep the old rules.
		UpdateSecurityListDetails: core.UpdateSecurityListDetails{IngressSecurityRules: nonNil(ingress), EgressSecurityRules: nonNil(egress)},
	}
	if ifMatch != "" {
		req.IfMatch = &ifMatch
	}
	resp, err := call(ctx, v.c, v.op("UpdateSecurityList", classWrite, id), v.sdk.UpdateSecurityList, req)
	return resp.SecurityList, deref(resp.Etag), err
}

// GetNetworkSecurityGroup returns the network security group with the given OCID. Never cached:
// lb reads the groups a Service names just before attaching them, to refuse a missing one (or
// one the policy hides) before any write. A missing group and one the policy does not let the
// caller read are the same 404 NotAuthorizedOrNotFound.
func (v *VirtualNetworkClient) GetNetworkSecurityGroup(ctx context.Context, id string) (core.NetworkSecurityGroup, error) {
	req := core.GetNetworkSecurityGroupRequest{NetworkSecurityGroupId: &id}
	resp, err := call(ctx, v.c, v.op("GetNetworkSecurityGroup", classRead, id), v.sdk.GetNetworkSecurityGroup, req)
	return resp.NetworkSecurityGroup, err
}

// ListNetworkSecurityGroups returns the compartment's network security groups in the VCN (every
// VCN when vcnID is empty), all pages. Never cached: callers look for a group they may have just
// created.
func (v *VirtualNetworkClient) ListNetworkSecurityGroups(ctx context.Context, compartmentID, vcnID string) ([]core.NetworkSecurityGroup, error) {
	return pages(ctx, func(ctx context.Context, page *string) ([]core.NetworkSecurityGroup, *string, error) {
		req := core.ListNetworkSecurityGroupsRequest{CompartmentId: &compartmentID, Page: page}
		if vcnID != "" {
			req.VcnId = &vcnID
		}
		resp, err := call(ctx, v.c, v.op("ListNetworkSecurityGroups", classRead, compartmentID), v.sdk.ListNetworkSecurityGroups, req)
		return resp.Items, resp.OpcNextPage, err
	})
}

// CreateNetworkSecurityGroup creates a network security group. The retry token (a fresh one
// when empty) is sent on every attempt, so a retry after a lost response answers the group the
// first attempt created instead of creating a second one.
func (v *VirtualNetworkClient) CreateNetworkSecurityGroup(ctx context.Context, details core.CreateNetworkSecurityGroupDetails, retryToken string) (core.NetworkSecurityGroup, error) {
	req := core.CreateNetworkSecurityGroupRequest{CreateNetworkSecurityGroupDetails: details, OpcRetryToken: retryTokenOr(retryToken)}
	resp, err := call(ctx, v.c, v.op("CreateNetworkSecurityGroup", classWrite, deref(details.DisplayName)), v.sdk.CreateNetworkSecurityGroup, req)
	return resp.NetworkSecurityGroup, err
}

// DeleteNetworkSecurityGroup deletes a network security group. OCI refuses while any VNIC is in
// it (a load balancer's VNICs are, while the load balancer lists the group).
func (v *VirtualNetworkClient) DeleteNetworkSecurityGroup(ctx context.Context, id string) error {
	req := core.DeleteNetworkSecurityGroupRequest{NetworkSecurityGroupId: &id}
	_, err := call(ctx, v.c, v.op("DeleteNetworkSecurityGroup", classWrite, id), v.sdk.DeleteNetworkSecurityGroup, req)
	return err
}

// ListNetworkSecurityGroupSecurityRules returns every rule of the group (all pages, both
// directions). Never cached.
func (v *VirtualNetworkClient) ListNetworkSecurityGroupSecurityRules(ctx context.Context, id string) ([]core.SecurityRule, error) {
	return pages(ctx, func(ctx context.Context, page *string) ([]core.SecurityRule, *string, error) {
		req := core.ListNetworkSecurityGroupSecurityRulesRequest{NetworkSecurityGroupId: &id, Page: page}
		resp, err := call(ctx, v.c, v.op("ListNetworkSecurityGroupSecurityRules", classRead, id), v.sdk.ListNetworkSecurityGroupSecurityRules, req)
		return resp.Items, resp.OpcNextPage, err
	})
}

// MaxNetworkSecurityGroupRulesPerAdd is how many rules one AddNetworkSecurityGroupSecurityRules
// may carry (OCI's limit, from the SDK's documentation); callers split larger additions.
const MaxNetworkSecurityGroupRulesPerAdd = 25

// AddNetworkSecurityGroupSecurityRules adds rules (at most MaxNetworkSecurityGroupRulesPerAdd)
// to the group and returns them as OCI stored them, with their IDs.
func (v *VirtualNetworkClient) AddNetworkSecurityGroupSecurityRules(ctx context.Context, id string, rules []core.AddSecurityRuleDetails) ([]core.SecurityRule, error) {
	req := core.AddNetworkSecurityGroupSecurityRulesRequest{NetworkSecurityGroupId: &id,
		AddNetworkSecurityGroupSecurityRulesDetails: core.AddNetworkSecurityGroupSecurityRulesDetails{SecurityRules: rules}}
	resp, err := call(ctx, v.c, v.op("AddNetworkSecurityGroupSecurityRules", classWrite, id), v.sdk.AddNetworkSecurityGroupSecurityRules, req)
	return resp.SecurityRules, err
}

// RemoveNetworkSecurityGroupSecurityRules removes rules from the group by ID.
func (v *VirtualNetworkClient) RemoveNetworkSecurityGroupSecurityRules(ctx context.Context, id string, ruleIDs []string) error {
	req := core.RemoveNetworkSecurityGroupSecurityRulesRequest{NetworkSecurityGroupId: &id,
		RemoveNetworkSecurityGroupSecurityRulesDetails: core.RemoveNetworkSecurityGroupSecurityRulesDetails{SecurityRuleIds: ruleIDs}}
	_, err := call(ctx, v.c, v.op("RemoveNetworkSecurityGroupSecurityRules", classWrite, id), v.sdk.RemoveNetworkSecurityGroupSecurityRules, req)
	return err
}

// GetPublicIPByIPAddress finds a public IP (e.g. a reserved one) by its address. Never cached.
func (v *VirtualNetworkClient) GetPublicIPByIPAddress(ctx context.Context, ipAddress string) (core.PublicIp, error) {
	req := core.GetPublicIpByIpAddressRequest{GetPublicIpByIpAddressDetails: core.GetPublicIpByIpAddressDetails{IpAddress: &ipAddress}}
	resp, err := call(ctx, v.c, v.op("GetPublicIpByIpAddress", classRead, ipAddress), v.sdk.GetPublicIpByIpAddress, req)
	return resp.PublicIp, err
}

// InvalidateVnic drops a cached VNIC.
func (v *VirtualNetworkClient) InvalidateVnic(id string) { v.vnics.invalidate(id) }

// InvalidateSubnet drops a cached subnet and every cached subnet list (one may hold it).
func (v *VirtualNetworkClient) InvalidateSubnet(id string) {
	v.subnets.invalidate(id)
	v.subnetLists.invalidateAll()
}

func (v *VirtualNetworkClient) invalidateAll() {
	v.vnics.invalidateAll()
	v.subnets.invalidateAll()
	v.subnetLists.invalidateAll()
}
