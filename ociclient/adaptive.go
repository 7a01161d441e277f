// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"math"
	"net/http"
	"time"

	"github.com/go-logr/logr"
	"golang.org/x/time/rate"

	"github.com/oci-ccm/oci-ccm/config"
)

// OCI publishes no request rates: its list of API errors
// (https://docs.oracle.com/en-us/iaas/Content/API/References/apierrors.htm) has 429
// TooManyRequests but no rate that triggers it, and the limits differ by tenancy. The configured
// rates cannot be tuned in advance, so each bucket learns its tenancy's rate from the answers. A
// 429 cuts the rate of the bucket whose token the call took; calls that OCI accepts while the
// bucket holds them back raise it again, slowly, up to the configured rate.
// The constants below were tuned with TestAdaptiveLimiterNearlyMatchesAClientConfiguredAtOCIsRate
// (a tenancy of 5 reads/s against the default 20, and 2 writes/s against 5).
const (
	// cutFactor is what a 429 leaves of the rate when too few answers came in the last
	// acceptedWindow to tell what OCI accepts (minAccepted): a 30% cut, the margin that lets
	// OCI's own bucket refill before the rate climbs back to where it was refused.
	cutFactor = 0.7
	// acceptedMargin is the share of the accepted rate (see acceptedWindow) a cut keeps, up to
	// edgeCut of the rate: the first 429 of a client running far above its tenancy's limit lands
	// the rate just under what OCI took, in one cut, where cutting by 30% at a time from 20/s
	// would take four, each costing a 429 per call in flight; one running at about OCI's limit
	// is cut by edgeCut only.
	acceptedMargin = 0.9
	// deepestCut is the least a cut leaves of the rate, however little OCI accepted: a 429 to a
	// caller that calls rarely says the tenancy is busy, not that it allows only that caller's
	// rate, and a rate cut to it would take minutes to climb back when the demand rises.
	deepestCut = 0.2
	// acceptedWindow is the window of the accepted-rate estimate: the calls OCI answered other
	// than with a 429 in the last acceptedWindow, divided by it. A second: long enough to count
	// a few calls at OCI's lower rates, short enough to forget the rate of a minute ago.
	acceptedWindow = time.Second
	// acceptedRing is how many accepted calls (and 429s) the estimate remembers: past
	// acceptedRing calls a second it saturates, and a bucket of a higher rate would take the
	// edge of OCI's limit for a rate far above it. A few times the default read rate.
	acceptedRing = 256
	// minAccepted is how many accepted calls the estimate needs for a cut to use it: with fewer
	// (a 429 to the first call in a while, or one whose answer came before those of the calls
	// sent with it), a cut only applies cutFactor.
	minAccepted = 2
	// growthPerSecond is how fast the rate recovers after a cut: 1% a second while the bucket
	// holds calls back and OCI accepts them (slower near OCI's limit: probeZone), 140 s from a
	// quarter of the configured rate to all of it. Every climb past OCI's limit costs a
	// 429 once OCI's own burst is spent; at 2% a second, a climb came every 20 s at 2 writes/s
	// and the 429s passed 5% of the calls.
	growthPerSecond = 0.01
	// probeZone and probeGrowth slow the climb near the rate OCI last refused (adaptState.limit):
	// above probeZone of it the rate grows at probeGrowth of growthPerSecond. Climbing back to a
	// rate OCI has just refused costs a 429 each time it is passed; slowly there, the climbs
	// come a quarter as often, and a limit that rose is still found.
	probeZone   = 0.95
	probeGrowth = 0.25
	// maxGrowthGap bounds the time one accepted call counts for in the growth: a call after a
	// quiet minute shows that OCI accepts one call, not a rate a minute higher.
	maxGrowthGap = time.Second
	// edgeShare is the share of 429s among the answers of the last acceptedWindow below which a
	// 429 is taken for the edge of OCI's limit rather than for a rate far above it: the bucket
	// runs at about what OCI allows, and one call came a little early (OCI's bucket and this one
	// see the calls at different moments). Such a 429 cuts the rate by edgeCut only: a deep cut
	// there would idle the writes of a storm running at the tenancy's rate for half a minute.
	edgeShare = 0.15
	// pushedShare is the share of its rate a bucket's calls must reach in the acceptedWindow for
	// a lone 429 among them to say more than the edge of OCI's limit (see edgeLocked): below
	// it the bucket was not pushing its rate, and what OCI accepted is what it was sent.
	pushedShare = 0.8
	// edgeCut is what an edge 429 leaves of the rate; growthPerSecond wins it back in ten
	// seconds.
	edgeCut = 0.9
	// minRate is the floor a cut never goes below (or the configured rate, if lower): a tenancy
	// that allows less than a call every two seconds is throttled by something else than its
	// rate, which a slower client would not cure.
	minRate = 0.5
)

