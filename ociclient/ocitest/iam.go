// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
)

// IAM, as far as ocitest models it.
//
// IAM is on from the start: every operation is checked against the verb and resource type OCI
// requires for it (iam_ops.go), in the compartment the resource lives in, under the policy the
// tenancy seed loaded (the default tenancy's is DefaultPolicy), SetPolicy or the admin API. A call
// the policy does not allow on the resource it acts on answers 404 NotAuthorizedOrNotFound,
// exactly as a missing resource does; one whose body names a resource the policy does not allow
// (a subnet, an NSG, a reserved IP) answers 400 RelatedResourceNotAuthorizedOrNotFound, as a
// missing one does (related.go). A server without statements allows nothing. Only
// Options.AllowAll or AllowAll turns the checks off.
//
// Principals: every signed caller is a member of every group and dynamic group the statements
// name. ocitest does not model users, groups or instance principals, so a statement's subject
// only has to be well-formed; what is checked is the verb, the resource type and the place.
// Compartments have no hierarchy: "in tenancy" covers every compartment, "in compartment X"
// covers X only.

// ErrPolicySyntax is the cause of every error for a statement ocitest cannot parse or does not
// support; the message names the statement, the word and what is allowed there.
var ErrPolicySyntax = errors.New("invalid policy statement")

// verb is an IAM verb; each includes the ones below it.
type verb int

const (
	verbInspect verb = iota + 1
	verbRead
	verbUse
	verbManage
)

var verbNames = map[string]verb{"inspect": verbInspect, "read": verbRead, "use": verbUse, "manage": verbManage}

func (v verb) String() string {
	for name, x := range verbNames {
		if x == v {
			return name
		}
	}
	return fmt.Sprintf("verb(%d)", int(v))
}

// resourceFamilies are OCI's aggregate resource types and the individual types they cover, as
// listed in OCI's policy reference "Details for the Core Services" (Resource-Types): only the
// families of what ocitest emulates, with their full membership so a statement naming a member
// ocitest does not emulate (route-tables, say) still parses.
var resourceFamilies = map[string][]string{
	"virtual-network-family": {"vcns", "subnets", "route-tables", "network-security-groups", "security-lists",
		"dhcp-options", "private-ips", "public-ips", "ipv6s", "internet-gateways", "nat-gateways", "service-gateways",
		"local-peering-gateways", "remote-peering-connections", "drgs", "drg-object", "drg-attachments",
		"drg-route-tables", "drg-route-distributions", "cpes", "ipsec-connections", "cross-connects",
		"cross-connect-groups", "virtual-circuits", "vnics", "vtaps", "vnic-attachments", "vlans", "byoiprange",
		"publicippool", "ipam", "capture-filters"},
	"instance-family": {"app-catalog-listing", "console-histories", "instances", "instance-console-connection",
		"instance-images", "volume-attachments"},
}

// individualTypes are the individual resource types a statement may name besides the families'
// members: the ones of the other services ocitest emulates.
var individualTypes = []string{"load-balancers", "network-load-balancers"}

// allResources is OCI's name for every resource type.
const allResources = "all-resources"

// knownResourceType reports whether a statement may name t.
func knownResourceType(t string) bool {
	if t == allResources || slices.Contains(individualTypes, t) {
		return true
	}
	if _, ok := resourceFamilies[t]; ok {
		return true
	}
	for _, members := range resourceFamilies {
		if slices.Contains(members, t) {
			return true
		}
	}
	return false
}

// covers reports whether a statement's resource type grants access to the individual type t.
func covers(granted, t string) bool {
	return granted == allResources || granted == t || slices.Contains(resourceFamilies[granted], t)
}

// statement is one parsed Allow statement.
type statement struct {
	text         string
	verb         verb
	resourceType string
	// compartment is the compartment's OCID; "" means the whole tenancy.
	compartment string
}

// policy is a loaded set of statements; nil means IAM is off (AllowAll): everything is allowed.
type policy struct {
	statements []statement
}

// allows reports whether the policy grants v on the individual resource type t in the compartment.
func (p *policy) allows(v verb, t, compartment string) bool {
	if p == nil {
		return true
	}
	for _, st := range p.statements {
		if st.verb >= v && covers(st.resourceType, t) && (st.compartment == "" || st.compartment == compartment) {
			return true
		}
	}
	return false
}

// SetPolicy replaces the server's IAM policy with these OCI policy statements, e.g.
//
//	Allow dynamic-group ccm to manage load-balancers in compartment cluster
//	Allow group ops to read instance-family in tenancy
//
// Compartment names are those the tenancy seed declared (Tenancy.Compartments and
// Tenancy.CompartmentName), resolved to OCIDs now; "compartment id <ocid>" names one by OCID.
// A statement with a syntax
// error, an unknown verb, resource type or compartment, or a condition ("where ...") is refused
// with an error naming it, and nothing changes. With no statements nothing is allowed, as DenyAll;
// AllowAll turns the checks off.
func (s *Server) SetPolicy(statements ...string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	before := s.iam
	if err := s.setPolicyLocked(statements); err != nil {
		return err
	}
	s.lag.policyChangedLocked(before, s.iam, s.now())
	return nil
}

// DenyAll loads an empty policy: every signed call is refused with 404 NotAuthorizedOrNotFound,
// as for a principal no statement names.
func (s *Server) DenyAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.iam = &policy{}
	s.denials = nil
}

// AllowAll turns IAM off: every signed call is allowed until SetPolicy or DenyAll loads a policy
// again. Tests that call it say why: most prove a policy sufficient by running under it.
func (s *Server) AllowAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.iam = nil
	s.denials = nil
}

