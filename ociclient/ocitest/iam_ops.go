// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/oracle/oci-go-sdk/v65/core"
)

// What every emulated operation needs from the caller's policy: the verb on the individual
// resource type, checked in the compartment of each resource the call touches. A call needs all
// of its requirements. Sources, abbreviated in the table:
//
//	LB   OCI policy reference "Details for Load Balancing", verb table (inspect/read/use/manage)
//	NLB  OCI policy reference "Details for Network Load Balancer", verb table
//	Core OCI policy reference "Details for the Core Services", verb tables
//	Verbs OCI policy reference "Verbs": use excludes updates that act like a create (it names
//	      UpdateSecurityList); only manage allows them
//	assumed: not read in OCI's documentation; chosen by analogy, as the comment says
//
// A requirement whose resource does not exist (or whose compartmentId is missing) is skipped:
// the handler then answers 404 or 400 as it would without a policy, which is also what OCI
// answers, so "missing" and "not allowed" stay indistinguishable.
var opRules = map[string][]requirement{
	// Compute. Core, instances: ListInstances is inspect, GetInstance read. ListVnicAttachments is
	// partially covered by inspect instances and also needs read vnic-attachments (a member of
	// virtual-network-family, not of instance-family).
	"GetInstance":         {{verbRead, "instances", inPath("instanceId", kindInstance)}},
	"ListInstances":       {{verbInspect, "instances", inQueryCompartment}},
	"ListVnicAttachments": {{verbInspect, "instances", inQueryCompartment}, {verbRead, "vnic-attachments", inQueryCompartment}},

	// Networking. Core: vcns and subnets grant their READ permission with inspect (Get and List).
	// security-lists: Get and List assumed the same way; UpdateSecurityList is SECURITY_LIST_UPDATE,
	// which only manage grants (Verbs). vnics, private-ips, public-ips, network-security-groups:
	// List inspect, Get read (assumed). NSG rule changes: manage (assumed, like security lists).
	"GetVcn":                                  {{verbInspect, "vcns", inPath("vcnId", kindVCN)}},
	"ListVcns":                                {{verbInspect, "vcns", inQueryCompartment}},
	"GetSubnet":                               {{verbInspect, "subnets", inPath("subnetId", kindSubnet)}},
	"ListSubnets":                             {{verbInspect, "subnets", inQueryCompartment}},
	"GetSecurityList":                         {{verbInspect, "security-lists", inPath("securityListId", kindSecurityList)}},
	"ListSecurityLists":                       {{verbInspect, "security-lists", inQueryCompartment}},
	"UpdateSecurityList":                      {{verbManage, "security-lists", inPath("securityListId", kindSecurityList)}},
	"GetVnic":                                 {{verbRead, "vnics", inPath("vnicId", kindVNIC)}},
	"GetPrivateIp":                            {{verbRead, "private-ips", inPath("privateIpId", kindPrivateIP)}},
	"ListPrivateIps":                          {{verbInspect, "private-ips", inPrivateIPParent}},
	"GetPublicIp":                             {{verbRead, "public-ips", inPath("publicIpId", kindPublicIP)}},
	"GetPublicIpByIpAddress":                  {{verbRead, "public-ips", inBodyPublicIPAddress}},
	"ListPublicIps":                           {{verbInspect, "public-ips", inQueryCompartment}},
	"GetNetworkSecurityGroup":                 {{verbRead, "network-security-groups", inPath("networkSecurityGroupId", kindNSG)}},
	"ListNetworkSecurityGroups":               {{verbInspect, "network-security-groups", inQueryCompartment}},
	"ListNetworkSecurityGroupSecurityRules":   {{verbRead, "network-security-groups", inPath("networkSecurityGroupId", kindNSG)}},
	"AddNetworkSecurityGroupSecurityRules":    {{verbManage, "network-security-groups", inPath("networkSecurityGroupId", kindNSG)}},
	"RemoveNetworkSecurityGroupSecurityRules": {{verbManage, "network-security-groups", inPath("networkSecurityGroupId", kindNSG)}},
	"UpdateNetworkSecurityGroupSecurityRules": {{verbManage, "network-security-groups", inPath("networkSecurityGroupId", kindNSG)}},
	// Creating and deleting a group: manage network-security-groups, and use its VCN
	// (NETWORK_SECURITY_GROUP_CREATE with VCN_ATTACH, NETWORK_SECURITY_GROUP_DELETE with
	// VCN_DETACH; both VCN permissions come with use vcns; assumed from memory of Core's table).
	"CreateNetworkSecurityGroup": {{verbManage, "network-security-groups", inBodyCompartment}, {verbUse, "vcns", inBodyVCN}},
	"DeleteNetworkSecurityGroup": {{verbManage, "network-security-groups", inPath("networkSecurityGroupId", kindNSG)}, {verbUse, "vcns", inNSGVCN}},

	// Identity: any user of the tenancy may list its availability domains (assumed; OCI's
	// consoles and SDK examples call it with no policy).
	"ListAvailabilityDomains": {},

	// Load Balancing. LB: inspect ListLoadBalancers/ListShapes/ListPolicies; read Get*, List* of
	// children and work requests; use UpdateLoadBalancer and every create/update/delete of
	// backend sets, backends, listeners, certificates; manage CreateLoadBalancer and
	// DeleteLoadBalancer. Its per-operation table lists only LOAD_BALANCER_* permissions, with the
	// tip that creating one needs permission to use the networking resources it goes in: modelled
	// as use subnets on each subnet and use vnics in the load balancer's compartment, plus use
	// network-security-groups for NSGs and use public-ips for a reserved IP (the exact types are
	// assumed). Deleting needs manage load-balancers only, as the table says.
	// UpdateLoadBalancerShape: use (LOAD_BALANCER_UPDATE, assumed: newer than the table).
	// UpdateNetworkSecurityGroups: use, and use network-security-groups on the NSGs (assumed).
	"ListLoadBalancers":       {{verbInspect, "load-balancers", inQueryCompartment}},
	"ListShapes":              {{verbInspect, "load-balancers", inQueryCompartment}},
	"ListPolicies":            {{verbInspect, "load-balancers", inQueryCompartment}},
	"GetLoadBalancer":         lbRead,
	"GetWorkRequest":          {{verbRead, "load-balancers", inWorkRequest(APILoadBalancer)}},
	"ListWorkRequests":        lbRead,
	"ListBackendSets":         lbRead,
	"GetBackendSet":           lbRead,
	"ListBackends":            lbRead,
	"GetBackend":              lbRead,
	"GetBackendHealth":        lbRead,
	"GetBackendSetHealth":     lbRead,
	"GetLoadBalancerHealth":   lbRead,
	"ListCertificates":        lbRead,
	"UpdateLoadBalancer":      lbUse,
	"UpdateLoadBalancerShape": lbUse,
	"UpdateNetworkSecurityGroups": {{verbUse, "load-balancers", inPath("loadBalancerId", kindLB)},
		{verbUse, "network-security-groups", inBodyNSGs}},
	"CreateBackendSet":  lbUse,
	"UpdateBackendSet":  lbUse,
	"DeleteBackendSet":  lbUse,
	"CreateBackend":     lbUse,
	"UpdateBackend":     lbUse,
	"DeleteBackend":     lbUse,
	"CreateListener":    lbUse,
	"UpdateListener":    lbUse,
	"DeleteListener":    lbUse,
	"CreateCertificate": lbUse,
	"DeleteCertificate": lbUse,
	"ListRuleSets":      lbRead,
	"GetRuleSet":        lbRead,
	"CreateRuleSet":     lbUse,
	"UpdateRuleSet":     lbUse,
	"DeleteRuleSet":     lbUse,
	"CreateLoadBalancer": {{verbManage, "load-balancers", inBodyCompartment},
		{verbUse, "subnets", inBodySubnets}, {verbUse, "vnics", inBodyCompartment},
		{verbUse, "network-security-groups", inBodyNSGs}, {verbUse, "public-ips", inBodyReservedIPs}},
	"DeleteLoadBalancer": {{verbManage, "load-balancers", inPath("loadBalancerId", kindLB)}},

	// Network Load Balancer. NLB: inspect ListNetworkLoadBalancers; read Get*, List* of children,
	// work requests; use UpdateNetworkLoadBalancer and child changes; manage create and delete,
	// a create with the same networking needs as a load balancer's (assumed as above).
	NLB("ListNetworkLoadBalancers"):     {{verbInspect, "network-load-balancers", inQueryCompartment}},
	NLB("GetNetworkLoadBalancer"):       nlbRead,
	NLB("GetWorkRequest"):               {{verbRead, "network-load-balancers", inWorkRequest(APINetworkLoadBalancer)}},
	NLB("ListWorkRequestErrors"):        {{verbRead, "network-load-balancers", inWorkRequest(APINetworkLoadBalancer)}},
	NLB("ListWorkRequests"):             {{verbRead, "network-load-balancers", inQueryCompartment}},
	NLB("ListBackendSets"):              nlbRead,
	NLB("GetBackendSet"):                nlbRead,
	NLB("ListBackends"):                 nlbRead,
	NLB("GetBackend"):                   nlbRead,
	NLB("GetBackendHealth"):             nlbRead,
	NLB("GetBackendSetHealth"):          nlbRead,
	NLB("GetNetworkLoadBalancerHealth"): nlbRead,
	NLB("ListListeners"):                nlbRead,
	NLB("GetListener"):                  nlbRead,
	NLB("UpdateNetworkLoadBalancer"):    nlbUse,
	NLB("UpdateNetworkSecurityGroups"):  {{verbUse, "network-load-balancers", inPath("networkLoadBalancerId", kindNLB)}, {verbUse, "network-security-groups", inBodyNSGs}},
	NLB("CreateBackendSet"):             nlbUse,
	NLB("UpdateBackendSet"):             nlbUse,
	NLB("DeleteBackendSet"):             nlbUse,
	NLB("CreateBackend"):                nlbUse,
	NLB("UpdateBackend"):                nlbUse,
	NLB("DeleteBackend"):                nlbUse,
	NLB("CreateListener"):               nlbUse,
	NLB("UpdateListener"):               nlbUse,
	NLB("DeleteListener"):               nlbUse,
	NLB("CreateNetworkLoadBalancer"): {{verbManage, "network-load-balancers", inBodyCompartment},
		{verbUse, "subnets", inBodySubnets}, {verbUse, "vnics", inBodyCompartment},
		{verbUse, "network-security-groups", inBodyNSGs}, {verbUse, "public-ips", inBodyReservedIPs}},
	NLB("DeleteNetworkLoadBalancer"): {{verbManage, "network-load-balancers", inPath("networkLoadBalancerId", kindNLB)}},

	// Instance metadata is served on the instance itself, outside IAM.
	"GetInstanceMetadata":       {},
	"ListInstanceMetadataVnics": {},
}

