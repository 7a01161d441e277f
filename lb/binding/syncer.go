// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package binding

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"time"

	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/internal/ctxtime"
	"github.com/oci-ccm/oci-ccm/lb/internal/freeform"
	"github.com/oci-ccm/oci-ccm/lb/internal/subset"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient"
)

// DefaultAttempts is how many times a Sync or Release plans and writes before it gives up on a
// backend set whose ETag keeps changing under it (Options.Attempts).
const DefaultAttempts = 5

// Options configure a Syncer.
type Options struct {
	// LoadBalancers is the classic Load Balancer API (an *ociclient.Client's LoadBalancers);
	// needed for bindings to classic load balancers.
	LoadBalancers LoadBalancers
	// NetworkLoadBalancers is the Network Load Balancer API (an *ociclient.Client's
	// NetworkLoadBalancers); needed for bindings to network load balancers.
	NetworkLoadBalancers NetworkLoadBalancers
	// ClusterID is this cluster's identity (config's clusterID), which errors name when they
	// refuse a load balancer one of its Services owns.
	ClusterID string
	// Attempts bounds the plans and writes of one call after stale ETags (412); zero is
	// DefaultAttempts. Waiting for a busy network load balancer is bounded by the context only.
	Attempts int
}

// Syncer keeps the backends of bound backend sets. It holds no state between calls; one Syncer
// serves any number of bindings, concurrently.
type Syncer struct {
	opts Options
}

// NewSyncer returns a Syncer using opts.
func NewSyncer(opts Options) *Syncer {
	if opts.Attempts <= 0 {
		opts.Attempts = DefaultAttempts
	}
	return &Syncer{opts: opts}
}

// The waits between reads of a network load balancer busy with another change (engine's busy.go
// waits alike): it takes one change at a time, and a change runs for tens of seconds.
const (
	idlePoll    = time.Second
	idlePollMax = 8 * time.Second
)

// Sync makes the backend set serve want and returns what it did. owned names the backends the
// binding added before (Result.Owned of the last Sync; nil the first time). It reads the set,
// plans (Plan) and, when something changes, writes the whole list once with the ETag it read and
// waits for the work request. A stale ETag (someone changed the load balancer meanwhile) makes it
// read and plan again, up to Options.Attempts times; a network load balancer busy with another
// change is waited for, as long as ctx allows.
//
// It refuses, before any write, with a *RefusedError: an invalid Binding or target, a load
// balancer that carries oci-ccm's ownership tags, a missing backend set, and a change that would
// pass OCI's backend limits (512 per set; 512 per classic and 1,024 per network load balancer in
// all) — unless b.Subset, with which it keeps the stable subset of want that fits (fit). Keep
// Result.Owned whatever the error: after a write whose outcome is unknown (the context ended
// while waiting) it also names what the write added, so nothing the binding may have added is
// ever taken for someone else's.
func (s *Syncer) Sync(ctx context.Context, b Binding, want []Target, owned []string) (Result, error) {
	return s.sync(ctx, b, want, owned, false)
}

// Release removes exactly the backends owned names from the backend set, nothing else, and
// returns a nil error when none is left (also when the backend set no longer exists). It refuses
// a load balancer that carries oci-ccm's ownership tags: a Service owns it now, and backends of
// the same address are its own. The Result is Sync's (its Subnets say where the released
// backends' security rules were); with no owned backends nothing is read and it is empty.
func (s *Syncer) Release(ctx context.Context, b Binding, owned []string) (Result, error) {
	if len(owned) == 0 {
		return Result{}, nil // nothing to read for
	}
	return s.sync(ctx, b, nil, owned, true)
}

