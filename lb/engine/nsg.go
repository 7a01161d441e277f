// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/oracle/oci-go-sdk/v65/core"
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/internal/lookup"
	"github.com/oci-ccm/oci-ccm/lb/internal/sdkval"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient"
)

// nsgReader reads a network security group: what checkNamedNSGs needs to prove a group a
// Service names exists, is readable and is in the load balancer's VCN before a plan attaches it.
// Options.PublicIPs provides it when it can (an *ociclient.VirtualNetworkClient does), as it
// provides subnetReader, so lb's public surface does not grow for it.
type nsgReader interface {
	GetNetworkSecurityGroup(ctx context.Context, id string) (core.NetworkSecurityGroup, error)
}

// nsgPolicy is the IAM statement that lets the CCM attach a network security group, in the
// wording of the policy the README documents (a missing "use network-security-groups" makes OCI
// refuse a create or UpdateNetworkSecurityGroups naming the group with 400
// RelatedResourceNotAuthorizedOrNotFound, as for a group that does not exist).
func nsgPolicy(compartment string) string {
	if compartment == "" {
		compartment = "<the NSG's compartment>"
	}
	return fmt.Sprintf("Allow dynamic-group <dg> to use network-security-groups in compartment %s", compartment)
}

// checkNamedNSGs reads each NSG of named (the Service's annotation) that the plan attaches and
// observed (nil for a create) is not in yet, before anything is applied: OCI refuses a create or
// UpdateNetworkSecurityGroups naming a group that does not exist or that the policy hides with
// 400 RelatedResourceNotAuthorizedOrNotFound, after the plan's other changes ran. A group that
// cannot be found, is being deleted or is in another VCN than the load balancer's subnet is a
// *ValidationError naming the annotation, the OCID and the IAM statement; nothing is changed.
//
// Cost: one GetNetworkSecurityGroup per newly attached group (and the subnet read for its VCN,
// which ociclient caches); none for a Service whose NSGs are all attached already, or that
// names none. It returns the compartment of each group read, for errors OCI gives later.
func (r *Reconciler) checkNamedNSGs(ctx context.Context, svc *v1.Service, named []string, observed *model.Spec, target *model.Spec) (map[string]string, error) {
	if r.nsgs == nil || len(named) == 0 {
		return nil, nil
	}
	var fresh []string
	for _, id := range named {
		if observed == nil || !slices.Contains(observed.NetworkSecurityGroups, id) {
			fresh = append(fresh, id)
		}
	}
	if len(fresh) == 0 {
		return nil, nil
	}
	a := lookup.NSGAnnotation(target.Kind)
	vcn := ""
	if r.subnets != nil && len(target.Subnets) > 0 {
		if s, err := r.subnets.GetSubnet(ctx, target.Subnets[0]); err == nil {
			vcn = sdkval.Deref(s.VcnId)
		} else {
			klog.FromContext(ctx).V(2).Info("Cannot read the load balancer's subnet; not checking that its NSGs are in its VCN",
				"service", klog.KObj(svc), "subnet", target.Subnets[0], "err", err)
		}
	}
	compartments := map[string]string{}
	var problems []*lb.Problem
	for _, id := range fresh {
		g, err := r.nsgs.GetNetworkSecurityGroup(ctx, id)
		switch {
		case ociclient.IsNotFound(err):
			problems = append(problems, problemf(a, id, "an NSG the CCM can read and use; OCI answers 404 NotAuthorizedOrNotFound for this one: it does not exist, or the policy lacks %q", nsgPolicy("")))
			continue
		case err != nil:
			return nil, fmt.Errorf("read network security group %s named by %s of %s/%s: %w", id, a, svc.Namespace, svc.Name, err)
		}
		compartments[id] = sdkval.Deref(g.CompartmentId)
		switch {
		case g.LifecycleState == core.NetworkSecurityGroupLifecycleStateTerminating || g.LifecycleState == core.NetworkSecurityGroupLifecycleStateTerminated:
			problems = append(problems, problemf(a, id, "an NSG that exists; this one is %s", g.LifecycleState))
		case vcn != "" && sdkval.Deref(g.VcnId) != vcn:
			problems = append(problems, problemf(a, id, "an NSG in the load balancer's VCN %s; this one is in VCN %s", vcn, sdkval.Deref(g.VcnId)))
		}
	}
	if len(problems) > 0 {
		return nil, &lb.ValidationError{Service: svc.Namespace + "/" + svc.Name, Problems: problems}
	}
	return compartments, nil
}

// explainNSGRefusal turns OCI's 400 RelatedResourceNotAuthorizedOrNotFound for a plan that
// attached NSGs checkNamedNSGs could read into an error naming the annotation, the groups and the
// statement for their compartments: the groups exist, so the likely cause is a policy that lets
// the CCM read them but not use them, which no read can detect beforehand. Other errors are
// returned as they are. The result unwraps to OCI's error.
func explainNSGRefusal(svc *v1.Service, p *planned, err error) error {
	if len(p.nsgCompartments) == 0 || !ociclient.IsRelatedNotFound(err) {
		return err
	}
	ids := slices.Sorted(maps.Keys(p.nsgCompartments))
	compartments := slices.Compact(slices.Sorted(maps.Values(p.nsgCompartments)))
	statements := make([]string, len(compartments))
	for i, c := range compartments {
		statements[i] = strconv.Quote(nsgPolicy(c))
	}
	return fmt.Errorf("%s of %s/%s: OCI refused to attach %s (400 RelatedResourceNotAuthorizedOrNotFound), which exist and the CCM can read: "+
		"the policy most likely lacks %s: %w",
		lookup.NSGAnnotation(p.desired.Kind), svc.Namespace, svc.Name, strings.Join(ids, ", "), strings.Join(statements, " and "), err)
}