// The requirement of most calls on one (network) load balancer or a part of it: a verb on the
// load balancer the path names.
var (
	lbRead  = []requirement{{verbRead, "load-balancers", inPath("loadBalancerId", kindLB)}}
	lbUse   = []requirement{{verbUse, "load-balancers", inPath("loadBalancerId", kindLB)}}
	nlbRead = []requirement{{verbRead, "network-load-balancers", inPath("networkLoadBalancerId", kindNLB)}}
	nlbUse  = []requirement{{verbUse, "network-load-balancers", inPath("networkLoadBalancerId", kindNLB)}}
)

// requirement is one verb on one individual resource type, in the compartments where finds
// the resources the call touches.
type requirement struct {
	verb  verb
	rtype string
	where locator
}

// target is a resource (or compartment, for lists and creates) a call touches.
type target struct {
	compartment string
	what, id    string // for the 404 message, as the handler would word it
	// related marks a resource the request's body names (a subnet, NSG, reserved IP, VCN), not
	// the one the call acts on: refused, it answers 400 RelatedResourceNotAuthorizedOrNotFound.
	related bool
}

// locator finds the targets of a call, under Server.mu; none means the requirement does not
// apply (no such resource, or nothing of that kind in the request).
type locator func(c *authzCall) []target

// authzCall is one call being authorized.
type authzCall struct {
	s    *Server
	r    *http.Request
	body *authzBody // decoded lazily
}

