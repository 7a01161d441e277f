// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package seclist

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/oracle/oci-go-sdk/v65/core"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/internal/ctxtime"
	"github.com/oci-ccm/oci-ccm/ociclient"
)

// writer is the one writer of one security list in the process. Callers ask it to write; it
// runs at most one sync at a time, and a sync covers every request made before it read the
// claims, so any number of requests that pile up during a sync are served by the next one.
//
// Requests are numbered. A sync records the highest number at the moment it takes its snapshot
// of the claims (each read-merge-write round takes a fresh one); every request up to that number
// had its claim set before the snapshot, so the sync's result is that request's result.
type writer struct {
	id string
	m  *Manager

	mu      sync.Mutex
	want    uint64 // number of the latest request
	covered uint64 // number of the latest request the running sync's snapshot includes
	running bool
	waiters []waiter
	// known is the list as this process last read or wrote it, with its ETag; nil when unknown
	// (never read, or a write failed in a way that leaves its outcome unknown). A sync that finds
	// nothing to change against it makes no call at all; a write with its ETag that OCI refuses
	// with 412 means someone else changed the list, and the sync reads it again.
	known *knownList
	// knownNSG is, for a network security group, its rules as this process last read or wrote
	// them; nil when unknown.
	knownNSG *knownRules
	// snapVersion is the Manager's version at the running sync's latest snapshot; synced is
	// the version at which the last sync succeeded (0 after a failure). A list forgotten (known
	// and knownNSG nil) is never settled, whatever synced says.
	snapVersion, synced uint64
}

// knownList is a security list as last seen by this process.
type knownList struct {
	list core.SecurityList
	etag string
	at   time.Time // when it was read or written
}

type waiter struct {
	n    uint64
	done chan error // buffered: the writer never blocks on a caller that stopped waiting
}

// request asks for a write that includes every claim set so far, and returns where its
// outcome will be sent. The sync runs on a context detached from ctx's cancellation: it serves
// every waiting caller, not only this one, and is bounded by Options.SyncTimeout instead.
func (w *writer) request(ctx context.Context) <-chan error {
	done := make(chan error, 1)
	w.mu.Lock()
	w.want++
	w.waiters = append(w.waiters, waiter{n: w.want, done: done})
	start := !w.running
	w.running = true
	w.mu.Unlock()
	if start {
		go w.run(context.WithoutCancel(ctx))
	}
	return done
}

// run syncs until no request is waiting, then exits; the next request starts it again.
func (w *writer) run(base context.Context) {
	for {
		w.mu.Lock()
		if len(w.waiters) == 0 {
			w.running = false
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()

		ctx, cancel := context.WithTimeout(base, w.m.opts.SyncTimeout)
		err := w.sync(ctx)
		cancel()

		w.mu.Lock()
		w.synced = 0
		if err == nil {
			w.synced = w.snapVersion
		}
		rest := w.waiters[:0]
		for _, wt := range w.waiters {
			if wt.n <= w.covered {
				wt.done <- err
			} else {
				rest = append(rest, wt)
			}
		}
		w.waiters = rest
		w.mu.Unlock()
	}
}

// snapshot records which requests the coming round covers and returns the claims it works
// from. The order matters: the request number is read before the claims, so a request counted
// as covered had set its claim already.
func (w *writer) snapshot() (claims []Claim, prune bool, unknown []string) {
	w.mu.Lock()
	w.covered = w.want
	w.mu.Unlock()
	w.m.mu.Lock()
	claims, prune, unknown, version := w.m.snapshotLocked(), w.m.mayPruneLocked(), w.m.unknownLocked(), w.m.version
	w.m.mu.Unlock()
	w.mu.Lock()
	w.snapVersion = version
	w.mu.Unlock()
	return claims, prune, unknown
}

// settled says whether the writer's last sync succeeded at version and nothing is waiting, and
// what it knows of its list (or NSG) is younger than maxAge at now: a sync now would compute the
// same rules and compare them with the same list, so it would write nothing.
func (w *writer) settled(version uint64, now time.Time, maxAge time.Duration) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.synced != version || w.running || len(w.waiters) > 0 {
		return false
	}
	switch {
	case w.known != nil:
		return now.Sub(w.known.at) < maxAge
	case w.knownNSG != nil:
		return now.Sub(w.knownNSG.at) < maxAge
	}
	return false
}

