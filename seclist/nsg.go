// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package seclist

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"

	"github.com/oci-ccm/oci-ccm/internal/ctxtime"
	"github.com/oci-ccm/oci-ccm/ociclient"
)

// This file is the network security group target of the engine: reading a group's rules into a
// Current, and the writer's sync for a group. Desired and Diff are shared with security lists;
// only the edge differs. A group has no ETag and no whole-list update: its rules are added and
// removed by ID, so a sync removes the rules the Update drops by their IDs and adds the new ones
// (at most ociclient.MaxNetworkSecurityGroupRulesPerAdd per call).

// nsgRuleIDs are the IDs of a group's rules in the order observeNSG read them, per direction:
// ingress[i] is the ID of Current.Ingress[i].
type nsgRuleIDs struct {
	ingress, egress []string
}

// observeNSG reads a group's rules. Only rules whose description equals owner are owned. Rules
// with no description are nobody's: a group's rules are never adopted (the upstream CCM
// described the NSG rules it wrote).
func observeNSG(id string, rules []core.SecurityRule, owner string) (Current, nsgRuleIDs) {
	cur := Current{ListID: id}
	var ids nsgRuleIDs
	for _, r := range rules {
		var o Observed
		if deref(r.Description) == owner {
			switch r.Direction {
			case core.SecurityRuleDirectionIngress:
				cidr, peer, cidrType := nsgEndpoint(deref(r.Source), string(r.SourceType))
				o = observed(Ingress, cidr, peer, cidrType, deref(r.Protocol), r.IsStateless, r.TcpOptions, r.UdpOptions, r.IcmpOptions != nil)
			case core.SecurityRuleDirectionEgress:
				cidr, peer, cidrType := nsgEndpoint(deref(r.Destination), string(r.DestinationType))
				o = observed(Egress, cidr, peer, cidrType, deref(r.Protocol), r.IsStateless, r.TcpOptions, r.UdpOptions, r.IcmpOptions != nil)
			}
		}
		if r.Direction == core.SecurityRuleDirectionEgress {
			cur.Egress = append(cur.Egress, o)
			ids.egress = append(ids.egress, deref(r.Id))
		} else {
			cur.Ingress = append(cur.Ingress, o)
			ids.ingress = append(ids.ingress, deref(r.Id))
		}
	}
	return cur, ids
}

// nsgEndpoint splits an NSG rule's source or destination by its type: a CIDR block (the
// default), another group (peer), or anything else (a service CIDR label: cidrType false, so
// the rule is not oci-ccm's form).
func nsgEndpoint(v, typ string) (cidr, peer string, cidrType bool) {
	switch typ {
	case "", string(core.SecurityRuleSourceTypeCidrBlock):
		return v, "", true
	case string(core.SecurityRuleSourceTypeNetworkSecurityGroup):
		return "", v, false
	}
	return v, "", false
}

// toNSGRule is the group rule oci-ccm writes for r.
func toNSGRule(r Rule, owner string) core.AddSecurityRuleDetails {
	tcp, udp := portOptions(r)
	d := core.AddSecurityRuleDetails{
		Protocol:    common.String(r.Protocol),
		IsStateless: common.Bool(false),
		TcpOptions:  tcp,
		UdpOptions:  udp,
		Description: common.String(owner),
	}
	if r.Direction == Egress {
		d.Direction = core.AddSecurityRuleDetailsDirectionEgress
		d.Destination, d.DestinationType = common.String(r.CIDR), core.AddSecurityRuleDetailsDestinationTypeCidrBlock
		if r.PeerNSG != "" {
			d.Destination, d.DestinationType = common.String(r.PeerNSG), core.AddSecurityRuleDetailsDestinationTypeNetworkSecurityGroup
		}
		return d
	}
	d.Direction = core.AddSecurityRuleDetailsDirectionIngress
	d.Source, d.SourceType = common.String(r.CIDR), core.AddSecurityRuleDetailsSourceTypeCidrBlock
	if r.PeerNSG != "" {
		d.Source, d.SourceType = common.String(r.PeerNSG), core.AddSecurityRuleDetailsSourceTypeNetworkSecurityGroup
	}
	return d
}

// knownRules is a group's rules as this process last read or wrote them.
type knownRules struct {
	rules []core.SecurityRule
	at    time.Time
}

