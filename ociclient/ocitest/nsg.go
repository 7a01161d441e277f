// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/oracle/oci-go-sdk/v65/core"
)

// maxNSGRules is OCI's capacity of one network security group.
const maxNSGRules = 120

// maxNSGRulesPerAdd is how many rules one AddNetworkSecurityGroupSecurityRules may carry (the
// SDK's doc comment: "Adds up to 25 security rules").
const maxNSGRulesPerAdd = 25

// nsgState is a stored network security group with its rules.
type nsgState struct {
	group core.NetworkSecurityGroup
	rules []core.SecurityRule
}

func (s *Server) registerNSGs() {
	const base = "/20160918/networkSecurityGroups"
	s.handle("GetNetworkSecurityGroup", ClassRead, "GET "+base+"/{networkSecurityGroupId}", func(w http.ResponseWriter, r *http.Request) {
		serveGet(s, w, r, "network security group", r.PathValue("networkSecurityGroupId"), func(id string) (core.NetworkSecurityGroup, bool) {
			n, ok := s.vcn.nsgs.get(id)
			return n.group, ok
		})
	})
	s.handle("ListNetworkSecurityGroups", ClassRead, "GET "+base, s.listNSGs)
	s.handle("CreateNetworkSecurityGroup", ClassWrite, "POST "+base, withBody(s.createNSG))
	s.handle("DeleteNetworkSecurityGroup", ClassWrite, "DELETE "+base+"/{networkSecurityGroupId}", s.deleteNSG)
	s.handle("UpdateNetworkSecurityGroupSecurityRules", ClassWrite, "POST "+base+"/{networkSecurityGroupId}/actions/updateSecurityRules", withBody(s.updateNSGRules))
	s.handle("ListNetworkSecurityGroupSecurityRules", ClassRead, "GET "+base+"/{networkSecurityGroupId}/securityRules", s.listNSGRules)
	s.handle("AddNetworkSecurityGroupSecurityRules", ClassWrite, "POST "+base+"/{networkSecurityGroupId}/actions/addSecurityRules", withBody(s.addNSGRules))
	s.handle("RemoveNetworkSecurityGroupSecurityRules", ClassWrite, "POST "+base+"/{networkSecurityGroupId}/actions/removeSecurityRules", withBody(s.removeNSGRules))
}

// listNSGs needs a compartment or a VCN, as OCI does.
func (s *Server) listNSGs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("compartmentId") == "" && q.Get("vcnId") == "" {
		writeError(w, r, http.StatusBadRequest, "MissingParameter", "one of the query parameters compartmentId or vcnId is required")
		return
	}
	serveList(s, w, r, func() []core.NetworkSecurityGroup {
		out := []core.NetworkSecurityGroup{} // OCI answers an empty list as [], which the SDK needs
		now := s.now()
		for _, n := range s.vcn.nsgs.filter(nil) {
			g := n.group
			if s.lag.listedLocked(deref(g.Id), now) && queryMatches(r, "compartmentId", deref(g.CompartmentId)) && queryMatches(r, "vcnId", deref(g.VcnId)) &&
				queryMatches(r, "displayName", deref(g.DisplayName)) &&
				queryMatches(r, "lifecycleState", string(g.LifecycleState)) {
				out = append(out, g)
			}
		}
		return out
	})
}

func (s *Server) listNSGRules(w http.ResponseWriter, r *http.Request) {
	n, ok := lookupOrNotFound(s, w, r, "network security group", r.PathValue("networkSecurityGroupId"), s.vcn.nsgs.get)
	if !ok {
		return
	}
	rules := []core.SecurityRule{}
	for _, rule := range n.rules {
		if queryMatches(r, "direction", string(rule.Direction)) {
			rules = append(rules, rule)
		}
	}
	writeJSON(w, r, http.StatusOK, pageOf(s, w, r, rules, corePageLimit))
}

func (s *Server) addNSGRules(w http.ResponseWriter, r *http.Request, d core.AddNetworkSecurityGroupSecurityRulesDetails) {
	id := r.PathValue("networkSecurityGroupId")
	var added []core.SecurityRule
	err := underLock(s, func() (err error) { added, err = s.addNSGRulesLocked(id, d.SecurityRules); return err })
	switch {
	case errors.Is(err, errNoSuchNSG):
		notFound(w, r, "network security group", id)
	case err != nil:
		writeError(w, r, http.StatusBadRequest, "InvalidParameter", err.Error())
	default:
		writeJSON(w, r, http.StatusOK, core.AddedNetworkSecurityGroupSecurityRules{SecurityRules: added})
	}
}