// sync makes the list hold exactly the rules the current claims need, keeping every rule this
// cluster does not own: read the list and its ETag, diff, write with If-Match. When another
// writer got in between (412), it waits a jittered, growing delay, re-reads, recomputes from
// the claims as they are by then, and tries again, up to Options.Attempts rounds.
func (w *writer) sync(ctx context.Context) error {
	if isNSG(w.id) {
		return w.syncNSG(ctx)
	}
	logger := w.m.loggerFor(ctx).WithValues("securityList", w.id)
	for attempt := 1; ; attempt++ {
		claims, prune, desired, err := w.prepare(ctx, logger)
		if err != nil {
			return fmt.Errorf("security list %s: %w", w.id, err)
		}

		list, etag, cached, err := w.current(ctx)
		if err != nil {
			return fmt.Errorf("reading security list %s: %w", w.id, err)
		}
		cur := observe(list, w.m.owner)
		var need map[Rule][]types.NamespacedName
		if w.m.opts.Policy.AdoptUndescribed && hasUndescribed(cur) {
			w.m.mu.Lock()
			need = needs(claims, w.m.subnets, w.m.opts.Policy, w.id)
			w.m.mu.Unlock()
			cur = adopt(cur, keysOf(need), desired[w.id])
		}
		u, err := Diff(cur, desired[w.id], prune, w.m.opts.Limits)
		if ce := (*CapacityError)(nil); errors.As(err, &ce) && w.nodePortsWouldFit(claims, ce.Direction) {
			ce.Option = OptionOpenNodePortRange
		}
		if err != nil {
			return err
		}
		if u.Empty() {
			logger.V(4).Info("Security list is up to date", "ownedRules", len(u.After), "claims", len(claims), "fromMemory", cached)
			return nil
		}
		logger.Info("Updating security list", "add", ruleStrings(u.Add), "remove", ruleStrings(u.Remove),
			"ownedBefore", len(u.Before), "ownedAfter", len(u.After), "pruning", prune, "attempt", attempt)
		logger.V(4).Info("Security list owned rules", "from", ruleStrings(u.Before), "to", ruleStrings(u.After))

		ingress, egress := apply(list, u, w.m.owner)
		written, newETag, err := w.m.vn.UpdateSecurityList(ctx, w.id, ingress, egress, etag)
		if err == nil {
			w.remember(written, newETag)
			w.reportAdopted(logger, adoptedIn(u, need))
			return nil
		}
		// Whatever happened, what this process knows of the list is no longer its state: a 412
		// says someone else changed it, and any other failure may or may not have applied.
		w.forget()
		switch {
		case !ociclient.IsPreconditionFailed(err):
			return fmt.Errorf("updating security list %s: %w", w.id, err)
		case attempt >= w.m.opts.Attempts:
			return fmt.Errorf("updating security list %s: it kept changing under us for %d attempts: %w", w.id, attempt, err)
		case cached:
			// The ETag came from memory, so the 412 is news of a change made elsewhere since,
			// not contention: read the list again at once.
			logger.V(2).Info("Security list changed since this process last saw it; reading it again", "attempt", attempt)
			continue
		}
		delay := w.m.backoff(attempt)
		logger.V(2).Info("Security list changed since it was read; reading it again", "attempt", attempt, "delay", delay)
		if err := ctxtime.Sleep(ctx, delay); err != nil {
			return fmt.Errorf("updating security list %s: %w", w.id, err)
		}
	}
}

// prepare takes a snapshot of the claims (see snapshot) and computes the rules every target
// needs, and whether rules no claim needs may be removed: not before Prime, not while some
// Service's needs are unknown (Claim.Unknown, a frontend NSG not found) and not while a subnet
// some claim names cannot be read.
func (w *writer) prepare(ctx context.Context, logger klog.Logger) (claims []Claim, prune bool, desired map[string]RuleSet, err error) {
	if err := w.m.knowFrontends(ctx); err != nil {
		return nil, false, nil, err
	}
	claims, prune, unknown := w.snapshot()
	if len(unknown) > 0 && prune {
		// A rule no known claim needs may be one of these Services' (see Claim.Unknown).
		logger.Info("Some load balancer Services' needs are unknown (invalid or missing input); not removing rules until they are reconciled",
			"services", unknown)
		prune = false
	}
	unreadable, err := w.m.knowSubnets(ctx, subnetsOf(claims, w.m.opts.Policy))
	if err != nil {
		return nil, false, nil, err
	}
	if len(unreadable) > 0 && prune {
		// Rules that depend on these subnets cannot be computed, so a rule missing from the
		// desired set may still be needed: add what is missing, remove nothing this round.
		logger.Info("Some subnets named by Services cannot be read; not removing rules until they can",
			"subnets", unreadable)
		prune = false
	}
	w.m.mu.Lock()
	desired, problems := Desired(claims, w.m.subnets, w.m.opts.Policy)
	w.m.mu.Unlock()
	if problems != nil {
		logger.V(2).Info("Some subnets have no rules placed", "problems", problems.Error())
	}
	if len(unknown) > 0 || len(unreadable) > 0 || problems != nil {
		// This round is partial for reasons a later round may no longer have (a subnet readable
		// again): it does not settle the list, so the next Reconcile syncs again.
		w.mu.Lock()
		w.snapVersion = 0
		w.mu.Unlock()
	}
	return claims, prune, desired, nil
}

