// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"context"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/lb/oci/loadbalancer"
	"github.com/oci-ccm/oci-ccm/lb/oci/nlb"
)

// A Service annotated annotation.WorkloadServiceAccount has its load balancer read and written
// as the OKE workload identity of that ServiceAccount, as the upstream CCM does
// (load_balancer.go, getLoadBalancerProvider). lb knows nothing of Kubernetes tokens: the caller
// hands it the clients for a ServiceAccount (Options.WorkloadClients), and every call of the
// Service's load balancer goes through them, with an engine (name index, applier) of their own,
// since the workload may see other compartments than the CCM. Everything else (subnets, NSGs,
// reserved IPs, security rules) stays the CCM's.

// WorkloadClients are the clients that make a Service's load balancer calls as a ServiceAccount's
// workload identity (see Options.WorkloadClients).
type WorkloadClients struct {
	// LoadBalancers calls the Load Balancer API as the workload. Required.
	LoadBalancers Client
	// NetworkLoadBalancers calls the Network Load Balancer API as the workload; without it a
	// network load balancer Service of this ServiceAccount gets an error.
	NetworkLoadBalancers NetworkLoadBalancers
}

// workloadServiceAccount returns the ServiceAccount svc's load balancer calls are made as, ""
// for the CCM itself, and whether the annotation is set (an empty value is set, and invalid).
func workloadServiceAccount(svc *v1.Service) (string, bool) {
	v, ok := svc.Annotations[string(annotation.WorkloadServiceAccount)]
	return strings.TrimSpace(v), ok
}

// enginesFor returns the engines svc's load balancer calls go through: the Reconciler's own, or
// those of its workload identity, built on first use and kept per namespace and ServiceAccount.
func (r *Reconciler) enginesFor(ctx context.Context, svc *v1.Service) (map[model.Kind]*engine, error) {
	sa, ok := workloadServiceAccount(svc)
	if !ok {
		return r.engines, nil
	}
	if sa == "" {
		return nil, &ValidationError{Service: svc.Namespace + "/" + svc.Name, Problems: []*Problem{
			problemf(annotation.WorkloadServiceAccount, "", "the name of a ServiceAccount in the Service's namespace; "+
				"remove the annotation to call OCI as the CCM")}}
	}
	if r.workloadClients == nil {
		return nil, fmt.Errorf("lb: %s/%s asks for workload identity (%s: %s), and this Reconciler has no Options.WorkloadClients",
			svc.Namespace, svc.Name, annotation.WorkloadServiceAccount, sa)
	}
	key := svc.Namespace + "/" + sa
	r.mu.Lock()
	engines := r.workloads[key]
	r.mu.Unlock()
	if engines != nil {
		return engines, nil
	}
	c, err := r.workloadClients(ctx, svc.Namespace, sa)
	if err != nil {
		return nil, fmt.Errorf("workload identity of ServiceAccount %s (annotation %s): %w", key, annotation.WorkloadServiceAccount, err)
	}
	if c == nil || c.LoadBalancers == nil {
		return nil, fmt.Errorf("lb: Options.WorkloadClients gave no load balancer client for ServiceAccount %s", key)
	}
	engines = map[model.Kind]*engine{model.KindLoadBalancer: newEngine(loadbalancer.New(c.LoadBalancers), r.opts, r.lag)}
	if c.NetworkLoadBalancers != nil {
		engines[model.KindNetworkLoadBalancer] = newEngine(nlb.New(c.NetworkLoadBalancers), r.opts, r.lag)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if kept := r.workloads[key]; kept != nil { // another Service of the account came first
		return kept, nil
	}
	r.workloads[key] = engines
	return engines, nil
}

// engineFor is the engine of kind among svc's engines (enginesFor).
func (r *Reconciler) engineFor(ctx context.Context, svc *v1.Service, kind model.Kind) (*engine, error) {
	engines, err := r.enginesFor(ctx, svc)
	if err != nil {
		return nil, err
	}
	if e := engines[kind]; e != nil {
		return e, nil
	}
	if _, ok := workloadServiceAccount(svc); ok {
		return nil, fmt.Errorf("lb: no client for %s load balancers as the workload identity of %s/%s (set WorkloadClients.NetworkLoadBalancers)",
			kind, svc.Namespace, svc.Annotations[string(annotation.WorkloadServiceAccount)])
	}
	return nil, fmt.Errorf("lb: no client for %s load balancers (set Options.NetworkLoadBalancers)", kind)
}

// ownEngine reports whether e is one of the Reconciler's own engines, not a workload's.
func (r *Reconciler) ownEngine(e *engine) bool { return r.engines[e.p.Kind()] == e }
