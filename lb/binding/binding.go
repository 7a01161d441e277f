// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package binding

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/oci-ccm/oci-ccm/lb/model"
)

// TargetType says what a binding's backends are.
type TargetType string

// The target types.
const (
	// TargetNode: each eligible Node's InternalIP and the Service's NodePort (NodeTargets);
	// kube-proxy forwards to the pods.
	TargetNode TargetType = "node"
	// TargetIP: each pod's IP and the target port (EndpointTargets), for VCN-native pod
	// networking, where pods have VCN addresses the load balancer reaches directly.
	TargetIP TargetType = "ip"
)

// Binding names the backend set a binding keeps and the settings of the backends it adds.
type Binding struct {
	// Name says who binds (for example "namespace/name" of the custom resource); errors and logs
	// carry it.
	Name string
	// LoadBalancerID is the OCID of a classic load balancer (ocid1.loadbalancer.…) or of a
	// network load balancer (ocid1.networkloadbalancer.…); the API is told from it.
	LoadBalancerID string
	// BackendSet is the name of the backend set; it must exist.
	BackendSet string

	// Weight is the load-balancing weight of each backend the binding adds, 1 to 100; zero is
	// OCI's default, 1.
	Weight int
	// Backup marks the backends as backups: they get traffic only when the others fail their
	// health checks (not with the classic API's IP_HASH policy).
	Backup bool
	// MaxConnections caps each backend's simultaneous connections (classic load balancers only;
	// at least 256); zero is unlimited.
	MaxConnections int
	// Subset says the targets are interchangeable (Nodes, which forward to every Pod): when
	// OCI's backend limits, less everyone else's backends, cannot take them all, Sync keeps a
	// stable subset spread over the targets' places (Target.Place), as a Service's load balancer
	// does, instead of refusing. Without it (Pods) too many targets are refused.
	Subset bool
}

// kind is the load balancer's API, from its OCID.
func (b Binding) kind() (model.Kind, bool) {
	switch {
	case strings.HasPrefix(b.LoadBalancerID, "ocid1.loadbalancer."):
		return model.KindLoadBalancer, true
	case strings.HasPrefix(b.LoadBalancerID, "ocid1.networkloadbalancer."):
		return model.KindNetworkLoadBalancer, true
	}
	return "", false
}

// validate says what is wrong with b, or "".
func (b Binding) validate() string {
	kind, ok := b.kind()
	switch {
	case !ok:
		return "the load balancer OCID is neither ocid1.loadbalancer.… nor ocid1.networkloadbalancer.…"
	case b.BackendSet == "":
		return "no backend set named"
	case b.Weight < 0 || b.Weight > 100:
		return fmt.Sprintf("weight %d is outside 1–100 (0 for OCI's default)", b.Weight)
	case b.MaxConnections != 0 && kind == model.KindNetworkLoadBalancer:
		return "maxConnections is a classic load balancer's setting; a network load balancer has none"
	case b.MaxConnections != 0 && b.MaxConnections < 256:
		return fmt.Sprintf("maxConnections %d is below OCI's minimum of 256 (0 for unlimited)", b.MaxConnections)
	}
	return ""
}

// Target is an address and port Kubernetes wants in the backend set.
type Target struct {
	IP   string
	Port int
	// Drain is set for a terminating pod that still serves: the load balancer sends it no new
	// connections and lets the open ones finish.
	Drain bool
	// Place is where the target is, for a subset to spread over (NodeTargets gives a Node's zone
	// and fault domain); targets without one share one place.
	Place string
}

// Name is the backend's name, "ip:port", as OCI names a backend given by address.
func (t Target) Name() string { return backendKey(t.IP, t.Port) }

// backendKey is "ip:port" with the address in its canonical form, so that two spellings of one
// IPv6 address are one backend.
func backendKey(ip string, port int) string {
	return canonicalIP(ip) + ":" + strconv.Itoa(port)
}

// canonicalIP spells an address in its canonical form; anything unparsable as it is.
func canonicalIP(ip string) string {
	if a, err := netip.ParseAddr(ip); err == nil {
		return a.String()
	}
	return ip
}

// splitName splits an "ip:port" name at its last colon.
func splitName(name string) (ip string, port int) {
	i := strings.LastIndexByte(name, ':')
	if i < 0 {
		return name, 0
	}
	port, _ = strconv.Atoi(name[i+1:])
	return name[:i], port
}

// Health is a backend's health as OCI's health checks report it.
type Health string

// The health values of both APIs (loadbalancer.BackendHealthStatusEnum and its
// networkloadbalancer twin).
const (
	HealthOK       Health = "OK"
	HealthWarning  Health = "WARNING"
	HealthCritical Health = "CRITICAL"
	HealthUnknown  Health = "UNKNOWN"
)

// Result is what a Sync did.
type Result struct {
	// Change is the last plan: the set's backends after it (len(Backends) is their number), the
	// backends the binding owns after it, and what it added, removed and updated. Keep Owned for
	// the next Sync or Release, also when an error is returned.
	Change
	// WorkRequest is the OCID of the work request waited for; "" when nothing was written.
	WorkRequest string
	// Reads and Writes count the calls made to OCI, work-request polls aside (ociclient's
	// retries of one call count once).
	Reads, Writes int
	// Replans counts the plans made again after a stale ETag (412) or a busy network load
	// balancer.
	Replans int
	// Eligible is the number of targets given; when Binding.Subset made Sync keep fewer, the
	// binding's backends are a subset of them (len(Owned) < Eligible).
	Eligible int
	// Subnets are the load balancer's subnets and HealthCheckPort the port the set's health
	// checker probes (0: each backend's own port), as read: what the security rules that let the
	// load balancer reach the backends need. Empty when Sync failed before it read them.
	Subnets         []string
	HealthCheckPort int
}
