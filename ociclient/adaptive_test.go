// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// approx compares rates to a millionth.
var approx = cmpopts.EquateApprox(1e-6, 0)

// withinAMicrosecond compares waits computed from rates to a microsecond (cmpopts.EquateApprox
// applies to floats only).
var withinAMicrosecond = cmp.Comparer(func(a, b time.Duration) bool { return (a - b).Abs() <= time.Microsecond })

// seconds converts a computed number of seconds to a Duration.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// adaptiveEnv is a limiter of rl on a fake clock whose rates are recorded.
type adaptiveEnv struct {
	l     *limiter
	fc    *fakeClock
	clk   clock
	rates *recordedMetrics
}

func newAdaptiveEnv(rl config.RateLimiter) *adaptiveEnv {
	rl.SetDefaults()
	e := &adaptiveEnv{l: newLimiter(rl), fc: newFakeClock(), rates: &recordedMetrics{}}
	e.clk = e.fc.clock()
	e.l.observeWith(e.rates)
	return e
}

// take waits for a token of class, as a call does before each attempt.
func (e *adaptiveEnv) take(t *testing.T, class callClass) grant {
	t.Helper()
	g, err := e.l.wait(context.Background(), class, e.clk, NopMetrics{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// accept takes a token and reports the call accepted.
func (e *adaptiveEnv) accept(t *testing.T, class callClass) {
	t.Helper()
	g := e.take(t, class)
	g.b.accepted(g, e.clk.now())
}

func TestA429CutsItsBucketToJustUnderWhatOCIAcceptedAndEmptiesIt(t *testing.T) {
	e := newAdaptiveEnv(config.RateLimiter{ReadQPS: 10, ReadBurst: 10, WriteQPS: 5, WriteBurst: 5})
	for range 3 {
		e.accept(t, classRead)
	}
	// Two calls sent at the old rate were refused too (they did not cut: see the next test).
	e.l.read.throttledTimes[0], e.l.read.throttledTimes[1] = e.clk.now(), e.clk.now()
	e.l.read.throttledNext = 2
	g := e.take(t, classRead)
	ch, ok := e.l.read.throttled(g, e.clk.now(), 0)
	// OCI took 3 calls in the last second and refused three: 0.9 × 3/s.
	if diff := cmp.Diff(rateChange{bucket: "read", from: 10, to: 2.7}, ch, cmp.AllowUnexported(rateChange{}), approx); !ok || diff != "" {
		t.Errorf("cut (-want +got):\n%s", diff)
	}
	if burst := e.l.read.Burst(); burst != 1 {
		t.Errorf("burst after the cut = %d, want 1", burst)
	}
	// The bucket is empty: the next call waits a whole interval at the new rate.
	e.take(t, classRead)
	if diff := cmp.Diff([]time.Duration{seconds(1 / 2.7)}, e.fc.recordedSleeps(), withinAMicrosecond); diff != "" {
		t.Errorf("waits after the cut (-want +got):\n%s", diff)
	}
	// The write bucket has learnt nothing.
	if limit, burst := e.l.write.Limit(), e.l.write.Burst(); limit != 5 || burst != 5 {
		t.Errorf("write bucket = %v/s burst %d, want the configured 5/s burst 5", limit, burst)
	}
	if diff := cmp.Diff(map[string][]float64{"read": {10, 2.7}, "write": {5}},
		map[string][]float64{"read": e.rates.ratesOf("read"), "write": e.rates.ratesOf("write")}, approx); diff != "" {
		t.Errorf("rates reported (-want +got):\n%s", diff)
	}
}

func TestACutKeepsBetweenAFifthAnd90PercentOfTheRate(t *testing.T) {
	for _, tc := range []struct {
		name     string
		qps      float64
		accepted int
		refused  int           // 429s answered just before this one, which did not cut
		before   time.Duration // how long before the 429 the accepted calls were answered
		want     float64
	}{
		{name: "nothing accepted: 70%", qps: 10, want: 7},
		{name: "one accepted call is too few to tell a rate: 70%", qps: 10, accepted: 1, want: 7},
		{name: "OCI accepted 90% with many 429s: 90% of it", qps: 10, accepted: 9, refused: 3, want: 8.1},
		{name: "a burst of 429s while OCI accepted the whole rate: the edge, 90%", qps: 10, accepted: 10, refused: 6, want: 9},
		{name: "OCI accepted less: 90% of it", qps: 10, accepted: 5, refused: 3, want: 4.5},
		{name: "one 429 among calls OCI accepted: the edge of its limit, 90% of the rate", qps: 10, accepted: 9, want: 9},
		{name: "one 429 while the calls thinned out to half the rate: the edge, 90%", qps: 10, accepted: 5, want: 9},
		{name: "two 429s while the calls thinned out to half the rate: 90% of what OCI accepted", qps: 10, accepted: 5, refused: 1, want: 4.5},
		{name: "one 429 while the calls pushed the rate: 90% of what OCI accepted", qps: 5, accepted: 4, want: 3.6},
		{name: "calls answered more than a second ago do not count", qps: 10, accepted: 5, refused: 3, before: 2 * time.Second, want: 7},
		{name: "OCI accepted much less: a fifth", qps: 100, accepted: 2, refused: 48, want: 20},
		{name: "too few calls to have pushed the rate: the edge, 90%", qps: 10, accepted: 2, refused: 1, want: 9},
		{name: "never below the floor", qps: 0.6, want: minRate},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newAdaptiveEnv(config.RateLimiter{ReadQPS: tc.qps, ReadBurst: 100})
			for range tc.accepted {
				e.accept(t, classRead)
			}
			for i := range tc.refused {
				e.l.read.throttledTimes[i] = e.clk.now()
			}
			e.l.read.throttledNext = tc.refused
			e.fc.advance(tc.before)
			g := e.take(t, classRead)
			ch, ok := e.l.read.throttled(g, e.clk.now(), 0)
			if !ok || math.Abs(ch.to-tc.want) > 1e-9 || math.Abs(float64(e.l.read.Limit())-tc.want) > 1e-9 {
				t.Errorf("cut %v (%v), bucket at %v/s; want %v/s", ch, ok, e.l.read.Limit(), tc.want)
			}
		})
	}
}

func TestOnlyTheFirst429OfCallsSentBeforeACutCutsAgain(t *testing.T) {
	e := newAdaptiveEnv(config.RateLimiter{ReadQPS: 10, ReadBurst: 10})
	// Three calls sent together, all refused: one cut.
	sent := []grant{e.take(t, classRead), e.take(t, classRead), e.take(t, classRead)}
	cuts := 0
	for _, g := range sent {
		if _, ok := e.l.read.throttled(g, e.clk.now(), 0); ok {
			cuts++
		}
	}
	if cuts != 1 || float64(e.l.read.Limit()) != 7 {
		t.Errorf("%d cuts, rate %v/s; want one cut, to 7/s", cuts, e.l.read.Limit())
	}
	// A call sent after the cut and refused: the cut was not enough.
	if _, ok := e.l.read.throttled(e.take(t, classRead), e.clk.now(), 0); !ok || math.Abs(float64(e.l.read.Limit())-4.9) > 1e-9 {
		t.Errorf("rate %v/s after a call sent after the cut was refused, want 4.9/s", e.l.read.Limit())
	}
}

func TestACallQueuedAtTheRefusedRateQueuesAgainAfterTheCut(t *testing.T) {
	e := newAdaptiveEnv(config.RateLimiter{ReadQPS: 1, ReadBurst: 1})
	first := e.take(t, classRead) // the only token
	// The second call queues for the next token, 1 s away; the first call's 429 comes meanwhile.
	e.fc.onSleep = func(context.Context, time.Duration) error {
		if len(e.fc.recordedSleeps()) == 0 {
			e.l.read.throttled(first, e.clk.now(), 0)
		}
		return nil
	}
	second := e.take(t, classRead)
	// Cut to 0.7/s and emptied when the second call began to wait: after its 1 s, the bucket
	// holds 0.7 of a token, and the call waits for the rest.
	want := []time.Duration{time.Second, seconds(0.3 / 0.7)}
	if diff := cmp.Diff(want, e.fc.recordedSleeps(), withinAMicrosecond); diff != "" {
		t.Errorf("the queued call's waits (-want +got):\n%s", diff)
	}
	if !second.waited || second.epoch != 1 {
		t.Errorf("the queued call's grant = %+v, want one of epoch 1 that waited", second)
	}
}

// A yielding call reserves its token only once it may take it: one that began to wait before a
// cut takes a token of the cut bucket and keeps it. (Sending it to the back of the queue again
// stalled a storm's deferred writes, queued one behind the other, for a whole round of them.)
// It still waits out a Retry-After pause that began meanwhile.
func TestAYieldingCallThatWaitedThroughACutKeepsTheTokenItTookAfterIt(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pause time.Duration
		// want are the yielding call's waits: 1 s for the token the first call took (cut
		// meanwhile), then the rest of a token at the new rate (0.3 of a token at 0.7/s), then,
		// after a pause, what is left of it (the token taken during it is not used).
		want []time.Duration
	}{
		{"cut", 0, []time.Duration{time.Second, seconds(0.3 / 0.7)}},
		{"cut and Retry-After", 3 * time.Second, []time.Duration{time.Second, seconds(0.3 / 0.7), seconds(3 - 1 - 0.3/0.7)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newAdaptiveEnv(config.RateLimiter{WriteQPS: 1, WriteBurst: 1})
			first := e.take(t, classWrite) // the only token
			e.fc.onSleep = func(context.Context, time.Duration) error {
				if len(e.fc.recordedSleeps()) == 0 {
					e.l.write.throttled(first, e.clk.now(), tc.pause)
				}
				return nil
			}
			g, err := e.l.wait(YieldWrites(context.Background()), classWrite, e.clk, NopMetrics{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, e.fc.recordedSleeps(), withinAMicrosecond); diff != "" {
				t.Errorf("the yielding call's waits (-want +got):\n%s", diff)
			}
			if !g.waited || g.epoch != 1 {
				t.Errorf("the yielding call's grant = %+v, want one of epoch 1 that waited", g)
			}
		})
	}
}

func TestAcceptedCallsThatWaitedRaiseTheRateBackToTheConfiguredRateAndBurst(t *testing.T) {
	e := newAdaptiveEnv(config.RateLimiter{ReadQPS: 10, ReadBurst: 20})
	e.l.read.throttled(e.take(t, classRead), e.clk.now(), 0) // no call accepted before: 7/s

	// A call that took a token without waiting says nothing about a higher rate.
	e.fc.advance(time.Minute)
	e.accept(t, classRead)
	if limit := float64(e.l.read.Limit()); limit != 7 {
		t.Fatalf("rate %v/s after a call that did not wait, want 7/s", limit)
	}
	// Calls that wait and are accepted raise it by 1% a second to 95% of the rate refused, then
	// by a quarter of that: to 10/s in ln(9.5/7)/1% + ln(10/9.5)/0.25% ≈ 51 s.
	start := e.clk.now()
	prev := 7.0
	for float64(e.l.read.Limit()) < 10 {
		e.accept(t, classRead)
		limit := float64(e.l.read.Limit())
		if limit < prev || limit > 10 {
			t.Fatalf("rate went from %v/s to %v/s, want it to grow up to 10/s", prev, limit)
		}
		prev = limit
		if e.clk.now().Sub(start) > time.Minute {
			t.Fatalf("rate %v/s after a minute, want 10/s", limit)
		}
	}
	if took := e.clk.now().Sub(start); took < 50*time.Second || took > 52*time.Second {
		t.Errorf("the rate took %v to climb from 7/s to 10/s, want about 51s", took)
	}
	if burst := e.l.read.Burst(); burst != 20 {
		t.Errorf("burst back at the configured rate = %d, want the configured 20", burst)
	}
	e.accept(t, classRead)
	if limit := float64(e.l.read.Limit()); limit != 10 {
		t.Errorf("rate %v/s, want no more than the configured 10/s", limit)
	}
	rates := e.rates.ratesOf("read")
	if rates[len(rates)-1] != 10 {
		t.Errorf("last rate reported %v, want 10", rates[len(rates)-1])
	}
}

func TestTheRateClimbsSlowlyNearWhatOCIAcceptedWhenItRefused(t *testing.T) {
	e := newAdaptiveEnv(config.RateLimiter{ReadQPS: 10, ReadBurst: 10})
	for range 5 {
		e.accept(t, classRead)
	}
	e.l.read.throttledTimes[0], e.l.read.throttledTimes[1] = e.clk.now(), e.clk.now()
	e.l.read.throttledNext = 2
	e.l.read.throttled(e.take(t, classRead), e.clk.now(), 0) // OCI took 5/s: cut to 4.5/s
	if limit := float64(e.l.read.Limit()); math.Abs(limit-4.5) > 1e-9 {
		t.Fatalf("rate %v/s after the cut, want 4.5/s", limit)
	}
	// 1% a second to 4.75/s (95% of the 5/s OCI took), then 0.25% a second.
	climb := func(to float64) time.Duration {
		start := e.clk.now()
		for float64(e.l.read.Limit()) < to {
			e.accept(t, classRead)
			if e.clk.now().Sub(start) > 10*time.Minute {
				t.Fatalf("rate %v/s after ten minutes, want %v/s", e.l.read.Limit(), to)
			}
		}
		return e.clk.now().Sub(start)
	}
	fast, slow := climb(4.75), climb(5)
	if want := seconds(math.Log(4.75/4.5) / 0.01); fast < want-time.Second || fast > want+time.Second {
		t.Errorf("4.5/s to 4.75/s took %v, want about %v (1%% a second)", fast, want)
	}
	if want := seconds(math.Log(5/4.75) / 0.0025); slow < want-time.Second || slow > want+time.Second {
		t.Errorf("4.75/s to 5/s took %v, want about %v (0.25%% a second)", slow, want)
	}
	// Past the rate refused it goes on at that pace: the limit may have risen.
	if past := climb(5.1); past > seconds(math.Log(5.1/5)/0.0025)+time.Second {
		t.Errorf("5/s to 5.1/s took %v, want it to go on climbing", past)
	}
}

func TestAcceptedCallsSentBeforeACutDoNotRaiseTheRate(t *testing.T) {
	e := newAdaptiveEnv(config.RateLimiter{ReadQPS: 1, ReadBurst: 1})
	e.take(t, classRead)
	before := e.take(t, classRead) // waited 1 s
	e.l.read.throttled(e.take(t, classRead), e.clk.now(), 0)
	e.fc.advance(time.Second)
	if _, ok := e.l.read.accepted(before, e.clk.now()); ok {
		t.Errorf("a call sent before the cut raised the rate to %v/s", e.l.read.Limit())
	}
}

func TestRetryAfterPausesTheWholeBucket(t *testing.T) {
	e := newAdaptiveEnv(config.RateLimiter{ReadQPS: 10, ReadBurst: 10, WriteQPS: 10, WriteBurst: 10})
	e.l.read.throttled(e.take(t, classRead), e.clk.now(), 3*time.Second)
	// A poll, then another read, wait out the pause; their bucket refilled one token meanwhile.
	e.take(t, classPoll)
	e.take(t, classRead)
	want := []time.Duration{3 * time.Second, time.Second / 7}
	if diff := cmp.Diff(want, e.fc.recordedSleeps(), withinAMicrosecond); diff != "" {
		t.Errorf("waits of the other reads (-want +got):\n%s", diff)
	}
	// Writes have their own bucket.
	before := len(e.fc.recordedSleeps())
	e.take(t, classWrite)
	if after := len(e.fc.recordedSleeps()); after != before {
		t.Errorf("a write waited %v, want no wait", e.fc.recordedSleeps()[before:])
	}
	// A 429 of a call sent before the cut still pauses the bucket (OCI asked), without cutting it again.
	old := grant{b: e.l.read, epoch: 0}
	if _, cut := e.l.read.throttled(old, e.clk.now(), 2*time.Second); cut {
		t.Error("a 429 of a call sent before the cut cut again")
	}
	before = len(e.fc.recordedSleeps())
	e.take(t, classRead)
	if got := e.fc.recordedSleeps()[before:]; len(got) == 0 || got[0] != 2*time.Second {
		t.Errorf("the next read waited %v, want the 2 s OCI asked first", got)
	}
}

// Through the client: a 429 cuts the bucket of the call's class, logs the cut at V(2) and reports
// the new rate; the calls OCI accepts afterwards bring it back, which is logged too.
func TestAThrottledCallCutsTheRateAndTheClientClimbsBack(t *testing.T) {
	var logs lineRecorder
	env := newTestEnv(t, envConfig{client: Options{RateLimit: config.RateLimiter{ReadQPS: 2, ReadBurst: 4}, Logger: logs.logger(2)},
		fakeClock: true})
	lb := env.srv.AddLoadBalancer(loadbalancer.LoadBalancer{})
	ctx := context.Background()
	env.srv.InjectFault(ocitest.Fault{Operation: "GetLoadBalancer", Status: 429, Times: 1})
	if _, err := env.client.LoadBalancers.GetLoadBalancer(ctx, *lb.Id); err != nil {
		t.Fatal(err)
	}
	if got := logs.count(`"msg"="OCI throttled the client: client-side rate cut"`, `"bucket"="read"`, `"fromQPS"=2`, `"toQPS"=1.4`); got != 1 {
		t.Errorf("%d cut logged, want 1:\n%s", got, logs.lines)
	}
	if rl := env.client.CurrentRateLimit(); math.Abs(rl.ReadQPS-1.4) > 0.01 || rl.ReadBurst != 1 || rl.WriteQPS != config.DefaultWriteQPS {
		t.Errorf("CurrentRateLimit() = %+v, want reads cut to about 1.4/s burst 1, writes as configured", rl)
	}
	for range 200 {
		if _, err := env.client.LoadBalancers.GetLoadBalancer(ctx, *lb.Id); err != nil {
			t.Fatal(err)
		}
		if env.client.CurrentRateLimit().ReadQPS == 2 {
			break
		}
	}
	if rl := env.client.CurrentRateLimit(); rl.ReadQPS != 2 || rl.ReadBurst != 4 {
		t.Errorf("CurrentRateLimit() = %+v after calls accepted for a while, want the configured 2/s burst 4", rl)
	}
	if got := logs.count(`"msg"="Client-side rate back at the configured rate"`, `"bucket"="read"`, `"toQPS"=2`); got != 1 {
		t.Errorf("%d returns to the configured rate logged, want 1", got)
	}
	rates := env.metrics.ratesOf("read")
	if len(rates) < 3 || rates[0] != 2 || math.Abs(rates[1]-1.4) > 1e-9 || rates[len(rates)-1] != 2 {
		t.Errorf("read rates reported %v, want 2, the cut to 1.4, then up to 2", rates)
	}
}

func TestADisabledLimiterLearnsNothing(t *testing.T) {
	env := newTestEnv(t, envConfig{client: Options{RateLimit: noLimit}, fakeClock: true})
	lb := env.srv.AddLoadBalancer(loadbalancer.LoadBalancer{})
	env.srv.InjectFault(ocitest.Fault{Operation: "GetLoadBalancer", Status: 429, RetryAfter: "3", Times: 1})
	for range 2 {
		if _, err := env.client.LoadBalancers.GetLoadBalancer(context.Background(), *lb.Id); err != nil {
			t.Fatal(err)
		}
	}
	// Only the retry's own wait: no pause of a bucket, no queueing.
	if diff := cmp.Diff([]time.Duration{3 * time.Second}, env.clock.recordedSleeps()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	if rl := env.client.CurrentRateLimit(); !rl.Disabled {
		t.Errorf("CurrentRateLimit() = %+v, want Disabled", rl)
	}
	if rates := env.metrics.ratesOf("read"); len(rates) != 0 {
		t.Errorf("rates reported %v, want none", rates)
	}
}