// Policy returns the statements of the loaded policy, and false when IAM is off (AllowAll).
func (s *Server) Policy() ([]string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.iam == nil {
		return nil, false
	}
	out := make([]string, 0, len(s.iam.statements))
	for _, st := range s.iam.statements {
		out = append(out, st.text)
	}
	return out, true
}

func (s *Server) setPolicyLocked(statements []string) error {
	s.denials = nil
	p := &policy{}
	var errs []error
	for i, text := range statements {
		st, err := parseStatement(text, s.comps.byName)
		if err != nil {
			errs = append(errs, fmt.Errorf("statement %d %q: %w", i+1, text, err))
			continue
		}
		p.statements = append(p.statements, st)
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	s.iam = p
	return nil
}

// parseStatement parses "Allow <subject> to <verb> <resource-type> in <location>", where subject
// is "group <name>", "dynamic-group <name>" (a name may be "<domain>/<name>"), "any-user" or
// "any-group", and location is "tenancy", "compartment <name>" or "compartment id <ocid>".
// Keywords are case-insensitive, as in OCI.
func parseStatement(text string, compartments map[string]string) (statement, error) {
	words := strings.Fields(text)
	st := statement{text: strings.Join(words, " ")}
	pos := 0
	bad := func(what string, args ...any) error {
		got := "end of statement"
		if pos < len(words) {
			got = fmt.Sprintf("%q", words[pos])
		}
		return fmt.Errorf("%w: word %d (%s): %s", ErrPolicySyntax, pos+1, got, fmt.Sprintf(what, args...))
	}
	next := func() string {
		if pos >= len(words) {
			return ""
		}
		return strings.ToLower(words[pos])
	}
	if next() != "allow" {
		return st, bad("a statement starts with Allow (Define, Endorse, Admit and Deny statements are not supported)")
	}
	pos++
	switch next() {
	case "group", "dynamic-group":
		pos++
		if !validPrincipalName(next()) {
			return st, bad("a group or dynamic group name of letters, digits, '-', '_' and '.', optionally '<domain>/<name>'")
		}
		pos++
	case "any-user", "any-group":
		pos++
	default:
		return st, bad("the subject must be group <name>, dynamic-group <name>, any-user or any-group")
	}
	if next() != "to" {
		return st, bad(`expected "to" after the subject (one subject per statement)`)
	}
	pos++
	v, ok := verbNames[next()]
	if !ok {
		return st, bad("the verb must be one of inspect, read, use, manage")
	}
	st.verb = v
	pos++
	if !knownResourceType(next()) {
		return st, bad("unknown resource type; ocitest knows %s, %s, virtual-network-family and instance-family and their members",
			allResources, strings.Join(individualTypes, ", "))
	}
	st.resourceType = next()
	pos++
	if next() != "in" {
		return st, bad(`expected "in tenancy" or "in compartment <name>"`)
	}
	pos++
	switch next() {
	case "tenancy":
		pos++
	case "compartment":
		pos++
		if next() == "id" {
			pos++
			if !strings.HasPrefix(next(), "ocid1.") {
				return st, bad("a compartment OCID (ocid1.compartment... or ocid1.tenancy...)")
			}
			st.compartment = words[pos]
			pos++
			break
		}
		if pos >= len(words) {
			return st, bad("a compartment name")
		}
		id, ok := compartments[words[pos]]
		if !ok {
			return st, bad("no compartment of that name; declared: %s (the tenancy seed declares them; paths a:b are not modelled)",
				strings.Join(slices.Sorted(maps.Keys(compartments)), ", "))
		}
		st.compartment = id
		pos++
	default:
		return st, bad(`expected "tenancy" or "compartment" after "in"`)
	}
	if next() == "where" {
		return st, bad("conditions (where ...) are not supported by ocitest; grant without a condition")
	}
	if pos < len(words) {
		return st, bad("end of statement expected")
	}
	return st, nil
}

func validPrincipalName(name string) bool {
	if name == "" {
		return false
	}
	domain, user, hasDomain := strings.Cut(name, "/")
	if hasDomain {
		return validPrincipalName(domain) && validPrincipalName(user)
	}
	name = strings.Trim(name, "'")
	if name == "" {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// adminPolicy is the admin API's policy document: statements, or allowAll to turn IAM off.
type adminPolicy struct {
	Statements []string `json:"statements"`
	AllowAll   bool     `json:"allowAll,omitempty"`
}

func (s *Server) registerAdminPolicy() {
	s.mux.HandleFunc("PUT /ocitest/policy", func(w http.ResponseWriter, r *http.Request) {
		var body adminPolicy
		if !readJSON(w, r, &body) {
			return
		}
		if body.AllowAll {
			if len(body.Statements) > 0 {
				writeError(w, r, http.StatusBadRequest, "InvalidParameter", "statements and allowAll exclude each other")
				return
			}
			s.AllowAll()
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if len(body.Statements) == 0 {
			writeError(w, r, http.StatusBadRequest, "InvalidParameter",
				`statements: at least one is required (DELETE /ocitest/policy allows nothing; {"allowAll": true} turns IAM off)`)
			return
		}
		if err := s.SetPolicy(body.Statements...); err != nil {
			writeError(w, r, http.StatusBadRequest, "InvalidParameter", err.Error())
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	s.mux.HandleFunc("GET /ocitest/policy", func(w http.ResponseWriter, r *http.Request) {
		statements, ok := s.Policy()
		writeJSON(w, r, http.StatusOK, adminPolicy{Statements: statements, AllowAll: !ok})
	})
	s.mux.HandleFunc("GET /ocitest/policy/denials", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, r, http.StatusOK, s.Denials())
	})
	s.mux.HandleFunc("DELETE /ocitest/policy", func(w http.ResponseWriter, r *http.Request) {
		s.DenyAll()
		w.WriteHeader(http.StatusNoContent)
	})
}
