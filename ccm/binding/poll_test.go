// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package binding

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	lbbinding "github.com/oci-ccm/oci-ccm/lb/binding"
)

func TestAHealthPollReadsTheHealthAloneOnlyWhileNothingChangedSinceAFullSync(t *testing.T) {
	c := &Controller{opts: Options{Resync: time.Minute}}
	want := []lbbinding.Target{{IP: "10.0.20.5", Port: 8080}}
	last := polled{generation: 2, protocol: corev1.ProtocolTCP, want: want, owned: []string{"10.0.20.5:8080"}, at: time.Now()}
	same := last
	same.at = time.Time{}
	for _, tc := range []struct {
		name   string
		change func(*polled)
		store  func(*polled)
		want   bool
	}{
		{name: "the same inputs", want: true},
		{name: "a new generation", change: func(p *polled) { p.generation++ }},
		{name: "another protocol", change: func(p *polled) { p.protocol = corev1.ProtocolUDP }},
		{name: "a target draining", change: func(p *polled) { p.want = []lbbinding.Target{{IP: "10.0.20.5", Port: 8080, Drain: true}} }},
		{name: "another target", change: func(p *polled) { p.want = append(p.want, lbbinding.Target{IP: "10.0.20.6", Port: 8080}) }},
		{name: "owned backends changed", change: func(p *polled) { p.owned = nil }},
		{name: "the full sync a Resync ago", store: func(p *polled) { p.at = time.Now().Add(-time.Minute) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stored, in := last, same
			if tc.store != nil {
				tc.store(&stored)
			}
			if tc.change != nil {
				tc.change(&in)
			}
			c.waiting.Store(types.UID("b"), stored)
			if got := c.unchangedSincePoll("b", in); got != tc.want {
				t.Errorf("unchangedSincePoll = %v, want %v", got, tc.want)
			}
		})
	}
	if c.unchangedSincePoll("other", same) {
		t.Error("a binding with no full sync on record polls the health alone")
	}
}
