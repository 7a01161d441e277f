// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

const otherCompartment = "ocid1.compartment.oc1..other"

func asNLBService(s *v1.Service) { s.Annotations[string(annotation.LoadBalancerType)] = "nlb" }

func TestCompartmentAnnotationPlacesBothKindsAndIsNotDefaulted(t *testing.T) {
	for _, tc := range []struct {
		name  string
		value string
		want  string
	}{
		{"compartment", otherCompartment, otherCompartment},
		{"spaces around it", " " + otherCompartment + " ", otherCompartment},
		{"root compartment (the tenancy)", "ocid1.tenancy.oc1..root", "ocid1.tenancy.oc1..root"},
		{"the configured one, named", testCompartment, testCompartment},
	} {
		for _, kind := range []model.Kind{model.KindLoadBalancer, model.KindNetworkLoadBalancer} {
			t.Run(tc.name+"/"+string(kind), func(t *testing.T) {
				svc := testService(withAnnotation(annotation.CompartmentID, tc.value))
				if kind == model.KindNetworkLoadBalancer {
					asNLBService(svc)
				}
				got := mustDesired(t, svc, nodes(1), nil)
				if got.Kind != kind || got.CompartmentID != tc.want || got.Defaulted.Compartment {
					t.Errorf("Desired: kind %s, compartment %q, defaulted %v; want %s, %q, false", got.Kind, got.CompartmentID, got.Defaulted.Compartment, kind, tc.want)
				}
			})
		}
	}
	if got := mustDesired(t, testService(), nodes(1), nil); got.CompartmentID != testCompartment || !got.Defaulted.Compartment {
		t.Errorf("without the annotation: compartment %q, defaulted %v; want the configured %q, defaulted", got.CompartmentID, got.Defaulted.Compartment, testCompartment)
	}
}

func TestCompartmentAnnotationThatIsNoCompartmentOCIDIsRefused(t *testing.T) {
	for _, value := range []string{"", "prod", "ocid1.vcn.oc1.phx.aaaa", "ocid1.compartment"} {
		t.Run(value, func(t *testing.T) {
			_, err := Desired(testService(withAnnotation(annotation.CompartmentID, value)), nodes(1), testConfig(), Known{})
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Desired = %v, want a *ValidationError", err)
			}
			if len(ve.Problems) != 1 || ve.Problems[0].Field != string(annotation.CompartmentID) || ve.Problems[0].Value != value ||
				!strings.Contains(ve.Problems[0].Allowed, "ocid1.compartment.") {
				t.Errorf("problems = %v, want one naming %s, %q and the OCID form allowed", ve.Problems, annotation.CompartmentID, value)
			}
		})
	}
}

func TestChangedCompartmentIsRefusedAndPlansNothing(t *testing.T) {
	for _, tc := range []struct {
		name     string
		observed string // the existing load balancer's compartment
		svc      *v1.Service
		want     string // the compartment the Service asks for
	}{
		{"annotated after create", testCompartment, testService(withAnnotation(annotation.CompartmentID, otherCompartment)), otherCompartment},
		{"annotation changed", "ocid1.compartment.oc1..first", testService(withAnnotation(annotation.CompartmentID, otherCompartment)), otherCompartment},
		{"configured compartment named while in another", otherCompartment, testService(withAnnotation(annotation.CompartmentID, testCompartment)), testCompartment},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := mustDesired(t, tc.svc, nodes(1), nil)
			o := asObserved(d)
			o.CompartmentID = tc.observed
			p, err := Diff(o, d)
			var ierr *ImmutableError
			if !errors.As(err, &ierr) || p != nil {
				t.Fatalf("Diff = %v, %v; want an *ImmutableError and no plan", p, err)
			}
			want := []ImmutableChange{{Field: string(annotation.CompartmentID), Observed: tc.observed, Desired: tc.want}}
			if diff := cmp.Diff(want, ierr.Changes, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Hint" }, cmp.Ignore())); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
			if h := ierr.Changes[0].Hint; !strings.Contains(h, tc.observed) || !strings.Contains(h, "change-compartment") {
				t.Errorf("hint %q does not say to set it back to %s or to move the load balancer", h, tc.observed)
			}
		})
	}
}

// A Service that names no compartment keeps its load balancer wherever it is: adopted from
// another compartment, moved there by hand, or left there when the annotation was removed.
func TestUnannotatedServiceKeepsItsLoadBalancersCompartment(t *testing.T) {
	d := mustDesired(t, testService(), nodes(1), nil)
	o := asObserved(d)
	o.CompartmentID = otherCompartment
	p, err := Diff(o, d)
	if err != nil {
		t.Fatalf("Diff: %v", err)
	}
	if !p.Empty() || p.Target.CompartmentID != otherCompartment {
		t.Errorf("plan %s, target compartment %q; want empty, %q", p, p.Target.CompartmentID, otherCompartment)
	}
}
