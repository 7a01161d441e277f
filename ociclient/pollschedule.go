// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"slices"
	"strings"
	"sync"
	"time"
)

// How the client decides when to poll a work request, in four sources of knowledge, best first:
//
//  1. What the work request says about itself: the NLB API's percentComplete, read at two polls,
//     gives its rate and so its end, waited for once two such estimates agree. (The LB API
//     sends only a state and timeAccepted; its ACCEPTED state says "queued", not for how
//     long, so no time is inferred from it.)
//  2. How long recent work requests of the same kind took in this process, by their own
//     timestamps: the next poll is when the quickest of them ended, then when the next ended.
//  3. OCI's usual durations for the kind (create ~1–2 min, listener and backend changes
//     ~20–40 s, as users' logs show; OCI publishes none), trusted only while most recent work requests of the service kept to
//     them: a test server (ocitest answers in 30 ms by default) or a benchmark's fixed 120 s
//     must not be polled as if it were OCI. Within the range (narrowed to the span of the
//     kind's last few durations once there are two), a poll every lateFraction of the time
//     elapsed, so a work request is found at most ~10% late.
//  4. Nothing: a first poll after PollPolicy.Initial, then waits growing by PollPolicy.Factor.
//
// A first poll never waits longer than PollPolicy.Max unless OCI's durations are trusted, so a
// work request far quicker than its kind usually is costs at most Max.

// lateFraction sizes the waits while a work request may end at any moment (within its kind's
// usual range, or past every duration known): a poll every tenth of the time elapsed, so
// finding it done costs at most ~10% extra time, within PollPolicy's Initial and Max.
const lateFraction = 10

// historySize is how many recent durations of each kind of work request the client remembers.
const historySize = 4

// The kinds of work request whose durations differ in OCI. Every other operation (listener,
// backend set, backend, certificate, settings, NSG changes) is a kindChange: OCI's changes of
// one load balancer take about as long whatever they change.
const (
	kindCreate = "create"
	kindDelete = "delete"
	kindShape  = "shape"
	kindChange = "change"
)

// kindOf is the kind of a work request's operation, as the LB API (its `type`, e.g.
// "CreateListener") or the NLB API (its `operationType`, e.g. "CREATE_NETWORK_LOAD_BALANCER")
// name it; "" for an unnamed one.
func kindOf(operation string) string {
	switch op := strings.ToUpper(strings.ReplaceAll(operation, "_", "")); op {
	case "":
		return ""
	case "CREATELOADBALANCER", "CREATENETWORKLOADBALANCER":
		return kindCreate
	case "DELETELOADBALANCER", "DELETENETWORKLOADBALANCER":
		return kindDelete
	case "UPDATELOADBALANCERSHAPE":
		return kindShape
	}
	return kindChange
}

// durationRange is a span of work-request durations.
type durationRange struct{ lo, hi time.Duration }

func (r durationRange) holds(d time.Duration) bool { return d >= r.lo && d <= r.hi }

// priors are OCI's usual work-request durations by service and kind, approximate figures from
// users' logs (a load balancer create 1–2 min, a listener or backend change 20–40 s); OCI
// publishes none. For deletes, shape changes and the NLB API not even such figures are at hand,
// so none is assumed: their schedule learns from history only.
var priors = map[string]map[string]durationRange{
	serviceLB: {
		kindCreate: {60 * time.Second, 120 * time.Second},
		kindChange: {20 * time.Second, 40 * time.Second},
	},
}

// sample is one finished work request's duration and kind.
type sample struct {
	kind string
	d    time.Duration
}

// durationHistory remembers how long recent work requests of each kind took, by their own
// timestamps. Safe for concurrent use.
type durationHistory struct {
	mu     sync.Mutex
	byKind map[string][]time.Duration // by service + "/" + kind
	// recent holds the latest durations of every kind, by service.
	recent map[string][]sample
}

// record adds a finished work request's duration.
func (h *durationHistory) record(service, operation string, d time.Duration) {
	kind := kindOf(operation)
	if kind == "" || d <= 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.byKind == nil {
		h.byKind = map[string][]time.Duration{}
		h.recent = map[string][]sample{}
	}
	k := service + "/" + kind
	h.byKind[k] = lastN(append(h.byKind[k], d), historySize)
	h.recent[service] = lastN(append(h.recent[service], sample{kind, d}), 2*historySize)
}

func lastN[T any](s []T, n int) []T {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// ociPaced says whether OCI's usual durations describe this service as this process sees
// it: most recent work requests of a kind with a prior took as long as the prior says.
// Caller holds h.mu.
func (h *durationHistory) ociPaced(service string) bool {
	judged, within := 0, 0
	for _, s := range h.recent[service] {
		if r, ok := priors[service][s.kind]; ok {
			judged++
			if r.holds(s.d) {
				within++
			}
		}
	}
	return judged > 0 && 2*within > judged
}

// firstWait is the wait before a work request's first poll, before its kind is known. With
// nothing known, PollPolicy.Initial. Once OCI's durations are trusted for the service, the
// shortest of those and of every recent duration: no OCI work request was ever quicker. Else
// the shortest recent duration of any kind, at most PollPolicy.Max.
func (h *durationHistory) firstWait(service string, p PollPolicy) time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	recent := h.recent[service]
	if len(recent) == 0 {
		return p.Initial
	}
	shortest := slices.MinFunc(recent, func(a, b sample) int { return int(a.d - b.d) }).d
	if h.ociPaced(service) {
		for _, r := range priors[service] {
			shortest = min(shortest, r.lo)
		}
		return max(p.Initial, shortest)
	}
	return min(max(p.Initial, shortest), p.Max)
}

