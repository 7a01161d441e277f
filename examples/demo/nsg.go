// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"context"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
	"github.com/oci-ccm/oci-ccm/seclist"
)

const (
	dns = "default/dns"
	// nodesNSG is the network security group the nodes' VNICs are in (seeded; the user's).
	nodesNSG = "nodes-nsg"
)

// nsgService creates Service dns in security-rule mode NSG, shows its frontend NSG and the rules
// in the nodes' NSG, then deletes it and shows that nothing is left.
func (d *demo) nsgService(ctx context.Context) error {
	backend := d.seeded.NetworkSecurityGroups[nodesNSG]
	listsBefore, mark := ownedRules(d.srv, d.seeded), d.calls.mark()
	svc := &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "dns", Namespace: "default", Annotations: map[string]string{
			string(annotation.SecurityRuleManagementMode):   "NSG",
			string(annotation.BackendNetworkSecurityGroups): backend,
		}},
		Spec: v1.ServiceSpec{Type: v1.ServiceTypeLoadBalancer, Ports: []v1.ServicePort{
			{Name: "dns", Protocol: v1.ProtocolTCP, Port: 53, TargetPort: intstr.FromInt32(53)}}},
	}
	if _, err := d.kube.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		return err
	}
	d.n.say("Service dns asks for %s: NSG", annotation.SecurityRuleManagementMode)
	d.n.say("and names the nodes' NSG (%s) in %s.", nodesNSG, annotation.BackendNetworkSecurityGroups)
	if err := d.settled(ctx, "a load balancer address for Service dns", mark, []string{dns}, method("EnsureLoadBalancer"),
		func() bool { return len(d.ingressIPs(ctx, dns)) == 1 }); err != nil {
		return err
	}
	d.n.plans(d.rec.takePlans())
	found, _ := loadBalancer(d.srv, lbName(dns))
	if len(found.NetworkSecurityGroupIds) != 1 {
		return fmt.Errorf("load balancer %s is in %d NSGs, want its frontend NSG", lbName(dns), len(found.NetworkSecurityGroupIds))
	}
	front := found.NetworkSecurityGroupIds[0]
	g, _, _ := d.srv.NetworkSecurityGroup(front)
	d.n.say("The load balancer was created in its frontend NSG %s,", deref(g.DisplayName))
	d.n.say("made for it just before and tagged %s=%s.", model.TagService, g.FreeformTags[model.TagService])
	names := map[string]string{front: "frontend NSG", backend: nodesNSG}
	rows := [][]string{{"NSG", "DIRECTION", "PEER", "PORTS"}}
	for _, id := range []string{front, backend} {
		for _, r := range nsgOwnedRules(d.srv, id, names) {
			rows = append(rows, append([]string{names[id]}, r...))
		}
	}
	d.n.table(rows)
	d.out.NSGRules = len(rows) - 1
	d.showRuleChanges(ruleChanges(listsBefore, ownedRules(d.srv, d.seeded)), "mode NSG leaves them alone")

	mark = d.calls.mark()
	if err := d.kube.CoreV1().Services("default").Delete(ctx, "dns", metav1.DeleteOptions{}); err != nil {
		return err
	}
	if err := d.settled(ctx, "deletion of Service dns", mark, []string{dns}, method("EnsureLoadBalancerDeleted"), func() bool {
		_, err := d.kube.CoreV1().Services("default").Get(ctx, "dns", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}); err != nil {
		return err
	}
	d.rec.takePlans()
	_, _, frontLeft := d.srv.NetworkSecurityGroup(front)
	d.out.NSGLeft = len(nsgOwnedRules(d.srv, backend, names))
	if frontLeft {
		d.out.NSGLeft++
	}
	d.n.say("Deleted: the load balancer, then the rules in %s naming the frontend NSG, then the frontend NSG (%s).",
		nodesNSG, map[bool]string{true: "still there!", false: "gone"}[frontLeft])
	return nil
}

// nsgOwnedRules returns the rules of the group this cluster owns as table cells.
func nsgOwnedRules(srv *ocitest.Server, id string, names map[string]string) [][]string {
	_, rules, _ := srv.NetworkSecurityGroup(id)
	var out [][]string
	for _, r := range rules {
		if deref(r.Description) != seclist.Owner(clusterName) {
			continue
		}
		peer, prep := deref(r.Source), "from "
		if r.Direction == "EGRESS" {
			peer, prep = deref(r.Destination), "to "
		}
		if n, ok := names[peer]; ok {
			peer = n
		}
		out = append(out, []string{strings.ToLower(string(r.Direction)), prep + peer, ports(r.Protocol, r.TcpOptions, r.UdpOptions)})
	}
	return out
}