// reportAdopted logs the rules a write took over and hands them to Options.OnAdopt.
func (w *writer) reportAdopted(logger klog.Logger, adopted []Adopted) {
	if len(adopted) == 0 {
		return
	}
	rules := make([]string, len(adopted))
	for i, a := range adopted {
		rules[i] = a.Rule.String()
	}
	logger.Info("Took over security rules that had no description and exactly match what Services need; they are now removed with those Services",
		"rules", rules, "services", servicesOf(adopted))
	if w.m.opts.OnAdopt != nil {
		w.m.opts.OnAdopt(adopted)
	}
}

// kubeProxyHealthPort is kube-proxy's node health endpoint (its --healthz-bind-address port),
// which a load balancer probes for externalTrafficPolicy Cluster: a rule for it alone is not a
// node-port rule.
const kubeProxyHealthPort = 10256

// nodePortsWouldFit reports whether opening the node port range could shrink this target's rules
// of direction d (any direction when empty): it is not open, and some of them are rules between
// the load balancer and the backends.
func (w *writer) nodePortsWouldFit(claims []Claim, d Direction) bool {
	p := w.m.opts.Policy
	if p.NodePortRange.set() {
		return false
	}
	found := false
	w.m.mu.Lock()
	defer w.m.mu.Unlock()
	_ = walk(claims, w.m.subnets, p, func(list string, r Rule, backend bool, _ *Claim) {
		found = found || (backend && list == w.id && (d == "" || r.Direction == d) && r.Ports.Min != kubeProxyHealthPort)
	})
	return found
}

// current returns the list and its ETag: from memory when this process saw it last less than
// Options.MaxListAge ago (cached is then true), otherwise read from OCI and remembered.
func (w *writer) current(ctx context.Context) (list core.SecurityList, etag string, cached bool, err error) {
	w.mu.Lock()
	k := w.known
	w.mu.Unlock()
	if k != nil && w.m.clock().Sub(k.at) < w.m.opts.MaxListAge {
		return k.list, k.etag, true, nil
	}
	list, etag, err = w.m.vn.GetSecurityList(ctx, w.id)
	if err != nil {
		w.forget()
		return core.SecurityList{}, "", false, err
	}
	w.remember(list, etag)
	return list, etag, false, nil
}

// remember records the list as OCI answered a read or a write. An answer without an ETag cannot
// guard a later write, so it is not kept.
func (w *writer) remember(list core.SecurityList, etag string) {
	at := w.m.clock()
	w.mu.Lock()
	defer w.mu.Unlock()
	if etag == "" || w.m.opts.MaxListAge < 0 {
		w.known = nil
		return
	}
	w.known = &knownList{list: list, etag: etag, at: at}
}

// forget drops what this process knows of the list, so the next sync reads it.
func (w *writer) forget() {
	w.mu.Lock()
	w.known, w.knownNSG = nil, nil
	w.mu.Unlock()
}

// backoff returns the wait after the attempt-th 412: a random duration in [ceiling/2,
// ceiling), where the ceiling doubles per attempt from BaseDelay up to MaxDelay. The jitter
// keeps CCM replicas, or this CCM and a person's script, from retrying in lockstep.
func (m *Manager) backoff(attempt int) time.Duration {
	ceiling := m.opts.BaseDelay
	for i := 1; i < attempt && ceiling < m.opts.MaxDelay; i++ {
		ceiling *= 2
	}
	ceiling = min(ceiling, m.opts.MaxDelay)
	if ceiling <= 1 {
		return ceiling
	}
	half := ceiling / 2
	return half + rand.N(ceiling-half)
}

// subnetsOf returns every subnet the claims' rules depend on, without duplicates.
func subnetsOf(claims []Claim, p Policy) []string {
	var ids []string
	for _, c := range claims {
		ids = union(ids, p.subnetsUsed(c))
	}
	return ids
}

func ruleStrings(rules []Rule) []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.String()
	}
	return out
}
