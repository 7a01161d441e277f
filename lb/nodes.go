package lb

import (
	"net/netip"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// NodeExclusion says why a Node is not a backend. Desired records exclusions so a controller can
// log or report them; they are not errors.
type NodeExclusion struct {
	Node   string
	Reason string
}

// The reasons a Node is not a backend.
const (
	ReasonExcludeLabel  = "labelled " + v1.LabelNodeExcludeBalancers
	ReasonNotSelected   = "does not match " + string(AnnotationNodeLabelSelector)
	ReasonNotReady      = "not Ready"
	ReasonDeleting      = "being deleted"
	ReasonNoInternalIP  = "has no IPv4 InternalIP address"
	ReasonDuplicateAddr = "shares its InternalIP with another Node"
)

// backendNodes returns the IPv4 InternalIPs of the Nodes that serve traffic, sorted, and the
// Nodes left out with the reason. An empty result is valid: the load balancer keeps its listeners
// with empty backend sets (the upstream CCM panicked here).
func backendNodes(nodes []*v1.Node, selector labels.Selector) ([]string, []NodeExclusion) {
	var ips []string
	var excluded []NodeExclusion
	seen := map[string]bool{}
	for _, n := range nodes {
		if n == nil {
			continue
		}
		reason := ""
		switch {
		case hasLabel(n, v1.LabelNodeExcludeBalancers):
			reason = ReasonExcludeLabel
		case selector != nil && !selector.Matches(labels.Set(n.Labels)):
			reason = ReasonNotSelected
		case n.DeletionTimestamp != nil:
			reason = ReasonDeleting
		case !isReady(n):
			reason = ReasonNotReady
		}
		ip := ""
		if reason == "" {
			if ip = internalIPv4(n); ip == "" {
				reason = ReasonNoInternalIP
			} else if seen[ip] {
				reason = ReasonDuplicateAddr
			}
		}
		if reason != "" {
			excluded = append(excluded, NodeExclusion{Node: n.Name, Reason: reason})
			continue
		}
		seen[ip] = true
		ips = append(ips, ip)
	}
	slices.SortFunc(ips, compareIPs)
	return ips, excluded
}

func hasLabel(n *v1.Node, key string) bool {
	_, ok := n.Labels[key]
	return ok
}

// isReady is true when the Node's Ready condition is True. A Node without conditions (just
// registered) is not ready.
func isReady(n *v1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == v1.NodeReady {
			return c.Status == v1.ConditionTrue
		}
	}
	return false
}

// internalIPv4 returns the Node's first IPv4 InternalIP address.
func internalIPv4(n *v1.Node) string {
	for _, a := range n.Status.Addresses {
		if a.Type != v1.NodeInternalIP {
			continue
		}
		if ip, err := netip.ParseAddr(a.Address); err == nil && ip.Is4() {
			return ip.String()
		}
	}
	return ""
}

// compareIPs orders addresses numerically, falling back to text for anything unparsable.
func compareIPs(a, b string) int {
	x, errX := netip.ParseAddr(a)
	y, errY := netip.ParseAddr(b)
	if errX == nil && errY == nil {
		return x.Compare(y)
	}
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