// errNoSuchNSG tells addNSGRulesLocked's caller to answer 404.
var errNoSuchNSG = errors.New("no such network security group")

func (s *Server) addNSGRulesLocked(id string, details []core.AddSecurityRuleDetails) ([]core.SecurityRule, error) {
	n, ok := s.vcn.nsgs.get(id)
	if !ok {
		return nil, errNoSuchNSG
	}
	if len(details) > maxNSGRulesPerAdd {
		return nil, fmt.Errorf("one request adds at most %d security rules, not %d", maxNSGRulesPerAdd, len(details))
	}
	if total := len(n.rules) + len(details); total > maxNSGRules {
		return nil, fmt.Errorf("a network security group holds at most %d rules; this one would have %d", maxNSGRules, total)
	}
	added := make([]core.SecurityRule, 0, len(details))
	for i, d := range details {
		if err := s.checkNSGRuleLocked(d); err != nil {
			return nil, fmt.Errorf("securityRules[%d]: %w", i, err)
		}
		added = append(added, ruleFromDetails(d, fmt.Sprintf("%06X", s.seq.Add(1)&0xFFFFFF)))
	}
	n.rules = append(slices.Clip(n.rules), added...)
	s.vcn.nsgs.put(id, n)
	return added, nil
}

// ruleFromDetails is the rule a request describes, as the group stores it under id.
func ruleFromDetails(d core.AddSecurityRuleDetails, id string) core.SecurityRule {
	return core.SecurityRule{
		Id:              new(id),
		Direction:       core.SecurityRuleDirectionEnum(d.Direction),
		Protocol:        d.Protocol,
		Description:     d.Description,
		Destination:     d.Destination,
		DestinationType: core.SecurityRuleDestinationTypeEnum(d.DestinationType),
		Source:          d.Source,
		SourceType:      core.SecurityRuleSourceTypeEnum(d.SourceType),
		IcmpOptions:     d.IcmpOptions,
		TcpOptions:      d.TcpOptions,
		UdpOptions:      d.UdpOptions,
		IsStateless:     d.IsStateless,
		IsValid:         new(true),
		TimeCreated:     timeCreatedNow(),
	}
}

// checkNSGRuleLocked validates a rule; a NETWORK_SECURITY_GROUP source or destination must name
// an existing group.
func (s *Server) checkNSGRuleLocked(d core.AddSecurityRuleDetails) error {
	var field string
	var v *string
	var typ string
	switch d.Direction {
	case core.AddSecurityRuleDetailsDirectionIngress:
		field, v, typ = "source", d.Source, string(d.SourceType)
	case core.AddSecurityRuleDetailsDirectionEgress:
		field, v, typ = "destination", d.Destination, string(d.DestinationType)
	default:
		return fmt.Errorf("direction must be INGRESS or EGRESS, not %q", d.Direction)
	}
	if err := checkEndpoint(field, v, typ); err != nil {
		return err
	}
	if typ == "NETWORK_SECURITY_GROUP" {
		if _, ok := s.vcn.nsgs.get(*v); !ok {
			return fmt.Errorf("%s names no network security group: %s", field, *v)
		}
	}
	return checkProtocol(d.Protocol, d.TcpOptions, d.UdpOptions, d.IcmpOptions)
}

// removeNSGRules removes rules by ID; an ID the group does not have fails the whole request, so
// a caller working from a stale view learns of it.
func (s *Server) removeNSGRules(w http.ResponseWriter, r *http.Request, d core.RemoveNetworkSecurityGroupSecurityRulesDetails) {
	id := r.PathValue("networkSecurityGroupId")
	answer := underLock(s, func() func() {
		n, ok := s.vcn.nsgs.get(id)
		if !ok {
			return func() { notFound(w, r, "network security group", id) }
		}
		for _, rid := range d.SecurityRuleIds {
			if !slices.ContainsFunc(n.rules, func(rule core.SecurityRule) bool { return deref(rule.Id) == rid }) {
				return func() {
					writeError(w, r, http.StatusBadRequest, "InvalidParameter", fmt.Sprintf("network security group %s has no security rule %s", id, rid))
				}
			}
		}
		n.rules = slices.DeleteFunc(slices.Clone(n.rules), func(rule core.SecurityRule) bool {
			return slices.Contains(d.SecurityRuleIds, deref(rule.Id))
		})
		s.vcn.nsgs.put(id, n)
		return func() { writeJSON(w, r, http.StatusOK, nil) }
	})
	answer()
}