// authzBody holds the request-body fields any requirement looks at.
type authzBody struct {
	CompartmentID string   `json:"compartmentId"`
	SubnetIDs     []string `json:"subnetIds"`
	SubnetID      string   `json:"subnetId"`
	VCNID         string   `json:"vcnId"`
	NSGIDs        []string `json:"networkSecurityGroupIds"`
	ReservedIPs   []struct {
		ID string `json:"id"`
	} `json:"reservedIps"`
	IPAddress string `json:"ipAddress"`
}

// decodedBody reads the body once, puts it back for the handler, and decodes what it can; a
// malformed body yields no fields, and the handler answers 400.
func (c *authzCall) decodedBody() *authzBody {
	if c.body != nil {
		return c.body
	}
	c.body = &authzBody{}
	if c.r.Body == nil {
		return c.body
	}
	raw, err := io.ReadAll(io.LimitReader(c.r.Body, maxSignedBody))
	c.r.Body = io.NopCloser(bytes.NewReader(raw))
	if err == nil {
		_ = json.Unmarshal(raw, c.body)
	}
	return c.body
}

// resourceKind finds a resource's compartment in the stores, under Server.mu.
type resourceKind struct {
	what        string
	compartment func(s *Server, id string) (string, bool)
}

var (
	kindInstance = resourceKind{"instance", func(s *Server, id string) (string, bool) {
		v, ok := s.compute.instances.get(id)
		return deref(v.CompartmentId), ok
	}}
	kindVCN = resourceKind{"vcn", func(s *Server, id string) (string, bool) {
		v, ok := s.vcn.vcns.get(id)
		return deref(v.CompartmentId), ok
	}}
	kindSubnet = resourceKind{"subnet", func(s *Server, id string) (string, bool) {
		v, ok := s.vcn.subnets.get(id)
		return deref(v.CompartmentId), ok
	}}
	kindSecurityList = resourceKind{"security list", func(s *Server, id string) (string, bool) {
		v, ok := s.vcn.secLists.get(id)
		return deref(v.list.CompartmentId), ok
	}}
	kindNSG = resourceKind{"network security group", func(s *Server, id string) (string, bool) {
		v, ok := s.vcn.nsgs.get(id)
		return deref(v.group.CompartmentId), ok
	}}
	kindVNIC = resourceKind{"vnic", func(s *Server, id string) (string, bool) {
		v, ok := s.vcn.vnics.get(id)
		return deref(v.CompartmentId), ok
	}}
	kindPrivateIP = resourceKind{"private IP", func(s *Server, id string) (string, bool) {
		v, ok := s.vcn.privateIPs.get(id)
		return deref(v.CompartmentId), ok
	}}
	kindPublicIP = resourceKind{"public IP", func(s *Server, id string) (string, bool) {
		v, ok := s.vcn.publicIPs.get(id)
		return deref(v.CompartmentId), ok
	}}
	kindLB = resourceKind{"load balancer", func(s *Server, id string) (string, bool) {
		e, ok := s.lb.lbs[id]
		if !ok {
			return "", false
		}
		return deref(e.lb.CompartmentId), true
	}}
	kindNLB = resourceKind{"network load balancer", func(s *Server, id string) (string, bool) {
		e, ok := s.nlb.nlbs[id]
		if !ok {
			return "", false
		}
		return deref(e.nlb.CompartmentId), true
	}}
)

