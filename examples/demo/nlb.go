// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// nlbFile is the example Service of the network load balancer step.
const nlbFile = "nlb.yaml"

// nlbService applies examples/services/nlb.yaml (a network load balancer: DNS on UDP and TCP
// port 53, a TCP health port, client addresses preserved), shows the network load balancer OCI
// holds, then deletes the Service and shows that it is gone.
func (d *demo) nlbService(ctx context.Context) error {
	svc, err := readService(d.servicesDir, nlbFile)
	if err != nil {
		return err
	}
	key := svc.Namespace + "/" + svc.Name
	rulesBefore, mark := ownedRules(d.srv, d.seeded), d.calls.mark()
	if _, err := d.kube.CoreV1().Services(svc.Namespace).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		return err
	}
	d.n.say("applied %s/%s: Service %s, %s: %s, externalTrafficPolicy %s.", servicesDir, nlbFile, key,
		annotation.LoadBalancerType, svc.Annotations[string(annotation.LoadBalancerType)], svc.Spec.ExternalTrafficPolicy)
	if err := d.settled(ctx, "a network load balancer address for Service "+key, mark, []string{key}, method("EnsureLoadBalancer"),
		func() bool { return len(d.ingressIPs(ctx, key)) == 1 }); err != nil {
		return err
	}
	d.n.plans(d.rec.takePlans())
	n, ok := networkLoadBalancer(d.srv, lbName(key))
	if !ok {
		return fmt.Errorf("no network load balancer %s in OCI", lbName(key))
	}
	rows := [][]string{{"LISTENER", "PROTOCOL", "PORT", "BACKENDS", "BY", "CLIENT ADDRESS KEPT"}}
	d.out.NLBListeners = map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(n.Listeners)) {
		l := n.Listeners[name]
		bs := n.BackendSets[deref(l.DefaultBackendSetName)]
		by := "IP address"
		if len(bs.Backends) > 0 && bs.Backends[0].TargetId != nil {
			by = "instance OCID"
		}
		kept := bs.IsPreserveSource != nil && *bs.IsPreserveSource
		rows = append(rows, []string{name, string(l.Protocol), fmt.Sprint(*l.Port), fmt.Sprint(len(bs.Backends)), by, fmt.Sprint(kept)})
		d.out.NLBListeners[name] = fmt.Sprintf("%s/%d, %d backends by %s, client address kept %v", l.Protocol, *l.Port, len(bs.Backends), by, kept)
	}
	d.n.say("Network load balancer %s is %s. The Service status lists its addresses, private and public,", lbName(key), n.LifecycleState)
	d.n.say("as upstream does: %s.", strings.Join(d.ingressAll(ctx, svc.Namespace, svc.Name), ", "))
	d.n.say("(With %s: \"true\" it would list only the public one.)", annotation.NLBExternalIPOnly)
	d.n.table(rows)
	d.showRuleChanges(ruleChanges(rulesBefore, ownedRules(d.srv, d.seeded)),
		"a network load balancer's rules are managed only when asked: mode None by default, as upstream")

	mark = d.calls.mark()
	if err := d.kube.CoreV1().Services(svc.Namespace).Delete(ctx, svc.Name, metav1.DeleteOptions{}); err != nil {
		return err
	}
	if err := d.settled(ctx, "deletion of Service "+key, mark, []string{key}, method("EnsureLoadBalancerDeleted"), func() bool {
		_, err := d.kube.CoreV1().Services(svc.Namespace).Get(ctx, svc.Name, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}); err != nil {
		return err
	}
	d.rec.takePlans()
	_, left := networkLoadBalancer(d.srv, lbName(key))
	d.out.NLBGone = !left
	d.n.say("Deleted: the network load balancer is %s.", map[bool]string{true: "still there!", false: "gone (OCI lists it DELETED for a while)"}[left])
	return nil
}

// networkLoadBalancer returns the network load balancer with a display name, unless it is gone
// or going.
func networkLoadBalancer(srv *ocitest.Server, name string) (nlbapi.NetworkLoadBalancer, bool) {
	for _, n := range srv.NetworkLoadBalancers() {
		if deref(n.DisplayName) != name {
			continue
		}
		switch n.LifecycleState {
		case nlbapi.LifecycleStateDeleting, nlbapi.LifecycleStateDeleted:
			continue
		}
		return n, true
	}
	return nlbapi.NetworkLoadBalancer{}, false
}

// ingressAll returns every address in the Service's load balancer status.
func (d *demo) ingressAll(ctx context.Context, namespace, name string) []string {
	s, err := d.kube.CoreV1().Services(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil
	}
	var out []string
	for _, in := range s.Status.LoadBalancer.Ingress {
		out = append(out, in.IP)
	}
	return out
}
