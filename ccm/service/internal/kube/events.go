// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package kube

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/instances"
	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/seclist"
)

// The reasons of the Events oci-ccm records on a Service beyond the service controller's own.
const (
	// EventPlanApplied says what a reconcile changed on the Service's load balancer.
	EventPlanApplied = "LoadBalancerPlanApplied"
	// EventPlanAccepted says what a node sync planned, which OCI accepted but has not finished,
	// or which lb's FollowUp sends once the load balancer's queue has run (engine.Result.Accepted);
	// a failure follows as FollowUp requeues the Service.
	EventPlanAccepted = "LoadBalancerPlanAccepted"
	// EventPlanFailed says what a failed reconcile applied and what it did not.
	EventPlanFailed = "LoadBalancerPlanFailed"
	// EventDrift says the load balancer changed outside Kubernetes and is being reconciled.
	EventDrift = "LoadBalancerDrift"
	// EventUpdateFailed says backend changes OCI accepted (a node sync that returned before
	// they finished, engine.Reconciler.Update) did not take effect; the Service is reconciled again.
	EventUpdateFailed = "LoadBalancerUpdateFailed"
	// EventPending says a sync stopped waiting for OCI (engine.Options.MaxWait) and left its work
	// running in the background (engine.PendingError): what is being applied, and since when.
	EventPending = "LoadBalancerPending"
	// EventPendingDone says work left to the background ended, and how; the Service is synced
	// again, which reports the outcome.
	EventPendingDone = "LoadBalancerPendingDone"
)

// AnnotationDriftRequeued is stamped on a Service whose load balancer drifted (changed or deleted
// out of band) with the time of the check: the annotation change makes the service controller
// reconcile the Service, as AnnotationSecretsHash does for Secrets.
const AnnotationDriftRequeued = "oci-ccm.github.io/drift-requeued"

// NewRecorder returns the recorder the provider's Events go through, as component
// oci-cloud-controller-manager, until stop closes; nil without a client.
func NewRecorder(client kubernetes.Interface, stop <-chan struct{}) record.EventRecorder {
	if client == nil {
		return nil
	}
	broadcaster := record.NewBroadcaster()
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	go func() { <-stop; broadcaster.Shutdown() }()
	return broadcaster.NewRecorder(scheme.Scheme, v1.EventSource{Component: "oci-cloud-controller-manager"})
}

// RecordPlan puts engine.Summary of an applied (or partly applied) plan on the Service as an Event:
// Normal when it was applied or accepted, Warning when it failed. An empty plan records nothing.
func RecordPlan(events record.EventRecorder, svc *v1.Service, res *engine.Result, err error) {
	var plan *model.Plan
	if res != nil {
		plan = res.Plan
	}
	msg := engine.Summary(plan, err)
	switch {
	case msg == "" || events == nil:
	case err != nil:
		events.Event(svc, v1.EventTypeWarning, EventPlanFailed, msg)
	case res.Accepted:
		events.Event(svc, v1.EventTypeNormal, EventPlanAccepted, msg)
	default:
		events.Event(svc, v1.EventTypeNormal, EventPlanApplied, msg)
	}
}

// RequeueDrifted returns what internal/drift calls for a drifted Service: it stamps the Service
// with AnnotationDriftRequeued (see Requeue) and records a Warning Event saying what drifted. A
// Service gone meanwhile is nothing to reconcile.
func RequeueDrifted(client kubernetes.Interface, services func(namespace, name string) (*v1.Service, error), events record.EventRecorder) func(ctx context.Context, namespace, name, reason string) error {
	return requeueWithEvent(client, services, events, v1.EventTypeWarning, EventDrift, "Load balancer changed outside Kubernetes (%s); reconciling it")
}

// RequeueFailedUpdate returns what engine.Reconciler.FollowUp calls when backend changes it accepted
// (a node sync, engine.Reconciler.Update) did not take effect: the Service is requeued as a drifted
// one is, so the service controller reconciles it through EnsureLoadBalancer (which waits for
// its work requests), with a Warning Event saying what failed.
func RequeueFailedUpdate(client kubernetes.Interface, services func(namespace, name string) (*v1.Service, error), events record.EventRecorder) func(ctx context.Context, namespace, name, reason string) error {
	return requeueWithEvent(client, services, events, v1.EventTypeWarning, EventUpdateFailed, "Load balancer update accepted by OCI did not take effect (%s); reconciling it again")
}

// RecordPending records an EventPending on svc when err is an engine.PendingError, and returns it.
func RecordPending(events record.EventRecorder, svc *v1.Service, err error) (*engine.PendingError, bool) {
	var pe *engine.PendingError
	if !errors.As(err, &pe) {
		return nil, false
	}
	if events != nil {
		events.Event(svc, v1.EventTypeNormal, EventPending, cutEvent(pe.Error()))
	}
	return pe, true
}

