// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/internal/lookup"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// A Service may name the compartment of its load balancer (annotation.CompartmentID), as the
// upstream CCM allows for both kinds (upstream CCM v1.35.0,
// pkg/cloudprovider/providers/oci/load_balancer_spec.go, getLoadBalancerCompartment, read by
// NewLBSpec; load_balancer.go looks the load balancer up with GetLoadBalancerByName in that
// compartment in EnsureLoadBalancer, UpdateLoadBalancer, GetLoadBalancer and
// EnsureLoadBalancerDeleted, and creates it there).
//
// Upstream looks only in the compartment the annotation names now, so a changed annotation makes
// it create a second load balancer in the new compartment and leave the first one, which its
// deletion then never finds. oci-ccm instead looks in the named compartment, then in the one its
// load balancer was recorded in (annotation.LoadBalancerCompartmentID, which ccm writes, so this
// holds across restarts), then in the configured one (where the Service's load balancer was made
// before it was annotated); a load balancer found outside the compartment the Service names is
// refused as an immutable change (Diff), not moved or replaced. OCI can move one
// (ChangeLoadBalancerCompartment, ChangeNetworkLoadBalancerCompartment), but a move needs
// "manage" in both compartments and changes who may see and pay for it: a person's decision.
// Once moved, the Service finds it in the compartment it names.

// compartment sets spec's compartment from annotation.CompartmentID, else the configured one
// (Defaulted.Compartment).
func (d *desiredBuilder) compartment(spec *model.Spec) {
	spec.CompartmentID, spec.Defaulted.Compartment = d.cfg.CompartmentID, true
	if !d.p.has(annotation.CompartmentID) {
		return
	}
	v := d.p.str(annotation.CompartmentID, "")
	if !lookup.CompartmentOK(v) {
		d.p.add(problemf(annotation.CompartmentID, d.p.ann[string(annotation.CompartmentID)],
			"a compartment OCID (ocid1.compartment.…), or the tenancy OCID (ocid1.tenancy.…) for the root compartment; "+
				"remove it for the configured compartment"))
		return
	}
	spec.CompartmentID, spec.Defaulted.Compartment = v, false
}
