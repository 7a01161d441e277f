// Package lb turns Kubernetes Services of type LoadBalancer into OCI load balancers.
//
// The core is pure and works on values:
//
//	Service + Nodes + Config + Secrets ──► Desired ──► Spec (desired)
//	OCI load balancer ───────────────────► Observe ──► Spec (observed)
//	(observed, desired) ─────────────────► Diff ─────► Plan (typed, ordered changes)
//
// and the edge talks to OCI through a narrow Client interface (satisfied by
// *ociclient.LoadBalancerClient):
//
//	Plan ──► applier.Apply ──► one CreateLoadBalancer, or a dependency graph of changes
//
// Reconciler ties them together for a cloud provider: Ensure, Delete and Get are one-line
// forwards from cloudprovider.LoadBalancer. Custom controllers can call Desired, Diff and
// Plan.String without touching OCI (see the example).
//
// Every annotation is a typed Annotation constant whose doc comment is its documentation;
// README.md's reference table is generated from them.
package lb

//go:generate go run ../internal/docgen -dir .