// RequeuePendingDone returns what engine.Options.PendingDone calls when work a sync left to the
// background ends: the Service is requeued as a drifted one is, with a Normal Event saying what
// was applied, or a Warning one saying how it failed.
func RequeuePendingDone(client kubernetes.Interface, services func(namespace, name string) (*v1.Service, error), events record.EventRecorder) func(ctx context.Context, namespace, name, applied string, err error) error {
	done := requeueWithEvent(client, services, events, v1.EventTypeNormal, EventPendingDone, "Load balancer work left to the background finished (%s); syncing the Service")
	failed := requeueWithEvent(client, services, events, v1.EventTypeWarning, EventPendingDone, "Load balancer work left to the background failed (%s); syncing the Service again")
	return func(ctx context.Context, namespace, name, applied string, err error) error {
		if err != nil {
			if applied == "" {
				applied = err.Error()
			}
			return failed(ctx, namespace, name, cutEvent(applied))
		}
		if applied == "" {
			applied = "nothing to change"
		}
		return done(ctx, namespace, name, applied)
	}
}

// maxEventMessage is the longest Event message this package writes; the API server refuses
// messages over 1 KiB.
const maxEventMessage = 1000

// cutEvent shortens msg to fit in an Event.
func cutEvent(msg string) string {
	if len(msg) <= maxEventMessage {
		return msg
	}
	cut := maxEventMessage - len(" …")
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + " …"
}

// requeueWithEvent stamps the Service with AnnotationDriftRequeued and records an Event of
// eventType and eventReason, its message format filled with why. services looks a Service up (e.g.
// Watcher.Service); events may be nil.
func requeueWithEvent(client kubernetes.Interface, services func(namespace, name string) (*v1.Service, error), events record.EventRecorder,
	eventType, eventReason, format string) func(ctx context.Context, namespace, name, reason string) error {
	return func(ctx context.Context, namespace, name, reason string) error {
		svc, err := services(namespace, name)
		if err != nil || svc == nil {
			return nil // deleted meanwhile
		}
		if err := Requeue(ctx, client, svc, AnnotationDriftRequeued, time.Now().UTC().Format(time.RFC3339Nano)); err != nil {
			return err
		}
		if events != nil {
			events.Eventf(svc, eventType, eventReason, format, reason)
		}
		return nil
	}
}

// EventRulesAdopted says security rules without a description (left by the upstream CCM) were
// taken over for the Service (loadBalancer.adoptUndescribedRules) and are now managed with it.
const EventRulesAdopted = "SecurityRulesAdopted"

// RecordAdopted records an EventRulesAdopted on each Service that needs a rule seclist took over;
// Services not in the watcher's cache (or no watcher yet) are skipped, as the log has them too.
func RecordAdopted(events record.EventRecorder, w *Watcher, adopted []seclist.Adopted) {
	if events == nil || w == nil {
		return
	}
	per := map[types.NamespacedName][]string{}
	for _, a := range adopted {
		for _, key := range a.Services {
			per[key] = append(per[key], a.ListID+": "+a.Rule.String())
		}
	}
	for key, rules := range per {
		svc, err := w.Services().Services(key.Namespace).Get(key.Name)
		if err != nil {
			continue
		}
		msg := fmt.Sprintf("Took over %d security rule(s) without a description, now managed with this Service: %s",
			len(rules), strings.Join(rules, "; "))
		if len(msg) > 1024 {
			msg = msg[:1000] + " …"
		}
		events.Event(svc, v1.EventTypeNormal, EventRulesAdopted, msg)
	}
}

// EventNodeSubnetUnknown is the reason of the Warning Events on a Node whose subnet cannot be
// found, and on the Services it is a backend of: no security rules are managed for it.
const EventNodeSubnetUnknown = "NodeSubnetUnknown"

// RecordUnplaced logs each backend of svc left out of its security rules because its subnet
// cannot be found, with Warning Events on the Service and the Node when warn (not at start-up:
// the Service's own reconcile warns; the log is then at V(2)).
func RecordUnplaced(ctx context.Context, events record.EventRecorder, svc *v1.Service, unplaced []instances.Unplaced, warn bool) {
	logger := klog.FromContext(ctx).V(2)
	if warn {
		logger = klog.FromContext(ctx)
	}
	for _, u := range unplaced {
		logger.Info("Backend left out of security rules: its subnet cannot be found",
			"service", klog.KObj(svc), "ip", u.IP, "node", klog.KObj(u.Node), "reason", u.Err)
		if warn && events != nil {
			events.Eventf(svc, v1.EventTypeWarning, EventNodeSubnetUnknown, "Backend %s left out of the security rules: %v", u.IP, u.Err)
			if u.Node != nil {
				events.Eventf(u.Node, v1.EventTypeWarning, EventNodeSubnetUnknown, "No security rules are managed for this Node's address %s: %v", u.IP, u.Err)
			}
		}
	}
}
