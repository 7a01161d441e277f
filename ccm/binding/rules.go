// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package binding

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	api "github.com/oci-ccm/oci-ccm/ccm/binding/v1alpha1"
	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/instances"
	lbbinding "github.com/oci-ccm/oci-ccm/lb/binding"
	"github.com/oci-ccm/oci-ccm/seclist"
)

// Rules keeps security rules for claims, as seclist's *Manager does: the controller claims, per
// binding, the rules its backends need.
type Rules interface {
	Reconcile(ctx context.Context, c seclist.Claim) error
	Delete(ctx context.Context, c seclist.Claim) error
}

var _ Rules = (*seclist.Manager)(nil)

// Subnets finds the subnets of backend addresses, as instances' (*Instances).Subnets does: the
// Nodes' for node targets, the pod subnets for ip targets.
type Subnets func(ctx context.Context, ips []string, nodes []*corev1.Node) ([]string, []instances.Unplaced, error)

// ReasonSecurityRules is the reason of a binding whose backends are in the set but whose security
// rules could not be written.
const ReasonSecurityRules = "SecurityRulesFailed"

// claimName is the name of the security claim of binding name in namespace: no Service can have
// it (a Service's name has no colon), so a binding's rules and a Service's never share a claim.
func claimName(namespace, name string) types.NamespacedName {
	return types.NamespacedName{Namespace: namespace, Name: "backendsetbinding:" + name}
}

// claimOf is the security claim of binding b's backends after a sync: from the load balancer's
// subnets to the subnets of the backends it owns, on their ports and the set's health-check port,
// in mode Backend (the load balancer's listeners, and so their rules, are its owner's). A Service
// port of protocol UDP (a network load balancer's) claims UDP ports; the health check is TCP.
func claimOf(b *api.BackendSetBinding, res lbbinding.Result, protocol corev1.Protocol, subnets []string) seclist.Claim {
	c := seclist.Claim{Service: claimName(b.Namespace, b.Name), Mode: config.SecurityListModeBackend,
		LBSubnets: slices.Clone(res.Subnets), NodeSubnets: subnets, HealthCheckPort: res.HealthCheckPort}
	var ports []int
	for _, name := range res.Owned {
		if _, port, ok := splitBackend(name); ok && !slices.Contains(ports, port) {
			ports = append(ports, port)
		}
	}
	slices.Sort(ports)
	if protocol == corev1.ProtocolUDP {
		c.UDPNodePorts = ports
	} else {
		c.NodePorts = ports
	}
	return c
}

// splitBackend splits a backend's name "ip:port" (lb/binding's; an IPv6 address is not bracketed).
func splitBackend(name string) (ip string, port int, ok bool) {
	i := strings.LastIndexByte(name, ':')
	if i < 0 {
		return "", 0, false
	}
	port, err := strconv.Atoi(name[i+1:])
	return name[:i], port, err == nil
}

// syncRules sets the security claim of b's backends after a successful sync res, unless it is the
// claim this process last set for b.
func (c *Controller) syncRules(ctx context.Context, b *api.BackendSetBinding, res lbbinding.Result, protocol corev1.Protocol) error {
	if c.opts.Rules == nil {
		return nil
	}
	claim, err := c.claimFor(ctx, b, res, protocol)
	if err != nil {
		return err
	}
	if last, ok := c.claims.Load(b.UID); ok && reflect.DeepEqual(last.(seclist.Claim), claim) {
		return nil
	}
	if len(res.Owned) == 0 {
		err = c.opts.Rules.Delete(ctx, claim)
	} else {
		err = c.opts.Rules.Reconcile(ctx, claim)
	}
	if err != nil {
		c.claims.Delete(b.UID) // its outcome is unknown: set it again next time
		return err
	}
	c.claims.Store(b.UID, claim)
	return nil
}

// claimFor is claimOf with the subnets of res's owned backends (Options.Subnets).
func (c *Controller) claimFor(ctx context.Context, b *api.BackendSetBinding, res lbbinding.Result, protocol corev1.Protocol) (seclist.Claim, error) {
	var ips []string
	for _, name := range res.Owned {
		if ip, _, ok := splitBackend(name); ok {
			ips = append(ips, ip)
		}
	}
	nodes, err := c.nodes.List(labels.Everything())
	if err != nil {
		return seclist.Claim{}, err
	}
	subnets, unplaced, err := c.opts.Subnets(ctx, ips, nodes)
	if err != nil {
		return seclist.Claim{}, fmt.Errorf("subnets of the backends: %w", err)
	}
	for _, u := range unplaced {
		klog.FromContext(ctx).Info("No security rule for a backend whose subnet cannot be found", "backend", u.IP, "err", u.Err)
	}
	return claimOf(b, res, protocol, subnets), nil
}

// deleteRules removes the security claim of b, which is going, naming the subnets its rules are
// in so that they go at once: those this process last claimed for it, else (after a restart,
// before its first sync) lbSubnets, the load balancer's as the release read them, and the
// subnets of b's owned backends. With neither (deletionPolicy Keep after a restart) only the
// name is known, and its rules go at the next write to their lists.
func (c *Controller) deleteRules(ctx context.Context, b *api.BackendSetBinding, lbSubnets []string) error {
	if c.opts.Rules == nil {
		return nil
	}
	claim := seclist.Claim{Service: claimName(b.Namespace, b.Name)}
	if last, ok := c.claims.Load(b.UID); ok {
		claim = last.(seclist.Claim)
	} else if len(lbSubnets) > 0 {
		var err error
		if claim, err = c.claimFor(ctx, b, lbbinding.Result{Change: lbbinding.Change{Owned: b.Status.OwnedBackends}, Subnets: lbSubnets}, ""); err != nil {
			return err
		}
	}
	if err := c.opts.Rules.Delete(ctx, claim); err != nil {
		return err
	}
	c.claims.Delete(b.UID)
	return nil
}

// primeRules hands seclist the start-up claims of the bindings (Options.PrimeRules): an unknown
// claim for every binding that has backends, since what its rules are is known only once it has
// synced. Nothing else is removed until then.
func (c *Controller) primeRules(ctx context.Context, bindings []any) {
	if c.opts.PrimeRules == nil {
		return
	}
	var claims []seclist.Claim
	for _, o := range bindings {
		u, ok := o.(*unstructured.Unstructured)
		var b api.BackendSetBinding
		if !ok || runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &b) != nil || len(b.Status.OwnedBackends) == 0 {
			continue
		}
		claims = append(claims, seclist.Claim{Service: claimName(b.Namespace, b.Name), Unknown: true})
	}
	if err := c.opts.PrimeRules(claims); err != nil {
		klog.FromContext(ctx).Error(err, "Some bindings' security claims were invalid")
	}
}
