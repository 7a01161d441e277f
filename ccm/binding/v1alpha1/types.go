// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// BackendSetBinding keeps the backends of one backend set of an existing OCI load balancer (one
// oci-ccm does not own: made by Terraform, shared, with listeners and certificates set up by
// someone else) in step with a Service's Nodes or Pods. It is namespaced; its Service is in its
// namespace.
type BackendSetBinding struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   BackendSetBindingSpec   `json:"spec"`
	Status BackendSetBindingStatus `json:"status,omitempty"`
}

// BackendSetBindingList is a list of BackendSetBindings.
type BackendSetBindingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []BackendSetBinding `json:"items"`
}

// BackendSetBindingSpec names the backend set and says how its backends follow the Service.
type BackendSetBindingSpec struct {
	// LoadBalancerID is the OCID of the load balancer: a classic one (ocid1.loadbalancer.…) or a
	// network load balancer (ocid1.networkloadbalancer.…). It cannot change.
	LoadBalancerID string `json:"loadBalancerID"`
	// BackendSetName is the name of the backend set on that load balancer whose backends the
	// binding keeps. It must exist; the binding never creates, renames or deletes it. It cannot
	// change.
	BackendSetName string `json:"backendSetName"`
	// ServiceRef is the Service, in the binding's namespace, whose Nodes or Pods become backends.
	ServiceRef ServiceReference `json:"serviceRef"`
	// TargetType says what a backend is: TargetTypeNode (the default) or TargetTypeIP. It cannot
	// change.
	TargetType TargetType `json:"targetType,omitempty"`
	// Weight is every backend's weight (1–100); unset leaves OCI's default (1).
	Weight *int32 `json:"weight,omitempty"`
	// Backup marks the backends as backups, which get traffic only when no primary backend is
	// healthy (a classic load balancer refuses it with the IP_HASH policy).
	Backup bool `json:"backup,omitempty"`
	// MaxConnections caps each backend's connections (classic load balancers only; 256 or more);
	// unset means no cap.
	MaxConnections *int32 `json:"maxConnections,omitempty"`
	// NodeSelector narrows, for target type node, the Nodes that become backends to those it
	// matches (besides the rules every load balancer's Nodes follow); nil selects every eligible
	// Node. Past OCI's backend limits (512 per set) the binding keeps a stable subset of them,
	// spread over zones and fault domains, as a Service's load balancer does.
	NodeSelector *metav1.LabelSelector `json:"nodeSelector,omitempty"`
	// DeletionPolicy says what deleting the binding does to the backends it added:
	// DeletionPolicyRemove (the default) removes exactly those, DeletionPolicyKeep leaves them.
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`
}

// ServiceReference names a Service of the binding's namespace and one of its ports.
type ServiceReference struct {
	// Name is the Service's name.
	Name string `json:"name"`
	// Port is the Service port, by number (spec.ports[].port) or by name. With target type node
	// the backends' port is its nodePort; with ip, its targetPort on each Pod.
	Port intstr.IntOrString `json:"port"`
}

// TargetType is what a binding's backends are.
type TargetType string

const (
	// TargetTypeNode makes every eligible Node a backend at the Service port's nodePort, chosen
	// as for a load balancer Service of type LoadBalancer (the exclusion label and the
	// configured node selector apply).
	TargetTypeNode TargetType = "node"
	// TargetTypeIP makes every ready Pod of the Service a backend at its IP and the port's
	// targetPort: for VCN-native Pod networking, where Pod IPs are reachable in the VCN. A
	// terminating Pod is drained before it is removed.
	TargetTypeIP TargetType = "ip"
)

// DeletionPolicy says what deleting a binding does to its backends.
type DeletionPolicy string

const (
	// DeletionPolicyRemove removes the backends the binding added, and nothing else.
	DeletionPolicyRemove DeletionPolicy = "Remove"
	// DeletionPolicyKeep leaves every backend as it is.
	DeletionPolicyKeep DeletionPolicy = "Keep"
)

// BackendSetBindingStatus is what the controller last saw and did.
type BackendSetBindingStatus struct {
	// ObservedGeneration is the generation of the spec the status describes.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Backends is the number of backends in the backend set, the binding's and any other.
	Backends int32 `json:"backends,omitempty"`
	// OwnedBackends are the backends ("ip:port", OCI's backend names) the binding added and
	// keeps: the only ones it changes or removes. A backend that was in the set before the
	// binding is never its own.
	OwnedBackends []string `json:"ownedBackends,omitempty"`
	// Conditions are ConditionReady and ConditionDegraded.
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// The condition types of a binding's status.
const (
	// ConditionReady is True when the backend set holds exactly the backends the binding wants.
	ConditionReady = "Ready"
	// ConditionDegraded is True when the binding cannot do what it should (the load balancer or
	// backend set cannot be read or written, another binding or a Service owns it, a limit is
	// reached); its message says why.
	ConditionDegraded = "Degraded"
)

// ReadinessGatePrefix starts the condition type of a Pod readiness gate that waits for a
// binding's backend to be healthy: ReadinessGatePrefix + the binding's name. A Pod of an ip
// binding that lists the gate in spec.readinessGates is ready only once OCI reports its backend
// healthy, so a rolling update never takes away the last healthy backend.
const ReadinessGatePrefix = "target-health.oci-ccm.github.io/"