func (s *Syncer) sync(ctx context.Context, b Binding, want []Target, owned []string, release bool) (Result, error) {
	res := Result{Change: Change{Owned: slices.Clone(owned)}}
	sortNames(res.Owned)
	p, err := s.product(b, &res)
	if err != nil {
		return res, err
	}
	for _, t := range want {
		if _, err := netip.ParseAddr(t.IP); err != nil || t.Port < 1 || t.Port > 65535 {
			return res, refuse(b, ReasonInvalid, "target %q is not an IP address and a port 1–65535", t.Name())
		}
	}
	log := klog.FromContext(ctx).WithValues("binding", b.Name, "loadBalancer", b.LoadBalancerID, "backendSet", b.BackendSet)
	for attempt := 1; ; attempt++ {
		obs, err := p.read(ctx, b)
		switch {
		case ociclient.IsNotFound(err):
			// Not "gone": OCI answers the same 404 when the policy hides the load balancer, and a
			// release that took it for gone would leave the binding's backends behind. A release
			// fails with the refusal too; its caller may choose to leave the backends (Keep). The
			// refusal names no request, so it reads the same at every sync (a controller's condition
			// and Events change only when it does); OCI's answer, with its request ID, is logged.
			log.Info("OCI answers 404 for the load balancer or its backend set", "err", err)
			return res, refuse(b, ReasonNoLoadBalancer, "OCI answers 404 for the %s or its backend set %q: it does not exist, or the CCM's IAM policy does not let it read it",
				p.noun(), b.BackendSet)
		case err != nil:
			return res, fmt.Errorf("binding %s: reading %s %s: %w", b.Name, p.noun(), b.LoadBalancerID, err)
		}
		if err := s.refusal(b, obs); err != nil {
			if r := (*RefusedError)(nil); release && errors.As(err, &r) && r.Reason == ReasonNoBackendSet {
				log.V(2).Info("Backend set gone; nothing to release")
				return res, nil
			}
			return res, err
		}
		res.Eligible, res.Subnets, res.HealthCheckPort = len(want), slices.Clone(obs.subnets), obs.healthPort
		c := Plan(b, obs.backends, owned, fit(b, obs, want, owned))
		if c.Empty() {
			res.Change = c
			log.V(4).Info("Backend set up to date", "backends", len(c.Backends), "owned", len(c.Owned))
			return res, nil
		}
		if err := checkLimits(b, obs, c); err != nil {
			return res, err
		}
		if obs.busy {
			// It would refuse the write: wait for it, then read again (bounded by ctx).
			log.V(2).Info("Network load balancer busy with another change; waiting for it")
			if _, err := awaitIdle(ctx, p, b); err != nil {
				return res, fmt.Errorf("binding %s: waiting for %s %s to finish its other change: %w", b.Name, p.noun(), b.LoadBalancerID, err)
			}
			attempt--
			res.Replans++
			continue
		}
		wr, err := p.write(ctx, b, obs, c)
		switch {
		case err == nil:
			log.V(2).Info("Updating backend set", "added", c.Added, "removed", c.Removed, "updated", c.Updated,
				"backends", len(c.Backends), "workRequest", wr)
			res.WorkRequest = wr
			if err := p.wait(ctx, wr); err != nil {
				var failed *ociclient.WorkRequestError
				if !errors.As(err, &failed) {
					// It may still succeed: own what it adds too.
					res.Owned = unionNames(res.Owned, c.Owned)
				}
				return res, updateError(b, p, err)
			}
			res.Change = c
			return res, nil
		case ociclient.IsPreconditionFailed(err) && attempt < s.opts.Attempts:
			log.V(2).Info("Load balancer changed since it was read; reading it again", "attempt", attempt)
		case p.busy(err):
			log.V(2).Info("Network load balancer busy with another change; waiting for it", "attempt", attempt)
			wasBusy, werr := awaitIdle(ctx, p, b)
			switch {
			case werr != nil:
				return res, updateError(b, p, fmt.Errorf("%w (then waiting for it to finish its other change: %w)", err, werr))
			case wasBusy:
				attempt-- // waiting for a busy one is bounded by ctx, not by Attempts
			case attempt >= s.opts.Attempts:
				return res, updateError(b, p, err)
			}
		default:
			return res, updateError(b, p, err)
		}
		res.Replans++
	}
}

// updateError wraps an error of a write, or of waiting for it, naming what it was for.
func updateError(b Binding, p product, err error) error {
	return fmt.Errorf("binding %s: updating backend set %q of %s %s: %w", b.Name, b.BackendSet, p.noun(), b.LoadBalancerID, err)
}

// awaitIdle reads the network load balancer until it is no longer busy with a change; wasBusy is
// false when the first read found it idle.
func awaitIdle(ctx context.Context, p product, b Binding) (wasBusy bool, err error) {
	delay := idlePoll
	for {
		idle, err := p.idle(ctx, b)
		if err != nil || idle {
			return wasBusy, err
		}
		wasBusy = true
		if err := ctxtime.Sleep(ctx, delay); err != nil {
			return wasBusy, err
		}
		delay = min(2*delay, idlePollMax)
	}
}