// AddNetworkSecurityGroup adds a network security group without rules and returns it as stored.
// VcnId is required and must name a VCN; the compartment defaults to the VCN's. It panics on
// invalid input.
func (s *Server) AddNetworkSecurityGroup(g core.NetworkSecurityGroup) core.NetworkSecurityGroup {
	return seed(s, "AddNetworkSecurityGroup", g, s.addNSGLocked)
}

func (s *Server) addNSGLocked(g core.NetworkSecurityGroup) (core.NetworkSecurityGroup, error) {
	vcn, err := s.seededVCNLocked(g.VcnId)
	if err != nil {
		return g, err
	}
	g.Id = new(s.NewID("networksecuritygroup"))
	orDefault(&g.CompartmentId, vcn.CompartmentId)
	orDefault(&g.DisplayName, new(fmt.Sprintf("nsg-%d", len(s.vcn.nsgs.ids)+1)))
	g.LifecycleState = core.NetworkSecurityGroupLifecycleStateAvailable
	g.TimeCreated = timeCreatedNow()
	s.vcn.nsgs.put(*g.Id, nsgState{group: g})
	return g, nil
}

// NetworkSecurityGroup returns a copy of a network security group and its rules as stored now.
func (s *Server) NetworkSecurityGroup(id string) (core.NetworkSecurityGroup, []core.SecurityRule, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.vcn.nsgs.get(id)
	return jsonClone(n.group), jsonClone(n.rules), ok
}

// NetworkSecurityGroups returns copies of every network security group as stored now, in
// creation order: the ones a listing would not show yet (Options.ListingLag) included.
func (s *Server) NetworkSecurityGroups() []core.NetworkSecurityGroup {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []core.NetworkSecurityGroup
	for _, n := range s.vcn.nsgs.filter(nil) {
		out = append(out, jsonClone(n.group))
	}
	return out
}

// nsgToken is what the server remembers of a CreateNetworkSecurityGroup's opc-retry-token: the
// group it created and when, by the server's clock. Like every retry token it expires after 24
// hours (retryTokenLifetime), then a request with it creates a new group.
type nsgToken struct {
	group string
	body  [sha256.Size]byte // of the request that first used the token
	first time.Time
}

// createNSG creates a network security group in a VCN, synchronously (OCI answers with the
// group AVAILABLE; no work request). An opc-retry-token seen in the last 24 hours answers the
// group it created, or 409 InvalidatedRetryToken once that group is deleted or when the body
// differs from the first request's (as the load balancer APIs answer; assumed for OCI).
func (s *Server) createNSG(w http.ResponseWriter, r *http.Request, d core.CreateNetworkSecurityGroupDetails) {
	if deref(d.CompartmentId) == "" || deref(d.VcnId) == "" {
		writeError(w, r, http.StatusBadRequest, "MissingParameter", "compartmentId and vcnId are required")
		return
	}
	token := r.Header.Get("opc-retry-token")
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if t, ok := s.vcn.nsgTokens[token]; ok && token != "" && !now.Before(t.first.Add(retryTokenLifetime)) {
		delete(s.vcn.nsgTokens, token) // expired: the request runs anew
	}
	if t, ok := s.vcn.nsgTokens[token]; ok && token != "" {
		id := t.group
		n, ok := s.vcn.nsgs.get(id)
		if !ok {
			writeError(w, r, http.StatusConflict, codeInvalidatedRetryToken,
				fmt.Sprintf("The retry token was invalidated: network security group %s, which it created, has been deleted", id))
			return
		}
		if lbBodyHash(r) != t.body {
			writeError(w, r, http.StatusConflict, codeInvalidatedRetryToken,
				"The retry token was first used for a request with a different body; a retry must repeat the request exactly")
			return
		}
		w.Header().Set("etag", nsgETag(n.group))
		writeJSON(w, r, http.StatusOK, n.group)
		return
	}
	if _, ok := s.vcn.vcns.get(*d.VcnId); !ok {
		writeLBError(w, r, relatedNotFound("vcn", *d.VcnId))
		return
	}
	if err := s.checkDefinedTagsLocked(d.DefinedTags); err != nil {
		writeLBError(w, r, err)
		return
	}
	g, err := s.addNSGLocked(core.NetworkSecurityGroup{CompartmentId: d.CompartmentId, VcnId: d.VcnId,
		DisplayName: d.DisplayName, FreeformTags: d.FreeformTags, DefinedTags: d.DefinedTags})
	if err != nil {
		writeError(w, r, http.StatusBadRequest, "InvalidParameter", err.Error())
		return
	}
	s.lag.createdLocked(*g.Id, now)
	if token != "" {
		if s.vcn.nsgTokens == nil {
			s.vcn.nsgTokens = map[string]nsgToken{}
		}
		s.vcn.nsgTokens[token] = nsgToken{group: *g.Id, body: lbBodyHash(r), first: now}
	}
	w.Header().Set("etag", nsgETag(g))
	writeJSON(w, r, http.StatusOK, jsonClone(g))
}

