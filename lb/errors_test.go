// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

func TestImmutableErrorNamesTheSettingTheUserChangedAndHowToRecover(t *testing.T) {
	base := mustDesired(t, testService(), nodes(1), nil)
	oneSubnet := asObserved(base)
	oneSubnet.Subnets = oneSubnet.Subnets[:1]
	tests := []struct {
		name     string
		observed *model.Spec // nil: base as created
		svc      *v1.Service
		fields   []string
		hints    []string // each hint must contain this
	}{
		{"subnet1 annotation changed", nil, testService(withAnnotation(annotation.Subnet1, "ocid1.subnet.oc1.phx.new")),
			[]string{string(annotation.Subnet1)}, []string{`set it back to "` + testSubnet1 + `"`}},
		{"subnet2 annotation added to a one-subnet load balancer", oneSubnet, testService(withAnnotation(annotation.Subnet2, "ocid1.subnet.oc1.phx.new")),
			[]string{string(annotation.Subnet2)}, []string{"remove it"}},
		{"public to internal", nil, testService(withAnnotation(annotation.Internal, "true"), withAnnotation(annotation.Subnet1, testSubnet1)),
			[]string{string(annotation.Internal)}, []string{`set it back to "false"`}},
		{"reserved IP added after create", nil, testService(func(s *v1.Service) { s.Spec.LoadBalancerIP = "192.0.2.10" }),
			[]string{"spec.loadBalancerIP"}, []string{"remove spec.loadBalancerIP"}},
		{"flexible to fixed shape", nil, testService(withAnnotation(annotation.Shape, "100Mbps")),
			[]string{string(annotation.Shape)}, []string{`set it back to "flexible"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			observed := tc.observed
			if observed == nil {
				observed = asObserved(base)
			}
			_, err := Diff(observed, mustDesired(t, tc.svc, nodes(1), nil))
			var ierr *ImmutableError
			if !errors.As(err, &ierr) {
				t.Fatalf("Diff error %v, want an *ImmutableError", err)
			}
			var fields []string
			for i, c := range ierr.Changes {
				fields = append(fields, c.Field)
				if i < len(tc.hints) && (!strings.Contains(c.Hint, tc.hints[i]) || !strings.Contains(c.Hint, "delete and recreate the Service")) {
					t.Errorf("hint %q does not say %q and how to recreate", c.Hint, tc.hints[i])
				}
			}
			if diff := cmp.Diff(tc.fields, fields); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
			for _, f := range tc.fields {
				if !strings.Contains(err.Error(), f) {
					t.Errorf("error %q does not name %s", err, f)
				}
			}
		})
	}
}

func TestErrorsTruncateTheValuesTheyEcho(t *testing.T) {
	huge := strings.Repeat("x", 10240)
	const maxLen = 1024 // a few values, field names and hints; never the 10 KB value
	tests := []struct {
		name string
		svc  *v1.Service
	}{
		{"shape", testService(withAnnotation(annotation.Shape, huge))},
		{"label selector", testService(withAnnotation(annotation.NodeLabelSelector, "a="+huge+"!"))},
		{"ports list item", testService(withAnnotation(annotation.SSLPorts, huge))},
		{"network security groups", testService(withAnnotation(annotation.NetworkSecurityGroups, "ocid1.x."+huge))},
		{"freeform tags", testService(withAnnotation(annotation.InitialFreeformTags, "{"+huge))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Desired(tc.svc, nodes(1), testConfig(), Known{})
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("Desired error %v, want a *ValidationError", err)
			}
			if msg := err.Error(); len(msg) > maxLen || !strings.Contains(msg, fmt.Sprintf("(%d bytes)", len(tc.svc.Annotations[firstKey(tc.svc.Annotations)]))) {
				t.Errorf("error of %d bytes (want at most %d, naming the value's length): %.300s…", len(msg), maxLen, msg)
			}
		})
	}

	base := mustDesired(t, testService(), nodes(1), nil)
	subnet := "ocid1.subnet.oc1.phx." + huge
	_, err := Diff(asObserved(base), mustDesired(t, testService(withAnnotation(annotation.Subnet1, subnet)), nodes(1), nil))
	if err == nil || len(err.Error()) > maxLen {
		t.Errorf("immutable error of %d bytes, want at most %d", len(fmt.Sprint(err)), maxLen)
	}
}

func firstKey(m map[string]string) string {
	for k := range m {
		return k
	}
	return ""
}

func TestDesiredRefusesMoreListenersThanOCIAllows(t *testing.T) {
	ports := func(n int) []v1.ServicePort {
		var out []v1.ServicePort
		for i := range n {
			out = append(out, tcpPort(fmt.Sprintf("p%d", i), int32(8000+i), int32(30000+i)))
		}
		return out
	}
	if _, err := Desired(testService(withPorts(ports(16)...)), nodes(1), testConfig(), Known{}); err != nil {
		t.Fatalf("16 ports: %v", err)
	}
	_, err := Desired(testService(withPorts(ports(17)...)), nodes(1), testConfig(), Known{})
	var verr *ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("17 ports: error %v, want a *ValidationError", err)
	}
	var got []*Problem
	for _, p := range verr.Problems {
		if p.Field == "spec.ports" {
			got = append(got, p)
		}
	}
	if len(got) != 1 || !strings.Contains(got[0].Value, "8000") || !strings.Contains(got[0].Value, "8016") || !strings.Contains(got[0].Allowed, "16") {
		t.Errorf("problems %v, want one for spec.ports naming the ports and the limit of 16", verr.Problems)
	}
}