// inPath locates the resource named by a path parameter.
func inPath(param string, k resourceKind) locator {
	return func(c *authzCall) []target {
		return c.resource(k, c.r.PathValue(param))
	}
}

func (c *authzCall) resource(k resourceKind, id string) []target {
	comp, ok := k.compartment(c.s, id)
	if !ok || id == "" {
		return nil
	}
	return []target{{compartment: comp, what: k.what, id: id}}
}

// inQueryCompartment locates a list's compartment, the compartmentId query parameter.
func inQueryCompartment(c *authzCall) []target {
	return compartmentTarget(c.r.URL.Query().Get("compartmentId"))
}

// inBodyCompartment locates a create's compartment, the body's compartmentId.
func inBodyCompartment(c *authzCall) []target {
	return compartmentTarget(c.decodedBody().CompartmentID)
}

// inBodyVCN locates the VCN a create names (vcnId), in its compartment.
func inBodyVCN(c *authzCall) []target {
	id := c.decodedBody().VCNID
	comp, ok := kindVCN.compartment(c.s, id)
	if id == "" || !ok {
		return nil
	}
	return []target{{compartment: comp, what: kindVCN.what, id: id, related: true}}
}

// inNSGVCN locates the VCN of the group in the path, in its compartment.
func inNSGVCN(c *authzCall) []target {
	g, ok := c.s.vcn.nsgs.get(c.r.PathValue("networkSecurityGroupId"))
	if !ok {
		return nil
	}
	id := deref(g.group.VcnId)
	comp, ok := kindVCN.compartment(c.s, id)
	if !ok {
		return nil
	}
	return []target{{compartment: comp, what: kindVCN.what, id: id}}
}

