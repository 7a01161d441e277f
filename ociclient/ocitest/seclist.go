// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/netip"
	"strconv"

	"github.com/oracle/oci-go-sdk/v65/core"
)

// maxSecurityListRules is OCI's per-direction capacity of one security list.
const maxSecurityListRules = 200

// secList is a stored security list with its current ETag.
type secList struct {
	list core.SecurityList
	etag string
}

func (s *Server) registerSecurityLists() {
	const v = "/20160918"
	s.handle("GetSecurityList", ClassRead, "GET "+v+"/securityLists/{securityListId}", s.getSecurityList)
	s.handle("ListSecurityLists", ClassRead, "GET "+v+"/securityLists", s.listSecurityLists)
	s.handle("UpdateSecurityList", ClassWrite, "PUT "+v+"/securityLists/{securityListId}", withBody(s.updateSecurityList))
}

func (s *Server) getSecurityList(w http.ResponseWriter, r *http.Request) {
	l, ok := lookupOrNotFound(s, w, r, "security list", r.PathValue("securityListId"), s.vcn.secLists.get)
	if !ok {
		return
	}
	w.Header().Set("etag", l.etag)
	writeJSON(w, r, http.StatusOK, l.list)
}

func (s *Server) listSecurityLists(w http.ResponseWriter, r *http.Request) {
	comp, ok := requiredQuery(w, r, "compartmentId")
	if !ok {
		return
	}
	serveList(s, w, r, func() []core.SecurityList {
		var out []core.SecurityList
		for _, l := range s.vcn.secLists.filter(nil) {
			if deref(l.list.CompartmentId) == comp && queryMatches(r, "vcnId", deref(l.list.VcnId)) &&
				queryMatches(r, "displayName", deref(l.list.DisplayName)) &&
				queryMatches(r, "lifecycleState", string(l.list.LifecycleState)) {
				out = append(out, l.list)
			}
		}
		return out
	})
}

// updateSecurityList replaces what the body sets (a field left out stays as it is) if the
// if-match header, when sent, still names the current ETag, and answers with a new ETag.
func (s *Server) updateSecurityList(w http.ResponseWriter, r *http.Request, d core.UpdateSecurityListDetails) {
	id := r.PathValue("securityListId")
	answer := underLock(s, func() func() {
		cur, ok := s.vcn.secLists.get(id)
		if !ok {
			return func() { notFound(w, r, "security list", id) }
		}
		if m := r.Header.Get("if-match"); m != "" && m != cur.etag {
			return func() {
				writeError(w, r, http.StatusPreconditionFailed, "NoEtagMatch",
					"the if-match ETag does not match the security list's current ETag; read it again")
			}
		}
		next := cur.list
		if d.DisplayName != nil {
			next.DisplayName = d.DisplayName
		}
		if d.IngressSecurityRules != nil {
			next.IngressSecurityRules = d.IngressSecurityRules
		}
		if d.EgressSecurityRules != nil {
			next.EgressSecurityRules = d.EgressSecurityRules
		}
		if d.FreeformTags != nil {
			next.FreeformTags = d.FreeformTags
		}
		if d.DefinedTags != nil {
			next.DefinedTags = d.DefinedTags
		}
		if err := checkSecurityListRules(next.IngressSecurityRules, next.EgressSecurityRules); err != nil {
			return func() { writeError(w, r, http.StatusBadRequest, "InvalidParameter", err.Error()) }
		}
		if err := s.checkDefinedTagsLocked(d.DefinedTags); err != nil {
			return func() { writeLBError(w, r, err) }
		}
		etag := s.newETag()
		s.vcn.secLists.put(id, secList{list: next, etag: etag})
		return func() {
			w.Header().Set("etag", etag)
			writeJSON(w, r, http.StatusOK, next)
		}
	})
	answer()
}

// AddSecurityList adds a security list and returns it as stored. VcnId is required and must
// name a VCN. Defaults: the VCN's compartment, state AVAILABLE, empty rule lists. It panics on
// invalid rules or more than 200 rules in one direction.
func (s *Server) AddSecurityList(l core.SecurityList) core.SecurityList {
	return seed(s, "AddSecurityList", l, s.addSecurityListLocked)
}

func (s *Server) addSecurityListLocked(l core.SecurityList) (core.SecurityList, error) {
	vcn, err := s.seededVCNLocked(l.VcnId)
	if err != nil {
		return l, err
	}
	if err := checkSecurityListRules(l.IngressSecurityRules, l.EgressSecurityRules); err != nil {
		return l, err
	}
	l.Id = new(s.NewID("securitylist"))
	orDefault(&l.CompartmentId, vcn.CompartmentId)
	orDefault(&l.DisplayName, new(fmt.Sprintf("securitylist-%d", len(s.vcn.secLists.ids)+1)))
	orEmpty(&l.IngressSecurityRules)
	orEmpty(&l.EgressSecurityRules)
	l.LifecycleState = core.SecurityListLifecycleStateAvailable
	l.TimeCreated = timeCreatedNow()
	s.vcn.secLists.put(*l.Id, secList{list: l, etag: s.newETag()})
	return l, nil
}