// syncNSG makes the group hold exactly the rules the current claims need, keeping every rule
// this cluster does not own: read its rules (or trust what this process last read or wrote),
// diff, remove and add by ID. A group has no ETag, so a change made elsewhere since this process
// last saw it shows as a failed write (a rule ID that is gone) or not at all (a rule added by
// someone else stays theirs; a rule of ours removed by hand comes back after
// Options.MaxListAge, or at once after ForgetLists). A failed write from a view held in memory
// is retried at once from a fresh read; one from a fresh read is retried once after a delay.
func (w *writer) syncNSG(ctx context.Context) error {
	logger := w.m.loggerFor(ctx).WithValues("networkSecurityGroup", w.id)
	for attempt := 1; ; attempt++ {
		claims, prune, desired, err := w.prepare(ctx, logger)
		if err != nil {
			return fmt.Errorf("network security group %s: %w", w.id, err)
		}
		rules, cached, err := w.currentNSG(ctx)
		if err != nil {
			return fmt.Errorf("reading network security group %s: %w", w.id, err)
		}
		cur, ids := observeNSG(w.id, rules, w.m.owner)
		u, err := Diff(cur, desired[w.id], prune, w.m.opts.NSGLimits)
		if ce := (*CapacityError)(nil); errors.As(err, &ce) && w.nodePortsWouldFit(claims, ce.Direction) {
			ce.Option = OptionOpenNodePortRange
		}
		if err != nil {
			return err
		}
		if u.Empty() {
			logger.V(4).Info("Network security group is up to date", "ownedRules", len(u.After), "claims", len(claims), "fromMemory", cached)
			return nil
		}
		logger.Info("Updating network security group", "add", ruleStrings(u.Add), "remove", ruleStrings(u.Remove),
			"ownedBefore", len(u.Before), "ownedAfter", len(u.After), "pruning", prune, "attempt", attempt)
		err = w.writeNSG(ctx, rules, ids, u)
		if err == nil {
			return nil
		}
		w.forget() // the write may have applied in part
		switch {
		case ociclient.IsNotFound(err) || attempt >= w.m.opts.Attempts:
			return fmt.Errorf("updating network security group %s: %w", w.id, err)
		case cached:
			logger.V(2).Info("Network security group write failed from the view in memory; reading it again", "attempt", attempt, "err", err)
			continue
		case attempt > 1:
			return fmt.Errorf("updating network security group %s: %w", w.id, err)
		}
		delay := w.m.backoff(attempt)
		logger.V(2).Info("Network security group write failed; reading it again", "attempt", attempt, "delay", delay, "err", err)
		if err := ctxtime.Sleep(ctx, delay); err != nil {
			return fmt.Errorf("updating network security group %s: %w", w.id, err)
		}
	}
}

// writeNSG applies u to the group whose rules were rules: removes the owned rules u drops by
// ID and adds u.Add. It adds first, so that a rule being replaced (a port range growing) is
// never missing, unless the group cannot hold both at once; then it removes first. What it
// wrote is remembered as the group's rules.
func (w *writer) writeNSG(ctx context.Context, rules []core.SecurityRule, ids nsgRuleIDs, u Update) error {
	var remove []string
	for i, keep := range u.KeepIngress {
		if !keep {
			remove = append(remove, ids.ingress[i])
		}
	}
	for i, keep := range u.KeepEgress {
		if !keep {
			remove = append(remove, ids.egress[i])
		}
	}
	known := slices.Clone(rules)
	removeAll := func() error {
		if len(remove) == 0 {
			return nil
		}
		if err := w.m.vn.RemoveNetworkSecurityGroupSecurityRules(ctx, w.id, remove); err != nil {
			return err
		}
		known = slices.DeleteFunc(known, func(r core.SecurityRule) bool { return slices.Contains(remove, deref(r.Id)) })
		return nil
	}
	addAll := func() error {
		for chunk := range slices.Chunk(u.Add, ociclient.MaxNetworkSecurityGroupRulesPerAdd) {
			details := make([]core.AddSecurityRuleDetails, len(chunk))
			for i, r := range chunk {
				details[i] = toNSGRule(r, w.m.owner)
			}
			added, err := w.m.vn.AddNetworkSecurityGroupSecurityRules(ctx, w.id, details)
			if err != nil {
				return err
			}
			known = append(known, added...)
		}
		return nil
	}
	first, second := addAll, removeAll
	if limit := w.m.opts.NSGLimits.Total; limit > 0 && len(rules)+len(u.Add) > limit {
		first, second = removeAll, addAll
	}
	if err := first(); err != nil {
		return err
	}
	if err := second(); err != nil {
		return err
	}
	w.rememberNSG(known)
	return nil
}

// currentNSG returns the group's rules: from memory when this process saw them last less than
// Options.MaxListAge ago (cached is then true), otherwise read from OCI and remembered.
func (w *writer) currentNSG(ctx context.Context) (rules []core.SecurityRule, cached bool, err error) {
	w.mu.Lock()
	k := w.knownNSG
	w.mu.Unlock()
	if k != nil && w.m.clock().Sub(k.at) < w.m.opts.MaxListAge {
		return k.rules, true, nil
	}
	rules, err = w.m.vn.ListNetworkSecurityGroupSecurityRules(ctx, w.id)
	if err != nil {
		w.forget()
		return nil, false, err
	}
	w.rememberNSG(rules)
	return rules, false, nil
}

// rememberNSG records the group's rules as read or written.
func (w *writer) rememberNSG(rules []core.SecurityRule) {
	at := w.m.clock()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m.opts.MaxListAge < 0 {
		w.knownNSG = nil
		return
	}
	w.knownNSG = &knownRules{rules: rules, at: at}
}