func compartmentTarget(id string) []target {
	if id == "" {
		return nil
	}
	return []target{{compartment: id, what: "compartment", id: id}}
}

// inBodySubnets locates the subnets a create places its VNICs in (subnetIds, or an NLB's subnetId).
func inBodySubnets(c *authzCall) []target {
	b := c.decodedBody()
	ids := append([]string{b.SubnetID}, b.SubnetIDs...)
	return related(c.resources(kindSubnet, ids))
}

// inBodyNSGs locates the network security groups a body names.
func inBodyNSGs(c *authzCall) []target {
	return related(c.resources(kindNSG, c.decodedBody().NSGIDs))
}

// related marks targets as named by the request's body.
func related(ts []target) []target {
	for i := range ts {
		ts[i].related = true
	}
	return ts
}

// inBodyReservedIPs locates the reserved public IPs a create asks for.
func inBodyReservedIPs(c *authzCall) []target {
	var ids []string
	for _, ip := range c.decodedBody().ReservedIPs {
		ids = append(ids, ip.ID)
	}
	return related(c.resources(kindPublicIP, ids))
}

// inBodyPublicIPAddress locates the public IP GetPublicIpByIpAddress asks for.
func inBodyPublicIPAddress(c *authzCall) []target {
	addr := c.decodedBody().IPAddress
	found := c.s.vcn.publicIPs.filter(func(p core.PublicIp) bool { return deref(p.IpAddress) == addr })
	if addr == "" || len(found) == 0 {
		return nil
	}
	return []target{{compartment: deref(found[0].CompartmentId), what: "public IP", id: addr}}
}

// inPrivateIPParent locates the subnet or VNIC whose private IPs a list asks for; the private
// IPs are in that resource's compartment.
func inPrivateIPParent(c *authzCall) []target {
	q := c.r.URL.Query()
	if id := q.Get("vnicId"); id != "" {
		return c.resource(kindVNIC, id)
	}
	return c.resource(kindSubnet, q.Get("subnetId"))
}

