// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/lb"
)

func TestNSGsNotListedInTheAnnotationAreLeftAlone(t *testing.T) {
	const (
		user = "ocid1.networksecuritygroup.oc1.phx.user"
		a    = "ocid1.networksecuritygroup.oc1.phx.a"
		b    = "ocid1.networksecuritygroup.oc1.phx.b"
	)
	type step struct {
		name       string
		addUser    bool   // a user attaches an NSG of their own first
		annotation string // "-" leaves the annotation out
		want       []string
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{name: "created without the annotation", steps: []step{
			{name: "create", annotation: "-", want: nil},
			{name: "absent: the user's NSG stays", addUser: true, annotation: "-", want: []string{user}},
			{name: "listed NSGs join the user's", annotation: a + "," + b, want: []string{a, b, user}},
			{name: "one removed from the annotation is detached", annotation: a, want: []string{a, user}},
			{name: "annotation removed: ours detached, the user's stays", annotation: "-", want: []string{user}},
		}},
		{name: "created with the annotation", steps: []step{
			{name: "create", annotation: a, want: []string{a}},
			{name: "the user's NSG stays", addUser: true, annotation: a, want: []string{a, user}},
			{name: "empty annotation detaches ours only", annotation: "", want: []string{user}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			for _, s := range tc.steps {
				if s.addUser {
					e.srv.EditLoadBalancer(e.only(t).ID, func(l *loadbalancer.LoadBalancer) {
						l.NetworkSecurityGroupIds = append(l.NetworkSecurityGroupIds, user)
					})
				}
				svc := service()
				if s.annotation != "-" {
					svc = service(annotate(lb.AnnotationNetworkSecurityGroups, s.annotation))
				}
				e.ensure(t, svc, readyNodes(1), nil)
				if diff := cmp.Diff(s.want, e.only(t).NetworkSecurityGroups, compareEmpty); diff != "" {
					t.Fatalf("%s: NSGs (-want +got):\n%s", s.name, diff)
				}
			}
		})
	}
}

var compareEmpty = cmp.Comparer(func(x, y []string) bool { return slices.Equal(x, y) || len(x) == 0 && len(y) == 0 })