// nsgETag is the ETag of a group; ocitest does not version groups, so it names the group only.
func nsgETag(g core.NetworkSecurityGroup) string { return "nsg-" + deref(g.Id) }

// deleteNSG deletes a group that no VNIC is in. A load balancer or network load balancer that
// lists the group has its VNICs in it, so such a group is refused with 409 Conflict. Rules of
// other groups that name it stay (and name a group that no longer exists).
func (s *Server) deleteNSG(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("networkSecurityGroupId")
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.vcn.nsgs.get(id); !ok {
		notFound(w, r, "network security group", id)
		return
	}
	if users := s.nsgUsersLocked(id); len(users) > 0 {
		writeError(w, r, http.StatusConflict, "Conflict",
			fmt.Sprintf("network security group %s still contains VNICs (of %s); remove them from the group first", id, strings.Join(users, ", ")))
		return
	}
	s.vcn.nsgs.remove(id)
	writeJSON(w, r, http.StatusNoContent, nil)
}

// nsgUsersLocked returns the resources whose VNICs are in the group: load balancers, network
// load balancers and VNICs that list it, sorted. Caller holds s.mu.
func (s *Server) nsgUsersLocked(id string) []string {
	var users []string
	for lbID, e := range s.lb.lbs {
		if slices.Contains(e.lb.NetworkSecurityGroupIds, id) {
			users = append(users, lbID)
		}
	}
	for nlbID, e := range s.nlb.nlbs {
		if slices.Contains(e.nlb.NetworkSecurityGroupIds, id) {
			users = append(users, nlbID)
		}
	}
	for _, v := range s.vcn.vnics.filter(func(v core.Vnic) bool { return slices.Contains(v.NsgIds, id) }) {
		users = append(users, deref(v.Id))
	}
	slices.Sort(users)
	return users
}

// updateNSGRules replaces rules by ID, all or none: an ID the group does not have, or an invalid
// rule, fails the whole request with 400.
func (s *Server) updateNSGRules(w http.ResponseWriter, r *http.Request, d core.UpdateNetworkSecurityGroupSecurityRulesDetails) {
	id := r.PathValue("networkSecurityGroupId")
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.vcn.nsgs.get(id)
	if !ok {
		notFound(w, r, "network security group", id)
		return
	}
	rules := slices.Clone(n.rules)
	var updated []core.SecurityRule
	for i, u := range d.SecurityRules {
		at := slices.IndexFunc(rules, func(rule core.SecurityRule) bool { return deref(rule.Id) == deref(u.Id) })
		if at < 0 {
			writeError(w, r, http.StatusBadRequest, "InvalidParameter", fmt.Sprintf("network security group %s has no security rule %s", id, deref(u.Id)))
			return
		}
		add := core.AddSecurityRuleDetails{Direction: core.AddSecurityRuleDetailsDirectionEnum(u.Direction), Protocol: u.Protocol,
			Description: u.Description, Destination: u.Destination, DestinationType: core.AddSecurityRuleDetailsDestinationTypeEnum(u.DestinationType),
			Source: u.Source, SourceType: core.AddSecurityRuleDetailsSourceTypeEnum(u.SourceType), IcmpOptions: u.IcmpOptions,
			TcpOptions: u.TcpOptions, UdpOptions: u.UdpOptions, IsStateless: u.IsStateless}
		if err := s.checkNSGRuleLocked(add); err != nil {
			writeError(w, r, http.StatusBadRequest, "InvalidParameter", fmt.Sprintf("securityRules[%d]: %v", i, err))
			return
		}
		rule := ruleFromDetails(add, *rules[at].Id)
		rule.TimeCreated = rules[at].TimeCreated
		rules[at] = rule
		updated = append(updated, rule)
	}
	n.rules = rules
	s.vcn.nsgs.put(id, n)
	writeJSON(w, r, http.StatusOK, core.UpdatedNetworkSecurityGroupSecurityRules{SecurityRules: updated})
}