// inWorkRequest locates a work request; it lives in its load balancer's compartment.
func inWorkRequest(api string) locator {
	return func(c *authzCall) []target {
		id := c.r.PathValue("workRequestId")
		wr, ok := c.s.lb.work.byID[id]
		if !ok || wr.api != api {
			return nil
		}
		return []target{{compartment: wr.compartmentID, what: "work request", id: id}}
	}
}

func (c *authzCall) resources(k resourceKind, ids []string) []target {
	var out []target
	for _, id := range ids {
		out = append(out, c.resource(k, id)...)
	}
	return out
}

// authorize wraps an operation's handler with the policy check: unless IAM is off, a call the
// policy does not allow answers 404 NotAuthorizedOrNotFound, worded as the handler words a
// missing resource, or, when what is not allowed is a resource the body names, 400
// RelatedResourceNotAuthorizedOrNotFound, as for a missing one (related.go). It runs after the
// control layer, so a refused call is still counted.
func (s *Server) authorize(op string, h http.HandlerFunc) http.HandlerFunc {
	reqs, known := opRules[op]
	return func(w http.ResponseWriter, r *http.Request) {
		answer := underLock(s, func() func() {
			p := s.iam
			if p == nil {
				return func() { h(w, r) }
			}
			if !known {
				return func() {
					writeError(w, r, http.StatusNotFound, "NotAuthorizedOrNotFound",
						fmt.Sprintf("ocitest has no IAM rule for %s, so no policy allows it", op))
				}
			}
			denied, ok := s.deniedLocked(p, reqs, r)
			switch {
			case ok:
				return func() { h(w, r) }
			case denied.related:
				s.deny(op, denied)
				return func() { writeLBError(w, r, relatedNotFound(denied.what, denied.id)) }
			default:
				s.deny(op, denied)
				return func() { notFound(w, r, denied.what, denied.id) }
			}
		})
		answer()
	}
}

// deny records that the policy refused op (Server.Denials). Caller holds s.mu.
func (s *Server) deny(op string, denied refusal) {
	s.denials = append(s.denials, Denial{Operation: op, Verb: denied.verb.String(), ResourceType: denied.rtype,
		Compartment: denied.compartment, Resource: denied.id, Propagating: denied.propagating})
}

// refusal is the first requirement a call failed, on which target.
type refusal struct {
	target
	verb  verb
	rtype string
	// propagating: the policy allows it, but the change that allowed it has not taken effect.
	propagating bool
}

// deniedLocked checks every requirement and returns the first target the policy does not allow.
func (s *Server) deniedLocked(p *policy, reqs []requirement, r *http.Request) (refusal, bool) {
	c := &authzCall{s: s, r: r}
	for _, req := range reqs {
		for _, t := range req.where(c) {
			if !p.allows(req.verb, req.rtype, t.compartment) {
				return refusal{target: t, verb: req.verb, rtype: req.rtype}, false
			}
			if s.lag.propagatingLocked(s.now(), req.verb, req.rtype, t.compartment) {
				return refusal{target: t, verb: req.verb, rtype: req.rtype, propagating: true}, false
			}
		}
	}
	return refusal{}, true
}

// Denial is a call the policy refused, for tests and diagnostics: the operation and the first
// requirement it did not meet.
type Denial struct {
	Operation    string `json:"operation"`
	Verb         string `json:"verb"`
	ResourceType string `json:"resourceType"`
	Compartment  string `json:"compartment"`
	// Resource is the OCID (or, for lists and creates, the compartment) the call touched.
	Resource string `json:"resource"`
	// Propagating is set when the policy allows the call but was set less than
	// Options.PolicyDelay ago, and the policy before it did not (see consistency.go).
	Propagating bool `json:"propagating,omitempty"`
}

// Denials returns the calls refused since the policy was last set, oldest first.
func (s *Server) Denials() []Denial {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Denial(nil), s.denials...)
}
