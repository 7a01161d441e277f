// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package seclist

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	"k8s.io/apimachinery/pkg/types"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/internal/ctxtime"
	"github.com/oci-ccm/oci-ccm/ociclient"
)

// This file is the lifecycle of the frontend network security groups of Services in mode NSG:
// one per load balancer, created by FrontendNSG (which lb calls while planning, so the load
// balancer is created in it), tagged with the cluster and Service that own it, found again by
// those tags after a restart, and deleted once the load balancer is gone (Delete) or the Service
// leaves mode NSG (Reconcile).

// frontendNamePrefix starts the display name of every frontend NSG, so a person reading the
// console knows what it is; ownership is in the tags, never the name.
const frontendNamePrefix = "oci-ccm-frontend-"

// The freeform tags that mark a frontend NSG as a Service's: the keys a load balancer's ownership
// tags have (lb/model's TagCluster, TagService and TagServiceUID; a test holds them equal), so one
// tag filter in the console finds a Service's load balancer and its group.
const (
	tagCluster    = "oci-ccm-cluster"
	tagService    = "oci-ccm-service"
	tagServiceUID = "oci-ccm-service-uid"
)

// maxDisplayName is OCI's limit on a display name.
const maxDisplayName = 255

// Frontend is the load balancer a frontend network security group is for: what FrontendNSG
// needs to know of a Service and its load balancer, as plain values (the orchestrator takes them
// from the Service's desired load balancer, ccm/service's FrontendOf).
type Frontend struct {
	// Service is the Service's namespace and name; the group is tagged with it.
	Service types.NamespacedName
	// UID is the Service's UID: the group's tag and its create's retry token.
	UID types.UID
	// Mode is the Service's security-rule management mode; only mode NSG has a frontend group.
	Mode config.SecurityListMode
	// Subnets are the load balancer's subnets; the group is made in the VCN of the first.
	Subnets []string
	// CompartmentID is the load balancer's compartment, where the group is made unless
	// Policy.CompartmentID says otherwise. Empty means the first subnet's.
	CompartmentID string
}

// FrontendNSG returns the OCID of the frontend network security group of the load balancer f
// describes when its Service is in mode NSG, creating it when it has none and create is true
// (with create false it only looks, and returns "" when there is none: a dry run and a drift
// check write nothing); for every other Service it returns "". The orchestrator passes the
// group to lb.Desired (lb.Known.FrontendNSG), so the load balancer is created in it or attached
// to it.
//
// A Service never gets two: the group is remembered, found after a restart by its tags
// (the cluster and Service tags a load balancer carries) in the load balancer's VCN, and
// creations are serialised in the process. The group is created in Policy.CompartmentID (else
// f.CompartmentID) and in the VCN of the load balancer's first subnet.
func (m *Manager) FrontendNSG(ctx context.Context, f Frontend, create bool) (string, error) {
	if f.Mode != config.SecurityListModeNSG {
		return "", nil
	}
	if f.Service.Name == "" {
		return "", fmt.Errorf("%w: the frontend names no Service, so its network security group could not be tagged as its", ErrInvalid)
	}
	service := f.Service.String()
	if id := m.knownFrontend(service); id != "" {
		return id, nil
	}
	m.nsgMu.Lock()
	defer m.nsgMu.Unlock()
	if id := m.knownFrontend(service); id != "" {
		return id, nil
	}
	home, err := m.frontendHome(ctx, f.Subnets, f.CompartmentID)
	if err != nil {
		return "", err
	}
	// Only a look waits out the listing lag; a create needs no proof of absence, as its retry
	// token finds a group the process before made under the same token.
	if id, err := m.findFrontend(ctx, home, service, !create); id != "" || err != nil || !create {
		return id, err
	}
	g, err := m.createFrontend(ctx, home, f)
	if err != nil {
		return "", fmt.Errorf("creating the frontend network security group of %s: %w", service, err)
	}
	id := deref(g.Id)
	m.loggerFor(ctx).Info("Created the frontend network security group of a load balancer", "service", service, "networkSecurityGroup", id)
	m.rememberFrontend(service, id)
	m.mu.Lock()
	m.nsgHomes[id], m.nsgCreated[id] = home, m.now()
	m.mu.Unlock()
	if g.TimeCreated == nil || !g.TimeCreated.Before(m.started) {
		m.writerFor(id).rememberNSG(nil) // a new group has no rules: its first sync needs no read
	} // else the process before made it (its retry token was answered again): it may hold rules
	return id, nil
}

