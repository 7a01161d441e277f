package ccm

import (
	"context"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/seclist"
)

// loadBalancers forwards cloudprovider.LoadBalancer to lb (the load balancer) and seclist (the
// security rules the load balancer needs). The clusterName argument of every method is the
// service controller's --cluster-name; the Cloud's identity (Options.ClusterName, or clusterID)
// is passed on instead, so load balancer tags and rule descriptions carry the same one.
type loadBalancers struct{ c *Cloud }

var _ cloudprovider.LoadBalancer = (*loadBalancers)(nil)

// GetLoadBalancer reports the status of the Service's load balancer, if it exists.
func (l *loadBalancers) GetLoadBalancer(ctx context.Context, _ string, svc *v1.Service) (*v1.LoadBalancerStatus, bool, error) {
	return l.c.lbs.Get(ctx, l.c.cluster, svc)
}

// GetLoadBalancerName returns the load balancer's OCI display name.
func (l *loadBalancers) GetLoadBalancerName(_ context.Context, _ string, svc *v1.Service) string {
	return l.c.lbs.Name(svc)
}

// EnsureLoadBalancer creates or updates the load balancer, then its security rules.
func (l *loadBalancers) EnsureLoadBalancer(ctx context.Context, _ string, svc *v1.Service, nodes []*v1.Node) (*v1.LoadBalancerStatus, error) {
	return l.c.ensure(ctx, svc, nodes)
}

// UpdateLoadBalancer is EnsureLoadBalancer: the service controller calls it when nodes change.
func (l *loadBalancers) UpdateLoadBalancer(ctx context.Context, _ string, svc *v1.Service, nodes []*v1.Node) error {
	_, err := l.c.ensure(ctx, svc, nodes)
	return err
}

// EnsureLoadBalancerDeleted deletes the load balancer the Service owns, then its security rules.
func (l *loadBalancers) EnsureLoadBalancerDeleted(ctx context.Context, _ string, svc *v1.Service) error {
	if err := l.c.lbs.Delete(ctx, l.c.cluster, svc); err != nil {
		return err
	}
	claim := seclist.Claim{Service: serviceKey(svc), LBSubnets: l.c.subnetsOf(svc)}
	if err := l.c.rules.Delete(ctx, claim); err != nil {
		return fmt.Errorf("security rules of %s: %w", claim.Service, err)
	}
	return nil
}

func (c *Cloud) ensure(ctx context.Context, svc *v1.Service, nodes []*v1.Node) (*v1.LoadBalancerStatus, error) {
	if !lb.Manages(svc) {
		return nil, cloudprovider.ImplementedElsewhere
	}
	nodes = c.withAddresses(ctx, nodes)
	res, err := c.lbs.Reconcile(ctx, c.cluster, svc, nodes, c.secrets())
	c.recordPlan(svc, res, err)
	if err != nil {
		return nil, err
	}
	claim, skipped, err := c.claimFor(ctx, svc, res.Spec, nodes)
	if err != nil {
		return nil, err
	}
	c.warnUnplaced(ctx, svc, skipped)
	if err := c.rules.Reconcile(ctx, claim); err != nil {
		return nil, fmt.Errorf("security rules of %s: %w", claim.Service, err)
	}
	if !res.Plan.Empty() {
		klog.FromContext(ctx).Info("Load balancer reconciled", "service", klog.KObj(svc),
			"loadBalancer", res.Spec.ID, "changes", len(res.Plan.Changes))
	}
	return res.Status, nil
}

// withAddresses gives each Node that has a providerID but no InternalIP yet the InternalIPs OCI
// reports for its instance. The cloud-node controller writes a new Node's providerID before its
// addresses, and the service controller syncs load balancers on the providerID change but not on
// the addresses change, so without this such a Node would miss its backend sets until some other
// change. The Nodes passed in are never modified; changed ones are copies.
func (c *Cloud) withAddresses(ctx context.Context, nodes []*v1.Node) []*v1.Node {
	out, copied := nodes, false
	for i, n := range nodes {
		if n == nil || n.Spec.ProviderID == "" || slices.ContainsFunc(n.Status.Addresses, isInternalIP) {
			continue
		}
		md, err := c.nodes.InstanceMetadata(ctx, n)
		if err != nil {
			klog.FromContext(ctx).V(2).Info("Node has no InternalIP and its instance's addresses are unknown; not a backend yet",
				"node", klog.KObj(n), "err", err)
			continue
		}
		cp := n.DeepCopy()
		for _, a := range md.NodeAddresses {
			if isInternalIP(a) {
				cp.Status.Addresses = append(cp.Status.Addresses, a)
			}
		}
		if !copied {
			out, copied = slices.Clone(nodes), true
		}
		out[i] = cp
	}
	return out
}

func isInternalIP(a v1.NodeAddress) bool { return a.Type == v1.NodeInternalIP }

// secrets returns the informer-backed Secret lookup, or one that finds nothing before
// SetInformers (a Service needing a Secret then fails and is retried).
func (c *Cloud) secrets() lb.Secrets {
	if c.watch == nil {
		return lb.SecretMap{}
	}
	return c.watch
}

// subnetsOf returns the subnets a Service's load balancer is (or would be) in: from its
// annotations or the configured defaults. It is what security rules are cleaned from when the
// Service is deleted, even by a process that never saw the Service's claim.
func (c *Cloud) subnetsOf(svc *v1.Service) []string {
	if spec, err := lb.Desired(svc, nil, c.cfg, c.secrets()); err == nil {
		return spec.Subnets
	}
	var ids []string
	for _, id := range []string{c.cfg.LoadBalancer.Subnet1, c.cfg.LoadBalancer.Subnet2} {
		if id != "" {
			ids = append(ids, id)
		}
	}
	return ids
}

func serviceKey(svc *v1.Service) string { return svc.Namespace + "/" + svc.Name }