// adaptState is what a bucket has learnt of OCI's limit. Guarded by bucket.mu.
type adaptState struct {
	// epoch counts the cuts. A call reports its answer with the epoch its token came from, and a
	// 429 cuts only if no cut came since: the calls sent in one moment before the first 429 was
	// seen are refused together, and all of them together mean one cut.
	epoch uint64
	// pausedUntil is when the bucket's calls may go again after a Retry-After.
	pausedUntil time.Time
	// acceptedTimes are when the last accepted calls were answered, a ring whose next slot is
	// acceptedNext; throttledTimes the same for the 429s.
	acceptedTimes  [acceptedRing]time.Time
	acceptedNext   int
	throttledTimes [acceptedRing]time.Time
	throttledNext  int
	// limit is the rate at which OCI last refused a call: what it accepted in the last
	// acceptedWindow when there were enough answers to tell, else the rate that was cut. Zero
	// before the first cut.
	limit float64
	// grownAt is when the rate was last cut or a call of the epoch was accepted: the rate grows
	// for the time since, when the call had waited.
	grownAt time.Time
}

// rateChange is a change of a bucket's rate, for logs.
type rateChange struct {
	bucket   string
	from, to float64
	// restored says the bucket is back at its configured rate and burst.
	restored bool
}

// pauseEnd is when the bucket's Retry-After pause ends (zero when it never paused).
func (b *bucket) pauseEnd() time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.pausedUntil
}

// epochIs reports whether no cut came since epoch.
func (b *bucket) epochIs(epoch uint64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.epoch == epoch
}

// acceptedRateLocked is the calls per second OCI accepted in the acceptedWindow before now, and
// whether there were enough to tell (minAccepted).
func (b *bucket) acceptedRateLocked(now time.Time) (qps float64, ok bool) {
	n := countSince(b.acceptedTimes[:], now.Add(-acceptedWindow))
	return float64(n) / acceptedWindow.Seconds(), n >= minAccepted
}

// edgeLocked reports whether a 429 at now is the edge of OCI's limit, not a rate far above it:
// the 429s are fewer than edgeShare of the answers of the acceptedWindow before now (the 429
// being recorded included); or the bucket's calls were too few to have pushed its rate (fewer
// answers than half what the rate allows in the window); or the 429 is the window's only one
// and the calls were fewer than pushedShare of the rate. In the last two cases what OCI accepted
// says how many calls there were, not how many OCI takes: a storm's deferred writes trickling
// out at first would otherwise cut the rate to a fifth, and its writes would idle for a minute;
// and as the node syncs' last writes and the deferred ones take turns, a storm's writes thin out
// to about half the rate, where one 429 (OCI's bucket and this one see the calls at different
// moments) cut the rate to half for the minute it took to climb back.
func (b *bucket) edgeLocked(now time.Time, qps float64) bool {
	from := now.Add(-acceptedWindow)
	accepted, throttled := countSince(b.acceptedTimes[:], from), countSince(b.throttledTimes[:], from)
	answers := float64(accepted + throttled)
	allowed := qps * acceptedWindow.Seconds()
	return float64(throttled) < edgeShare*answers || answers < 0.5*allowed || throttled <= 1 && answers < pushedShare*allowed
}

// countSince counts the times after from.
func countSince(times []time.Time, from time.Time) int {
	n := 0
	for _, t := range times {
		if t.After(from) {
			n++
		}
	}
	return n
}

// throttled records a 429 answered at now to a call that took g, with the Retry-After it
// carried (pause, 0 when none). The whole bucket pauses until then. Unless the bucket was cut
// since g was granted, the rate is cut and the bucket replaced by an empty one of burst 1, so
// that the calls after it queue at the new rate from now, and the calls queued at the old rate
// queue again (wait). It returns the cut, if one was made.
func (b *bucket) throttled(g grant, now time.Time, pause time.Duration) (rateChange, bool) {
	b.mu.Lock()
	if until := now.Add(pause); pause > 0 && until.After(b.pausedUntil) {
		b.pausedUntil = until
	}
	b.throttledTimes[b.throttledNext] = now
	b.throttledNext = (b.throttledNext + 1) % acceptedRing
	if g.epoch != b.epoch {
		b.mu.Unlock()
		return rateChange{}, false
	}
	from := float64(b.lim.Limit())
	to := from * cutFactor
	accepted, ok := b.acceptedRateLocked(now)
	b.limit = from
	if ok {
		b.limit = min(from, accepted)
	}
	switch {
	case ok && b.edgeLocked(now, from):
		to = from * edgeCut
	case ok:
		// What OCI accepted says how far above its limit the bucket ran, whatever the share of
		// 429s: a burst of them from calls that reached OCI together (answers held up by a busy
		// machine or network, then sent at once) while OCI took about the bucket's rate is the
		// edge, and a 30% cut there would starve the bucket's callers for half a minute.
		to = min(from*edgeCut, max(from*deepestCut, accepted*acceptedMargin))
	}
	to = max(to, b.floor)
	b.epoch++
	b.lim = rate.NewLimiter(rate.Limit(to), 1)
	b.lim.AllowN(now, 1) // a new bucket starts full: empty it
	b.grownAt = now
	b.mu.Unlock()
	if b.observe != nil {
		b.observe(to)
	}
	return rateChange{bucket: b.name, from: from, to: to}, true
}

