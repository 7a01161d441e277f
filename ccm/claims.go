package ccm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/seclist"
)

// claimFor turns a Service's load balancer Spec into its security claim: the LB's subnets, ports
// and source ranges from the Spec, and the subnets of the backend nodes (see nodeSubnets). It
// also returns the backends left out because their subnet cannot be found.
func (c *Cloud) claimFor(ctx context.Context, svc *v1.Service, spec *lb.Spec, nodes []*v1.Node) (seclist.Claim, []unplaced, error) {
	claim := seclist.Claim{
		Service:     serviceKey(svc),
		Mode:        spec.SecurityListMode,
		LBSubnets:   slices.Clone(spec.Subnets),
		SourceCIDRs: slices.Clone(spec.SourceCIDRs),
	}
	for _, p := range spec.Ports {
		claim.ListenerPorts = append(claim.ListenerPorts, p.Listener)
		claim.NodePorts = append(claim.NodePorts, p.NodePort)
		if claim.HealthCheckPort == 0 {
			claim.HealthCheckPort = p.HealthCheck
		}
	}
	subnets, skipped, err := c.nodeSubnets(ctx, spec, nodes)
	if err != nil {
		return seclist.Claim{}, nil, err
	}
	claim.NodeSubnets = subnets
	return claim, skipped, nil
}

// primeSecurityRules hands seclist the claims of every load balancer Service once it can
// compute all of them. A Service whose Spec is invalid (its own reconcile reports why) and that
// has a load balancer is primed as unknown, which keeps every rule until it is reconciled or
// deleted: an invalid value never changes anything in OCI. An OCI error retries the whole
// gathering later rather than priming with a claim missing, which would remove that Service's
// rules.
func (c *Cloud) primeSecurityRules(ctx context.Context) {
	logger := klog.FromContext(ctx)
	_ = wait.PollUntilContextCancel(ctx, primeRetryInterval, true, func(ctx context.Context) (bool, error) {
		claims, err := c.gatherClaims(ctx)
		if err != nil {
			logger.Error(err, "Cannot gather security claims yet; retrying", "after", primeRetryInterval)
			return false, nil
		}
		if err := c.rules.Prime(claims); err != nil {
			logger.Error(err, "Some security claims were invalid")
		}
		logger.Info("Security rules now cover every load balancer Service", "services", len(claims))
		close(c.primed)
		return true, nil
	})
}

const primeRetryInterval = 10 * time.Second

func (c *Cloud) gatherClaims(ctx context.Context) ([]seclist.Claim, error) {
	services, err := c.watch.services.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	nodes, err := c.watch.nodes.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	var claims []seclist.Claim
	for _, svc := range services {
		if !lb.Manages(svc) || svc.DeletionTimestamp != nil {
			continue
		}
		spec, err := lb.Desired(svc, nodes, c.cfg, c.watch)
		if err != nil {
			claim, err := c.unknownClaim(ctx, svc, err)
			if err != nil {
				return nil, err
			}
			if claim != nil {
				claims = append(claims, *claim)
			}
			continue
		}
		claim, skipped, err := c.claimFor(ctx, svc, spec, nodes)
		if err != nil {
			return nil, err
		}
		for _, u := range skipped {
			klog.FromContext(ctx).V(2).Info("Backend left out of security claims: its subnet cannot be found",
				"service", klog.KObj(svc), "ip", u.IP, "reason", u.Err)
		}
		claims = append(claims, claim)
	}
	return claims, nil
}

// unknownClaim is the claim of a Service whose Spec cannot be computed (invalid): unknown if it
// has a load balancer, since that may have rules only this Service needs; none otherwise.
func (c *Cloud) unknownClaim(ctx context.Context, svc *v1.Service, invalid error) (*seclist.Claim, error) {
	logger := klog.FromContext(ctx).WithValues("service", klog.KObj(svc))
	_, exists, err := c.lbs.Get(ctx, c.cluster, svc)
	switch {
	case errors.Is(err, lb.ErrNotOwned):
		exists = false // another's load balancer: this Service has no rules of ours
	case err != nil:
		return nil, fmt.Errorf("load balancer of invalid Service %s: %w", serviceKey(svc), err)
	}
	if !exists {
		logger.V(2).Info("Service left out of security claims: invalid, and it has no load balancer", "reason", invalid)
		return nil, nil
	}
	logger.Info("Service is invalid and has a load balancer; no security rule is removed until it is reconciled or deleted",
		"reason", invalid)
	return &seclist.Claim{Service: serviceKey(svc), Unknown: true}, nil
}
