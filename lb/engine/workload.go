// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"context"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/lb/oci/loadbalancer"
	"github.com/oci-ccm/oci-ccm/lb/oci/nlb"
)

// A Service annotated annotation.WorkloadServiceAccount has its load balancer read and written
// as the OKE workload identity of that ServiceAccount, as the upstream CCM does
// (load_balancer.go, getLoadBalancerProvider). lb knows nothing of Kubernetes tokens: the caller
// hands it the clients for a ServiceAccount (Options.WorkloadClients), and every call of the
// Service's load balancer goes through them, with a driver (name index, applier) of their own,
// since the workload may see other compartments than the CCM. Everything else (subnets, NSGs,
// reserved IPs, security rules) stays the CCM's.

// WorkloadClients are the clients that make a Service's load balancer calls as a ServiceAccount's
// workload identity (see Options.WorkloadClients).
type WorkloadClients struct {
	// LoadBalancers calls the Load Balancer API as the workload. Required.
	LoadBalancers loadbalancer.Client
	// NetworkLoadBalancers calls the Network Load Balancer API as the workload; without it a
	// network load balancer Service of this ServiceAccount gets an error.
	NetworkLoadBalancers nlb.Client
}

// workloadServiceAccount returns the ServiceAccount svc's load balancer calls are made as, ""
// for the CCM itself, and whether the annotation is set (an empty value is set, and invalid).
func workloadServiceAccount(svc *v1.Service) (string, bool) {
	v, ok := svc.Annotations[string(annotation.WorkloadServiceAccount)]
	return strings.TrimSpace(v), ok
}

// driversFor returns the drivers svc's load balancer calls go through: the Reconciler's own, or
// those of its workload identity, built on first use and kept per namespace and ServiceAccount.
func (r *Reconciler) driversFor(ctx context.Context, svc *v1.Service) (map[model.Kind]*driver, error) {
	sa, ok := workloadServiceAccount(svc)
	if !ok {
		return r.drivers, nil
	}
	if sa == "" {
		return nil, &lb.ValidationError{Service: svc.Namespace + "/" + svc.Name, Problems: []*lb.Problem{
			problemf(annotation.WorkloadServiceAccount, "", "the name of a ServiceAccount in the Service's namespace; "+
				"remove the annotation to call OCI as the CCM")}}
	}
	if r.workloadClients == nil {
		return nil, fmt.Errorf("lb: %s/%s asks for workload identity (%s: %s), and this Reconciler has no Options.WorkloadClients",
			svc.Namespace, svc.Name, annotation.WorkloadServiceAccount, sa)
	}
	key := svc.Namespace + "/" + sa
	r.mu.Lock()
	drivers := r.workloads[key]
	r.mu.Unlock()
	if drivers != nil {
		return drivers, nil
	}
	c, err := r.workloadClients(ctx, svc.Namespace, sa)
	if err != nil {
		return nil, fmt.Errorf("workload identity of ServiceAccount %s (annotation %s): %w", key, annotation.WorkloadServiceAccount, err)
	}
	if c == nil || c.LoadBalancers == nil {
		return nil, fmt.Errorf("lb: Options.WorkloadClients gave no load balancer client for ServiceAccount %s", key)
	}
	drivers = map[model.Kind]*driver{model.KindLoadBalancer: newDriver(loadbalancer.New(c.LoadBalancers), r.opts, r.lag)}
	if c.NetworkLoadBalancers != nil {
		drivers[model.KindNetworkLoadBalancer] = newDriver(nlb.New(c.NetworkLoadBalancers), r.opts, r.lag)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if kept := r.workloads[key]; kept != nil { // another Service of the account came first
		return kept, nil
	}
	r.workloads[key] = drivers
	return drivers, nil
}

// driverFor is the driver of kind among svc's drivers (driversFor).
func (r *Reconciler) driverFor(ctx context.Context, svc *v1.Service, kind model.Kind) (*driver, error) {
	drivers, err := r.driversFor(ctx, svc)
	if err != nil {
		return nil, err
	}
	if e := drivers[kind]; e != nil {
		return e, nil
	}
	if _, ok := workloadServiceAccount(svc); ok {
		return nil, fmt.Errorf("lb: no client for %s load balancers as the workload identity of %s/%s (set WorkloadClients.NetworkLoadBalancers)",
			kind, svc.Namespace, svc.Annotations[string(annotation.WorkloadServiceAccount)])
	}
	return nil, fmt.Errorf("lb: no client for %s load balancers (set Options.NetworkLoadBalancers)", kind)
}

// ownDriver reports whether e is one of the Reconciler's own drivers, not a workload's.
func (r *Reconciler) ownDriver(e *driver) bool { return r.drivers[e.p.Kind()] == e }