// accepted records that OCI answered a call that took g at now, other than with a 429. It
// counts towards the accepted rate; and if the call had to wait for its token (the rate holds
// the callers back) and no cut came since, the rate grows by growthPerSecond for the time since
// the previous accepted call (at most maxGrowthGap), up to the configured rate, where the
// configured burst comes back. It returns the change, if the rate changed.
func (b *bucket) accepted(g grant, now time.Time) (rateChange, bool) {
	b.mu.Lock()
	b.acceptedTimes[b.acceptedNext] = now
	b.acceptedNext = (b.acceptedNext + 1) % acceptedRing
	from := float64(b.lim.Limit())
	if g.epoch != b.epoch || from >= b.ceiling {
		b.mu.Unlock()
		return rateChange{}, false
	}
	dt := min(now.Sub(b.grownAt), maxGrowthGap)
	b.grownAt = now
	if !g.waited || dt <= 0 {
		b.mu.Unlock()
		return rateChange{}, false
	}
	growth := growthPerSecond
	if from >= probeZone*b.limit {
		growth *= probeGrowth
	}
	to := min(b.ceiling, from*(1+growth*dt.Seconds()))
	b.lim.SetLimitAt(now, rate.Limit(to))
	restored := to >= b.ceiling
	if restored {
		b.lim.SetBurstAt(now, b.fullBurst)
	}
	b.mu.Unlock()
	if b.observe != nil {
		b.observe(to)
	}
	return rateChange{bucket: b.name, from: from, to: to, restored: restored}, true
}

// observeWith makes the limiter report its rates to m, if m implements LimiterRateObserver,
// starting with the configured ones.
func (l *limiter) observeWith(m Metrics) {
	o, ok := m.(LimiterRateObserver)
	if !ok {
		return
	}
	for _, b := range []*bucket{l.read, l.write} {
		if b == nil {
			continue
		}
		name := b.name
		b.observe = func(qps float64) { o.ObserveLimiterRate(name, qps) }
		b.observe(b.ceiling)
	}
}

// adapt reports OCI's answer to a call that took g to its bucket, and logs a cut or a return
// to the configured rate at V(2). resp and err are the attempt's.
func (c *caller) adapt(log logr.Logger, g grant, resp *http.Response, err error) {
	if g.b == nil {
		return
	}
	now := c.clock.now()
	status := 0
	if se, ok := asServiceError(err); ok {
		status = se.GetHTTPStatusCode()
	}
	switch {
	case status == http.StatusTooManyRequests:
		pause, _ := retryAfter(resp, now)
		if ch, ok := g.b.throttled(g, now, pause); ok {
			log.V(2).Info("OCI throttled the client: client-side rate cut", "bucket", ch.bucket,
				"fromQPS", roundRate(ch.from), "toQPS", roundRate(ch.to), "retryAfter", pause)
		}
	case err == nil || status != 0:
		if ch, ok := g.b.accepted(g, now); ok && ch.restored {
			log.V(2).Info("Client-side rate back at the configured rate", "bucket", ch.bucket,
				"fromQPS", roundRate(ch.from), "toQPS", roundRate(ch.to))
		}
	}
}

// roundRate keeps two decimals of a rate, for logs.
func roundRate(qps float64) float64 { return math.Round(qps*100) / 100 }

// CurrentRateLimit is the client-side rate limiter as it stands: Options.RateLimit (defaults
// applied) until OCI answers 429, then the rates and bursts each bucket has learnt since, which
// never exceed the configured ones (see Options.RateLimit).
func (c *Client) CurrentRateLimit() config.RateLimiter {
	l := c.caller.limiter
	if l.read == nil {
		return config.RateLimiter{Disabled: true}
	}
	return config.RateLimiter{
		ReadQPS: float64(l.read.Limit()), ReadBurst: l.read.Burst(),
		WriteQPS: float64(l.write.Limit()), WriteBurst: l.write.Burst(),
	}
}