// refusal says why the binding may not change what it observed, or nil.
func (s *Syncer) refusal(b Binding, obs observed) error {
	if o, ok := freeform.Owner(obs.tags); ok {
		whose := fmt.Sprintf("cluster %q", o.Cluster)
		if o.Cluster == s.opts.ClusterID && o.Cluster != "" {
			whose = fmt.Sprintf("this cluster (%q)", o.Cluster)
		}
		return refuse(b, ReasonManagedByService, "it carries oci-ccm's ownership tags (%s=%q): Service %q of %s owns it, and its "+
			"reconciles replace its backend sets' backends; bind a load balancer no Service owns", model.TagCluster, o.Cluster, o.Service, whose)
	}
	if !obs.found {
		has := "it has none"
		if len(obs.setNames) > 0 {
			has = fmt.Sprintf("it has %q", obs.setNames)
		}
		return refuse(b, ReasonNoBackendSet, "the %s has no backend set %q; %s", obs.noun, b.BackendSet, has)
	}
	return nil
}

// checkLimits refuses a change that would take the set or the load balancer past OCI's backend
// limits, unless it shrinks what is already past them.
func checkLimits(b Binding, obs observed, c Change) error {
	after, before := len(c.Backends), len(obs.backends)
	if after > obs.perSet && after > before {
		return refuse(b, ReasonTooManyBackends, "%d backends (%d of them this binding's) would exceed OCI's limit of %d per backend set",
			after, len(c.Owned), obs.perSet)
	}
	if total := obs.others + after; total > obs.total && after > before {
		return refuse(b, ReasonTooManyBackends, "%d backends over all backend sets would exceed OCI's limit of %d per %s (%d in this set, %d in the others)",
			total, obs.total, obs.noun, after, obs.others)
	}
	return nil
}

// fit returns want, or with b.Subset the subset of it the set has room for: OCI's limits per set
// and per load balancer, less the backends that are not the binding's (someone else's stay). The
// subset is the one package lb takes for a Service's Nodes: ranked per binding, spread over the
// targets' places, so a target joining or leaving moves at most a backend or two.
func fit(b Binding, obs observed, want []Target, owned []string) []Target {
	if !b.Subset {
		return want
	}
	mine := make(map[string]bool, len(owned))
	for _, name := range owned {
		mine[name] = true
	}
	theirs := 0
	for _, bk := range obs.backends {
		if !mine[bk.key()] {
			theirs++
		}
	}
	room := max(0, min(obs.perSet-theirs, obs.total-obs.others-theirs))
	return subset.Pick(want, room, b.Name, Target.Name, func(t Target) string { return t.Place })
}

// unionNames is a ∪ b, sorted.
func unionNames(a, b []string) []string {
	out := slices.Concat(a, b)
	sortNames(out)
	return slices.Compact(out)
}

// Health returns the health of each backend of the backend set by name ("ip:port", Target.Name),
// for pod readiness gates. GetBackendSetHealth names only the backends that are not OK, with the
// number of backends; when some are OK, the set is read for their names. If the set changes
// between the two reads (the numbers differ) both are read once more; if they still differ, a
// backend not named is UNKNOWN. So it costs one read when no backend is OK, else two (four at
// most).
func (s *Syncer) Health(ctx context.Context, b Binding) (map[string]Health, error) {
	var res Result
	p, err := s.product(b, &res)
	if err != nil {
		return nil, err
	}
	var out map[string]Health
	for range 2 {
		listed, total, err := p.health(ctx, b)
		if err != nil {
			return nil, fmt.Errorf("binding %s: reading the health of backend set %q of %s %s: %w", b.Name, b.BackendSet, p.noun(), b.LoadBalancerID, err)
		}
		if len(listed) == total {
			return listed, nil
		}
		names, err := p.names(ctx, b)
		if err != nil {
			return nil, fmt.Errorf("binding %s: reading backend set %q of %s %s: %w", b.Name, b.BackendSet, p.noun(), b.LoadBalancerID, err)
		}
		out = make(map[string]Health, len(names))
		for _, n := range names {
			h, ok := listed[n]
			if !ok {
				h = HealthOK
				if len(names) != total {
					h = HealthUnknown
				}
			}
			out[n] = h
		}
		if len(names) == total {
			return out, nil
		}
	}
	return out, nil
}

// product builds the API-specific side of a call for b, counting its calls in res.
func (s *Syncer) product(b Binding, res *Result) (product, error) {
	if why := b.validate(); why != "" {
		return nil, refuse(b, ReasonInvalid, "%s", why)
	}
	kind, _ := b.kind()
	switch {
	case kind == model.KindLoadBalancer && s.opts.LoadBalancers != nil:
		return &classic{api: s.opts.LoadBalancers, res: res}, nil
	case kind == model.KindNetworkLoadBalancer && s.opts.NetworkLoadBalancers != nil:
		return &network{api: s.opts.NetworkLoadBalancers, res: res}, nil
	}
	return nil, refuse(b, ReasonInvalid, "the Syncer has no client for %s (Options)", kind)
}