// createFrontend creates the frontend NSG of f's Service in home. Its retry token depends
// on the Service UID only (frontendRetryToken), so a group made for the Service by this process
// or the one before it, within the 24 hours OCI keeps a token, is answered again instead of made
// twice: a listing right after a restart may lack it (Options.ListingLag). A token whose group
// was deleted (OCI answers 409 InvalidatedRetryToken) gives way to the next generation's.
func (m *Manager) createFrontend(ctx context.Context, home nsgHome, f Frontend) (core.NetworkSecurityGroup, error) {
	service, uid := f.Service.String(), string(f.UID)
	details := core.CreateNetworkSecurityGroupDetails{
		CompartmentId: common.String(home.compartment),
		VcnId:         common.String(home.vcn),
		DisplayName:   common.String(frontendName(m.opts.Policy.Cluster, service)),
		FreeformTags:  map[string]string{tagCluster: m.opts.Policy.Cluster, tagService: service, tagServiceUID: uid},
	}
	for generation := range maxFrontendGenerations {
		g, err := m.vn.CreateNetworkSecurityGroup(ctx, details, frontendRetryToken(uid, generation))
		if !ociclient.IsInvalidatedRetryToken(err) {
			return g, err
		}
	}
	return core.NetworkSecurityGroup{}, fmt.Errorf("the retry tokens of %d frontend network security groups of Service UID %s are all used "+
		"up by groups since deleted; retry after OCI forgets them (24 h)", maxFrontendGenerations, uid)
}

// maxFrontendGenerations bounds the retry tokens one create tries: each frontend NSG made for
// a Service and deleted (the Service left mode NSG) within OCI's 24 hours uses one up.
const maxFrontendGenerations = 16

// frontendRetryToken is the opc-retry-token of the create of a Service's frontend NSG, from the
// Service's UID and a generation (see createFrontend); "" (a fresh token per call) without a
// UID.
func frontendRetryToken(uid string, generation int) string {
	if uid == "" {
		return ""
	}
	if generation == 0 {
		return "oci-ccm-nsg-" + uid
	}
	return "oci-ccm-nsg-" + uid + "-" + strconv.Itoa(generation)
}

// frontendName is a frontend NSG's display name: the prefix, cluster and Service.
func frontendName(cluster, service string) string {
	name := frontendNamePrefix + cluster + "-" + strings.ReplaceAll(service, "/", "-")
	if len(name) > maxDisplayName {
		name = name[:maxDisplayName]
	}
	return name
}

// nsgHome is where a Service's frontend NSG lives.
type nsgHome struct{ compartment, vcn string }

// frontendHome is where the frontend NSG of a load balancer in subnets lives: the VCN of the
// first subnet, in Policy.CompartmentID, else compartment, else the subnet's compartment.
func (m *Manager) frontendHome(ctx context.Context, subnets []string, compartment string) (nsgHome, error) {
	if len(subnets) == 0 {
		return nsgHome{}, fmt.Errorf("%w: a load balancer subnet is needed to place a frontend network security group", ErrInvalid)
	}
	s, err := m.vn.GetSubnet(ctx, subnets[0])
	if err != nil {
		return nsgHome{}, fmt.Errorf("reading subnet %s: %w", subnets[0], err)
	}
	return nsgHome{compartment: cmp.Or(m.opts.Policy.CompartmentID, compartment, deref(s.CompartmentId)), vcn: deref(s.VcnId)}, nil
}

