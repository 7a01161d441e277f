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

func TestASyncReadsNothingButTheHealthOnlyWhileNothingChangedSinceAFullSync(t *testing.T) {
	c := &Controller{opts: Options{Resync: time.Minute}}
	want := []lbbinding.Target{{IP: "10.0.20.5", Port: 8080}}
	last := inputs{generation: 2, protocol: corev1.ProtocolTCP, want: want, owned: []string{"10.0.20.5:8080"}, at: time.Now()}
	same := last
	same.at = time.Time{}
	for _, tc := range []struct {
		name   string
		change func(*inputs)
		store  func(*inputs)
		want   bool
	}{
		{name: "the same inputs", want: true},
		{name: "a new generation", change: func(p *inputs) { p.generation++ }},
		{name: "another protocol", change: func(p *inputs) { p.protocol = corev1.ProtocolUDP }},
		{name: "a target draining", change: func(p *inputs) { p.want = []lbbinding.Target{{IP: "10.0.20.5", Port: 8080, Drain: true}} }},
		{name: "another target", change: func(p *inputs) { p.want = append(p.want, lbbinding.Target{IP: "10.0.20.6", Port: 8080}) }},
		{name: "owned backends changed", change: func(p *inputs) { p.owned = nil }},
		{name: "the full sync a Resync ago", store: func(p *inputs) { p.at = time.Now().Add(-time.Minute) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stored, in := last, same
			if tc.store != nil {
				tc.store(&stored)
			}
			if tc.change != nil {
				tc.change(&in)
			}
			c.lastSync.Store(types.UID("b"), stored)
			if got := c.unchanged("b", in); got != tc.want {
				t.Errorf("unchanged = %v, want %v", got, tc.want)
			}
		})
	}
	if c.unchanged("other", same) {
		t.Error("a binding with no full sync on record is taken for unchanged")
	}
}