// expectation is when a work request of some kind is likely to end, as times elapsed since
// the wait began.
type expectation struct {
	// ends are durations recent work requests took, ascending: each is worth a poll.
	ends []time.Duration
	// within, when hi > 0, is a range where any moment is as likely: polled every
	// lateFraction of the time elapsed.
	within durationRange
	// othersKnown says that, with nothing known of this kind, other kinds' durations are: the
	// first wait was as long as the quickest of them (see firstWait), and the waits grow with
	// the time elapsed rather than from PollPolicy.Initial.
	othersKnown bool
}

func (e expectation) known() bool { return len(e.ends) > 0 || e.within.hi > 0 }

// expect is what the history says about a work request of the operation's kind.
func (h *durationHistory) expect(service, operation string) expectation {
	kind := kindOf(operation)
	h.mu.Lock()
	defer h.mu.Unlock()
	own := slices.Sorted(slices.Values(h.byKind[service+"/"+kind]))
	r, hasPrior := priors[service][kind]
	// OCI's range is trusted where OCI's pace holds for the service and for the kind (when
	// any of its durations is known).
	trusted := hasPrior && h.ociPaced(service) && (len(own) == 0 || slices.ContainsFunc(own, r.holds))
	var e expectation
	switch {
	case trusted && len(own) >= 2:
		// Work requests of the kind ended anywhere between the quickest and the slowest of the
		// last few: what OCI's range looks like in this region today.
		e.within = durationRange{own[0], own[len(own)-1]}
	case trusted:
		// One duration says little about the next: OCI's own range.
		e.within = r
	}
	e.ends = own
	e.othersKnown = len(h.recent[service]) > 0
	return e
}

// schedule decides the waits between one work request's polls. It is not safe for
// concurrent use; the history it reads is.
type schedule struct {
	p       PollPolicy
	h       *durationHistory
	service string
	// prev is the previous wait.
	prev time.Duration
	// pct and pctAt are the last percentComplete seen (0 if none) and the time elapsed when it
	// was first seen; end is the end the previous readings predicted (0 if none).
	pct        float64
	pctAt, end time.Duration
}

// newSchedule starts the schedule of one work request of service and returns the wait before
// its first poll.
func (h *durationHistory) newSchedule(service string, p PollPolicy) (*schedule, time.Duration) {
	s := &schedule{p: p, h: h, service: service}
	s.prev = h.firstWait(service, p)
	return s, s.prev
}

// clamp keeps a wait within PollPolicy's Initial and Max.
func (s *schedule) clamp(d time.Duration) time.Duration { return min(max(d, s.p.Initial), s.p.Max) }

// next is the wait before the next poll of a work request that has run for elapsed (since the
// wait began) and whose last poll said st.
func (s *schedule) next(elapsed time.Duration, st workRequestStatus) time.Duration {
	wait := s.decide(elapsed, st)
	if st.pollAfter > wait {
		wait = min(st.pollAfter, s.p.Max)
	}
	s.prev = wait
	return wait
}

func (s *schedule) decide(elapsed time.Duration, st workRequestStatus) time.Duration {
	late := s.clamp(elapsed / lateFraction)
	// 1. The work request's own progress: its rate since the previous reading, its end.
	if st.percent >= 100 && s.pct < 100 {
		// Complete but not yet SUCCEEDED (percentComplete is a float32 on the wire: a work
		// request a moment from its end already reads 100): look again soon, once.
		s.pct = st.percent
		return s.p.Initial
	}
	if st.percent > 0 && st.percent < 100 && st.percent != s.pct {
		// A reading unchanged since the last one keeps the time it was first seen: progress
		// reported in steps is measured from step to step.
		prevPct, prevAt := s.pct, s.pctAt
		s.pct, s.pctAt = st.percent, elapsed
		if prevPct > 0 && st.percent > prevPct && elapsed > prevAt {
			remaining := time.Duration((100 - st.percent) * float64(elapsed-prevAt) / (st.percent - prevPct))
			end, agreed := elapsed+remaining, s.end
			s.end = end
			// Progress may be reported in coarse steps (OCI does not say), which a rate from two
			// readings misjudges: wait for the end only once two estimates agree within a
			// tenth of the time left, else at most Max.
			if agreed > 0 && (agreed-end).Abs() <= remaining/lateFraction {
				return max(remaining, s.p.Initial)
			}
			return s.clamp(remaining)
		}
	}
	e := s.h.expect(s.service, st.operation)
	// 2, 3. A range where it may end at any moment: find it at most a tenth late.
	if e.within.hi > 0 && elapsed >= e.within.lo && elapsed < e.within.hi {
		return late
	}
	// The next moment a work request of its kind ended (or OCI's range begins): wait for it,
	// even past Max, as polling before it would only find it running.
	next := time.Duration(-1)
	for _, d := range e.ends {
		if d > elapsed {
			next = d
			break
		}
	}
	if e.within.hi > 0 && e.within.lo > elapsed && (next < 0 || e.within.lo < next) {
		next = e.within.lo
	}
	if next > 0 {
		return max(next-elapsed, s.p.Initial)
	}
	// Past everything known, or nothing known.
	switch {
	case e.known():
		return late
	case e.othersKnown:
		// The first of its kind, after a first wait as long as other kinds took: probably
		// about as long, so grow with the time elapsed, not from that long wait.
		return s.clamp(time.Duration(float64(elapsed) * (s.p.Factor - 1)))
	}
	return s.clamp(time.Duration(float64(s.prev) * s.p.Factor))
}