// SecurityList returns a copy of a security list as stored now, for assertions.
func (s *Server) SecurityList(id string) (core.SecurityList, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.vcn.secLists.get(id)
	return jsonClone(l.list), ok
}

// EditSecurityList changes a security list as another actor would (a person in the console,
// another controller): fn edits a copy, which replaces the list, and the ETag changes, so a
// writer holding the old ETag gets 412. The edit is not validated. It reports whether the list
// exists.
func (s *Server) EditSecurityList(id string, fn func(*core.SecurityList)) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.vcn.secLists.get(id)
	if !ok {
		return false
	}
	next := jsonClone(cur.list)
	fn(&next)
	next.Id = cur.list.Id // the identity is not the editor's to change
	s.vcn.secLists.put(id, secList{list: jsonClone(next), etag: s.newETag()})
	return true
}

// newETag returns an ETag no resource of this server has had.
func (s *Server) newETag() string {
	sum := sha256.Sum256(fmt.Appendf(nil, "etag/%d/%p", s.seq.Add(1), s))
	return hex.EncodeToString(sum[:16])
}

// checkSecurityListRules validates rules the way OCI rejects them with 400 InvalidParameter.
func checkSecurityListRules(ingress []core.IngressSecurityRule, egress []core.EgressSecurityRule) error {
	if len(ingress) > maxSecurityListRules || len(egress) > maxSecurityListRules {
		return fmt.Errorf("a security list holds at most %d ingress and %d egress rules; this one would have %d ingress and %d egress rules",
			maxSecurityListRules, maxSecurityListRules, len(ingress), len(egress))
	}
	for i, rule := range ingress {
		if err := checkEndpoint("source", rule.Source, string(rule.SourceType)); err != nil {
			return fmt.Errorf("ingressSecurityRules[%d]: %w", i, err)
		}
		if err := checkProtocol(rule.Protocol, rule.TcpOptions, rule.UdpOptions, rule.IcmpOptions); err != nil {
			return fmt.Errorf("ingressSecurityRules[%d]: %w", i, err)
		}
	}
	for i, rule := range egress {
		if err := checkEndpoint("destination", rule.Destination, string(rule.DestinationType)); err != nil {
			return fmt.Errorf("egressSecurityRules[%d]: %w", i, err)
		}
		if err := checkProtocol(rule.Protocol, rule.TcpOptions, rule.UdpOptions, rule.IcmpOptions); err != nil {
			return fmt.Errorf("egressSecurityRules[%d]: %w", i, err)
		}
	}
	return nil
}

// checkEndpoint validates a rule's source or destination: a CIDR for CIDR_BLOCK (the default),
// a non-empty label or OCID for the other types.
func checkEndpoint(field string, v *string, typ string) error {
	if deref(v) == "" {
		return fmt.Errorf("%s is required", field)
	}
	if typ != "" && typ != "CIDR_BLOCK" {
		return nil
	}
	if _, err := netip.ParsePrefix(*v); err != nil {
		return fmt.Errorf("%s %q is not a CIDR block", field, *v)
	}
	return nil
}

// checkProtocol validates a protocol ("all" or an IANA number) and that only the options that
// belong to it are set, with sane port ranges.
func checkProtocol(protocol *string, tcp *core.TcpOptions, udp *core.UdpOptions, icmp *core.IcmpOptions) error {
	p := deref(protocol)
	if p == "" {
		return fmt.Errorf("protocol is required")
	}
	if p != "all" {
		if n, err := strconv.Atoi(p); err != nil || n < 0 || n > 255 {
			return fmt.Errorf("protocol %q is neither \"all\" nor a protocol number", p)
		}
	}
	if tcp != nil {
		if p != "6" {
			return fmt.Errorf("tcpOptions need protocol 6, not %q", p)
		}
		if err := checkPortRanges(tcp.DestinationPortRange, tcp.SourcePortRange); err != nil {
			return fmt.Errorf("tcpOptions: %w", err)
		}
	}
	if udp != nil {
		if p != "17" {
			return fmt.Errorf("udpOptions need protocol 17, not %q", p)
		}
		if err := checkPortRanges(udp.DestinationPortRange, udp.SourcePortRange); err != nil {
			return fmt.Errorf("udpOptions: %w", err)
		}
	}
	if icmp != nil {
		if p != "1" && p != "58" {
			return fmt.Errorf("icmpOptions need protocol 1 or 58, not %q", p)
		}
		if icmp.Type == nil || *icmp.Type < 0 || *icmp.Type > 255 {
			return fmt.Errorf("icmpOptions.type must be 0-255")
		}
	}
	return nil
}

func checkPortRanges(ranges ...*core.PortRange) error {
	for _, pr := range ranges {
		if pr == nil {
			continue
		}
		if pr.Min == nil || pr.Max == nil {
			return fmt.Errorf("a port range needs min and max")
		}
		if *pr.Min < 1 || *pr.Max > 65535 || *pr.Min > *pr.Max {
			return fmt.Errorf("port range %d-%d is not within 1-65535 with min <= max", *pr.Min, *pr.Max)
		}
	}
	return nil
}