// findFrontend returns the Service's frontend NSG in home, "" when there is none. The first
// time in this process it lists the groups of home and remembers the frontend NSG of every
// Service of this cluster it finds there (a restart costs one listing per VCN, not one per
// Service); after that, a Service not remembered has none, because only this process creates
// them. Should a race between two processes (a leader change) have made two for one Service,
// the oldest wins, and the others are logged for a person to remove. Caller holds nsgMu.
//
// A listing made before m.settled may lack a group the process before this one created just
// before it stopped (Options.ListingLag): it does not count as the first, and with wait a
// Service missing from it is looked for again in a listing made once m.settled has passed.
func (m *Manager) findFrontend(ctx context.Context, home nsgHome, service string, wait bool) (string, error) {
	if id := m.knownFrontend(service); id != "" {
		return id, nil
	}
	if m.listedHomes[home] {
		return "", nil
	}
	id, err := m.listFrontends(ctx, home, service)
	if id != "" || err != nil || !m.now().Before(m.settled) || !wait {
		return id, err
	}
	m.loggerFor(ctx).V(2).Info("A listing right after the start may lack a frontend network security group; looking again once it settles",
		"service", service, "settled", m.settled)
	if err := ctxtime.Sleep(ctx, m.settled.Sub(m.now())); err != nil {
		return "", fmt.Errorf("waiting for the network security groups of %s to settle after the start: %w", service, err)
	}
	return m.listFrontends(ctx, home, service)
}

