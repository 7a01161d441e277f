package ccm

import (
	"context"
	"encoding/json"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/internal/drift"
	"github.com/oci-ccm/oci-ccm/lb"
)

// AnnotationDriftRequeued is stamped on a Service whose load balancer drifted (changed or deleted
// out of band) with the time of the check: the annotation change makes the service controller
// reconcile the Service, as AnnotationSecretsHash does for Secrets.
const AnnotationDriftRequeued = "oci-ccm.github.io/drift-requeued"

// runDrift checks the load balancers for drift every Options.DriftCheckPeriod until ctx ends.
func (c *Cloud) runDrift(ctx context.Context) {
	if c.cfg.LoadBalancer.Disabled || c.driftPeriod < 0 {
		return
	}
	checker, err := lb.NewDriftChecker(lb.DriftOptions{Config: c.cfg, Lister: c.oci.LoadBalancers, Cluster: c.cluster})
	if err == nil {
		var loop *drift.Loop
		loop, err = drift.New(drift.Options{Checker: checker, Secrets: c.watch, Requeue: c.requeueDrifted, Period: c.driftPeriod,
			Services: func() ([]*v1.Service, error) { return c.watch.services.List(labels.Everything()) },
			Nodes: func(ctx context.Context) ([]*v1.Node, error) {
				nodes, err := c.watch.nodes.List(labels.Everything())
				return c.withAddresses(ctx, drift.ServiceControllerNodes(nodes)), err // as ensure sees them
			}})
		if err == nil {
			loop.Run(ctx)
			return
		}
	}
	klog.FromContext(ctx).Error(err, "Drift check not started")
}

// requeueDrifted stamps the Service and records a Warning Event saying what drifted.
func (c *Cloud) requeueDrifted(ctx context.Context, namespace, name, reason string) error {
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{
		AnnotationDriftRequeued: time.Now().UTC().Format(time.RFC3339Nano)}}})
	svc, err := c.kube.CoreV1().Services(namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil {
		return ignoreNotFound(err)
	}
	if c.events != nil {
		c.events.Eventf(svc, v1.EventTypeWarning, "LoadBalancerDrift", "Load balancer changed outside Kubernetes (%s); reconciling it", reason)
	}
	return nil
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil // deleted meanwhile: nothing to reconcile
	}
	return err
}