// listFrontends lists the groups of home, remembers the frontend NSG of every Service of this
// cluster found there, and returns service's. Caller holds nsgMu.
func (m *Manager) listFrontends(ctx context.Context, home nsgHome, service string) (string, error) {
	complete := !m.now().Before(m.settled)
	groups, err := m.vn.ListNetworkSecurityGroups(ctx, home.compartment, home.vcn)
	if err != nil {
		return "", fmt.Errorf("listing network security groups to find the frontend one of %s: %w", service, err)
	}
	found := map[string][]core.NetworkSecurityGroup{}
	for _, g := range groups {
		if svc := g.FreeformTags[tagService]; g.FreeformTags[tagCluster] == m.opts.Policy.Cluster && svc != "" &&
			g.LifecycleState != core.NetworkSecurityGroupLifecycleStateTerminating &&
			g.LifecycleState != core.NetworkSecurityGroupLifecycleStateTerminated {
			found[svc] = append(found[svc], g)
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, gs := range found {
		for _, g := range gs {
			m.nsgHomes[deref(g.Id)] = home
		}
	}
	for svc, gs := range found {
		slices.SortFunc(gs, func(a, b core.NetworkSecurityGroup) int {
			return cmp.Or(compareTimes(a.TimeCreated, b.TimeCreated), cmp.Compare(deref(a.Id), deref(b.Id)))
		})
		if len(gs) > 1 {
			m.loggerFor(ctx).Info("Several frontend network security groups are tagged for one Service; using the oldest", "service", svc,
				"networkSecurityGroups", idsOf(gs))
		}
		if _, ok := m.frontends[svc]; !ok {
			m.frontends[svc] = deref(gs[0].Id)
			m.version++
		}
	}
	m.listedHomes[home] = complete
	return m.frontends[service], nil
}

// frontendOf returns the Service's frontend NSG as remembered or found by its tags in the VCN of
// lbSubnets; "" when it has none. It never creates one. With wait, a listing made before the
// listing lag settled does not prove the Service has none (see findFrontend).
func (m *Manager) frontendOf(ctx context.Context, service string, lbSubnets []string, wait bool) (string, error) {
	if id := m.knownFrontend(service); id != "" {
		return id, nil
	}
	if len(lbSubnets) == 0 {
		return "", nil
	}
	m.nsgMu.Lock()
	defer m.nsgMu.Unlock()
	if id := m.knownFrontend(service); id != "" {
		return id, nil
	}
	home, err := m.frontendHome(ctx, lbSubnets, "")
	if err != nil {
		return "", err
	}
	return m.findFrontend(ctx, home, service, wait)
}

// knowFrontends finds the frontend NSGs of the claims in mode NSG that have none yet (claims of
// Prime, which makes no call), and records them in the claims. One that is not found stays
// unknown (see unknownLocked), and is logged.
func (m *Manager) knowFrontends(ctx context.Context) error {
	m.mu.Lock()
	var missing []Claim
	for _, c := range m.claims {
		if c.FrontendNSG == "" && m.opts.Policy.mode(c) == config.SecurityListModeNSG {
			missing = append(missing, c)
		}
	}
	m.mu.Unlock()
	for _, c := range missing {
		id, err := m.frontendOf(ctx, c.key(), c.LBSubnets, true)
		if err != nil || id == "" {
			m.loggerFor(ctx).Info("The frontend network security group of a Service in mode NSG is not known yet; not removing rules until it is",
				"service", c.key(), "err", err)
			continue
		}
		m.mu.Lock()
		if cur, ok := m.claims[c.key()]; ok && cur.FrontendNSG == "" {
			cur.FrontendNSG = id
			m.claims[c.key()] = cur
			m.version++
		}
		m.mu.Unlock()
	}
	return ctx.Err()
}

// frontendToDelete returns the frontend NSG of the Service being deleted: the one its claims or
// this process know, else the one its tags name in the VCN of its load balancer's subnets, in any
// mode: a Service that left mode NSG may still have one (its delete failed, or no CCM ran since).
// Only the first lookup in a VCN lists it (see findFrontend); that listing waits out the listing
// lag, as it must prove the Service has none.
func (m *Manager) frontendToDelete(ctx context.Context, c, held Claim) (string, error) {
	if id := cmp.Or(held.FrontendNSG, c.FrontendNSG, m.knownFrontend(c.key())); id != "" {
		return id, nil
	}
	return m.frontendOf(ctx, c.key(), union(c.LBSubnets, held.LBSubnets), true)
}

// retireLocked records id among the frontend NSGs service no longer uses, until deleteFrontend
// has OCI's confirmation that it is gone. Guarded by mu.
func (m *Manager) retireLocked(service, id string) {
	if !slices.Contains(m.retiring[service], id) {
		m.retiring[service] = append(m.retiring[service], id)
	}
}

// deleteFrontends deletes the frontend NSGs ids of service (see deleteFrontend); each one whose
// deletion is not confirmed stays the Service's, for its next Reconcile or Delete.
func (m *Manager) deleteFrontends(ctx context.Context, service string, ids, lbSubnets []string) error {
	var errs []error
	for _, id := range ids {
		if err := m.deleteFrontend(ctx, service, id, lbSubnets); err != nil {
			m.mu.Lock()
			if m.frontends[service] != id {
				m.retireLocked(service, id)
			}
			m.mu.Unlock()
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// deleteFrontend deletes a Service's frontend NSG, which must no longer be attached to its load
// balancer (OCI refuses while any VNIC is in it), and forgets it once OCI confirms it gone. One
// already gone is success, but a 404 is believed only once confirmFrontendGone proves it: OCI
// answers the same 404 NotAuthorizedOrNotFound for a group the CCM's policy does not let it
// delete. Any failure is returned, and the group stays the Service's.
func (m *Manager) deleteFrontend(ctx context.Context, service, id string, lbSubnets []string) error {
	err := m.vn.DeleteNetworkSecurityGroup(ctx, id)
	if ociclient.IsNotFound(err) {
		err = m.confirmFrontendGone(ctx, id, lbSubnets, err)
	}
	if err != nil {
		return fmt.Errorf("service %s: deleting its frontend network security group %s (kept, and deleted again at the Service's next sync): %w", service, id, err)
	}
	m.loggerFor(ctx).Info("Deleted the frontend network security group of a load balancer", "service", service, "networkSecurityGroup", id)
	m.mu.Lock()
	if m.frontends[service] == id {
		delete(m.frontends, service)
	}
	m.retiring[service] = slices.DeleteFunc(m.retiring[service], func(r string) bool { return r == id })
	if len(m.retiring[service]) == 0 {
		delete(m.retiring, service)
	}
	delete(m.writers, id)
	delete(m.nsgHomes, id)
	delete(m.nsgCreated, id)
	m.version++
	m.mu.Unlock()
	return nil
}

// nsgGetter reads one network security group. ociclient's VirtualNetworkClient has it; a
// VirtualNetwork without it has a 404 confirmed by a listing alone.
type nsgGetter interface {
	GetNetworkSecurityGroup(ctx context.Context, id string) (core.NetworkSecurityGroup, error)
}

// confirmFrontendGone decides what DeleteNetworkSecurityGroup's 404 (notFound) for the frontend
// NSG id meant: nil when the group is gone; an error naming the statement the policy most likely
// lacks when a read or a listing shows it still there; an error when nothing can tell (a read and
// a listing that fail too). A read that finds the group decides at once; a read that answers 404
// (the policy may hide the group from reads as well) leaves it to a listing of its compartment
// and VCN, made once the listing lag has passed since the group could have been created.
func (m *Manager) confirmFrontendGone(ctx context.Context, id string, lbSubnets []string, notFound error) error {
	if g, ok := m.vn.(nsgGetter); ok {
		group, err := g.GetNetworkSecurityGroup(ctx, id)
		switch {
		case err == nil && nsgGone(group):
			return nil
		case err == nil:
			return deleteRefused(id, deref(group.CompartmentId), notFound)
		case !ociclient.IsNotFound(err):
			return fmt.Errorf("reading network security group %s to confirm it is gone after DeleteNetworkSecurityGroup answered 404: %w (DeleteNetworkSecurityGroup: %v)", id, err, notFound)
		}
	}
	m.mu.Lock()
	home, known := m.nsgHomes[id]
	listedFrom := m.settled
	if at, ok := m.nsgCreated[id]; ok && at.Add(m.opts.ListingLag).After(listedFrom) {
		listedFrom = at.Add(m.opts.ListingLag)
	}
	m.mu.Unlock()
	if !known {
		if len(lbSubnets) == 0 {
			return fmt.Errorf("DeleteNetworkSecurityGroup answered 404 for network security group %s, and its VCN is unknown, so no listing can confirm it is gone: %v", id, notFound)
		}
		var err error
		if home, err = m.frontendHome(ctx, lbSubnets, ""); err != nil {
			return fmt.Errorf("confirming network security group %s is gone after DeleteNetworkSecurityGroup answered 404: %w", id, err)
		}
	}
	if wait := listedFrom.Sub(m.clock()); wait > 0 {
		if err := ctxtime.Sleep(ctx, wait); err != nil {
			return fmt.Errorf("waiting for a listing to show network security group %s: %w", id, err)
		}
	}
	groups, err := m.vn.ListNetworkSecurityGroups(ctx, home.compartment, home.vcn)
	if err != nil {
		return fmt.Errorf("listing the network security groups of compartment %s to confirm %s is gone after DeleteNetworkSecurityGroup answered 404: %w (DeleteNetworkSecurityGroup: %v)",
			home.compartment, id, err, notFound)
	}
	for _, g := range groups {
		if deref(g.Id) == id && !nsgGone(g) {
			return deleteRefused(id, home.compartment, notFound)
		}
	}
	return nil
}

// nsgGone says whether a group OCI shows is deleted or being deleted.
func nsgGone(g core.NetworkSecurityGroup) bool {
	return g.LifecycleState == core.NetworkSecurityGroupLifecycleStateTerminating ||
		g.LifecycleState == core.NetworkSecurityGroupLifecycleStateTerminated
}

// deleteRefused is the error for a DeleteNetworkSecurityGroup that answered 404 for a group that
// still exists: most likely the policy lets the CCM read the group but not delete it.
func deleteRefused(id, compartment string, notFound error) error {
	if compartment == "" {
		compartment = "<the NSG's compartment>"
	}
	return fmt.Errorf("DeleteNetworkSecurityGroup answered 404 NotAuthorizedOrNotFound for network security group %s, which still exists: "+
		"the CCM's IAM policy most likely lacks \"Allow dynamic-group <the CCM's group> to manage network-security-groups in compartment id %s\": %v",
		id, compartment, notFound)
}

func (m *Manager) knownFrontend(service string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.frontends[service]
}

func (m *Manager) rememberFrontend(service, id string) {
	m.mu.Lock()
	if m.frontends[service] != id {
		m.frontends[service] = id
		m.version++
	}
	m.mu.Unlock()
}

func compareTimes(a, b *common.SDKTime) int {
	switch {
	case a == nil || b == nil:
		return 0
	case a.Before(b.Time):
		return -1
	case b.Before(a.Time):
		return 1
	}
	return 0
}

func idsOf(groups []core.NetworkSecurityGroup) []string {
	out := make([]string, len(groups))
	for i, g := range groups {
		out[i] = deref(g.Id)
	}
	return out
}
