// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package instances answers the Kubernetes cloud-provider questions about Nodes on OCI: which
// compute instance a Node is, its addresses, shape, zone, region and labels, and whether it still
// exists or is shut down.
//
// Its central promise is that a Node is only reported gone when OCI has proven it: the instance
// is TERMINATED/TERMINATING, or GetInstance answered 404 and a fresh listing of every
// compartment the instance is known to live in (the Node's CompartmentAnnotation, or where this
// process last read it) does not hold it. Every other failure (5xx, 429, timeouts, an ambiguous
// NotAuthorizedOrNotFound from a missing IAM policy, a 404 for an instance whose compartment is
// unknown) is returned as an error, because the cloud-provider framework deletes a Node at once
// when told it does not exist.
//
// A Node with a providerID is read by ID (GetInstance, its own VNIC attachments, its primary
// VNIC), so it costs the same whatever the size of its compartment. ociclient caches the reads
// of InstanceMetadata; InstanceExists and InstanceShutdown read the instance fresh.
// See README.md for the lookup order, the call counts and the rule for "gone".
package instances

import (
	"context"
	"errors"
	"fmt"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	v1 "k8s.io/api/core/v1"
	utilcache "k8s.io/apimachinery/pkg/util/cache"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/ociclient"
)

// Compute is the part of ociclient.Compute this package calls.
type Compute interface {
	GetInstance(ctx context.Context, id string) (core.Instance, error)
	ListInstances(ctx context.Context, compartmentID string) ([]core.Instance, error)
	// ListInstancesFresh must answer from a listing that began after the call did: only such
	// a listing's lack of an instance is taken as the instance's absence.
	ListInstancesFresh(ctx context.Context, compartmentID string) ([]core.Instance, error)
	ListVnicAttachments(ctx context.Context, compartmentID, instanceID string) ([]core.VnicAttachment, error)
	// InvalidateCompartment drops the cached listings (instances and VNIC attachments) of a
	// compartment, so the next ones are fresh. A Node that matches nothing, or only a terminated
	// instance, is looked for again after it: its instance may be newer than the listings, and a
	// reused name must not resolve to the old instance. Required, not optional: without it that
	// Node would be reported gone on a stale listing's word.
	InvalidateCompartment(compartmentID string)
}

// FreshInstanceGetter is an optional interface of a Compute, implemented by
// *ociclient.ComputeClient. InstanceExists and InstanceShutdown read an instance with
// GetInstanceFresh when the Compute has it, because the node lifecycle controller asks them about
// a NotReady Node, which is when its instance may just have gone; GetInstanceFresh must answer
// from a read that began after the call did, never from a cache. A Compute without it is read
// with GetInstance for those answers too, so its GetInstance must then not cache. (Optional so
// that Computes written against v0.1.0 keep compiling.)
type FreshInstanceGetter interface {
	GetInstanceFresh(ctx context.Context, id string) (core.Instance, error)
}

// VirtualNetwork is the part of ociclient's VirtualNetworkClient this package calls.
type VirtualNetwork interface {
	GetVnic(ctx context.Context, id string) (core.Vnic, error)
	// SubnetForIP returns the subnet of the VCN in the compartment whose CIDR holds ip, or an
	// error wrapping ociclient.ErrNoSubnetForIP (see Subnets).
	SubnetForIP(ctx context.Context, compartmentID, vcnID, ip string) (core.Subnet, error)
}

// Options configure Instances.
type Options struct {
	// Compute and VirtualNetwork are the OCI clients, normally an *ociclient.Client's fields.
	// They should cache reads: this package calls them once per Node per question.
	Compute        Compute
	VirtualNetwork VirtualNetwork
	// CompartmentID is the compartment the cluster's instances live in (config's compartment).
	// Nodes without a providerID are searched for here, and an instance's absence from it is
	// what confirms that the instance is gone.
	CompartmentID string
	// VCNID is the cluster's VCN (config's vcn); Subnets looks addresses up among its subnets in
	// CompartmentID first. Empty means every subnet of the compartment.
	VCNID string
	// Consistency, if set, counts each 404 NotAuthorizedOrNotFound from GetInstance re-checked
	// with a fresh listing before it is believed (component "instances", reason
	// ociclient.ConsistencyAmbiguousNotFound). ccm passes its Metrics when it implements
	// ociclient.ConsistencyObserver.
	Consistency ociclient.ConsistencyObserver
	// Region is the region the clients talk to. Compute APIs are regional, so every instance
	// they return is in this region. A short code such as "phx" is turned into its canonical
	// name ("us-phoenix-1"), which is what Node region labels carry.
	Region string
}

// Instances implements cloudprovider.InstancesV2 for OCI. It is safe for concurrent use; the
// framework calls it from several workers at once.
type Instances struct {
	compute       Compute
	network       VirtualNetwork
	compartmentID string
	vcnID         string
	region        string

	// homes remembers the compartment each instance was last read in (instance OCID →
	// compartment OCID), so that "absent from its compartment" means the right compartment.
	// Entries expire homeTTL after the last read and are swept, so churn does not grow it.
	homes *utilcache.Expiring
	// consistency counts the 404s re-checked (Options.Consistency); nil counts none.
	consistency ociclient.ConsistencyObserver
}

var _ cloudprovider.InstancesV2 = (*Instances)(nil)

// New returns Instances for the options, or an error naming every missing option.
func New(opts Options) (*Instances, error) {
	var errs []error
	if opts.Compute == nil {
		errs = append(errs, errors.New("Options.Compute is nil"))
	}
	if opts.VirtualNetwork == nil {
		errs = append(errs, errors.New("Options.VirtualNetwork is nil"))
	}
	if opts.CompartmentID == "" {
		errs = append(errs, errors.New("Options.CompartmentID is empty"))
	}
	if opts.Region == "" {
		errs = append(errs, errors.New("Options.Region is empty"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("instances: %w", err)
	}
	return &Instances{
		compute:       opts.Compute,
		network:       opts.VirtualNetwork,
		compartmentID: opts.CompartmentID,
		vcnID:         opts.VCNID,
		// The SDK's table maps short codes to canonical names; known names return as they are.
		region: LabelValue(string(common.StringToRegion(opts.Region))),
		homes:  utilcache.NewExpiring(),

		consistency: opts.Consistency,
	}, nil
}

// InstanceExists reports whether the Node's instance still exists. It returns false with a nil
// error only when the instance is TERMINATED or TERMINATING, or proven absent: a 404 from
// GetInstance and absence from a fresh listing of every compartment the instance is known to
// live in. Any other failure, including a 404 for an instance whose compartment is unknown and a
// Node without providerID that matches no instance, is returned as an error, never as "does not
// exist". The instance is read fresh (GetInstanceFresh, or fresh listings for a Node without
// providerID), never taken from a cache: the question is asked when the instance may just have
// gone.
func (i *Instances) InstanceExists(ctx context.Context, node *v1.Node) (bool, error) {
	logger := klog.FromContext(ctx)
	inst, by, err := i.lookup(ctx, node, true)
	if errors.Is(err, errConfirmedAbsent) {
		id, _ := ParseProviderID(node.Spec.ProviderID) // only providerID lookups confirm absence
		logger.Info("Instance confirmed absent; reporting that the Node's instance does not exist",
			"node", klog.KObj(node), "instance", id, "reason", err.Error())
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if isTerminated(inst.LifecycleState) {
		logger.Info("Instance is terminated; reporting that the Node's instance does not exist",
			"node", klog.KObj(node), "instance", deref(inst.Id), "state", inst.LifecycleState, "foundBy", by)
		return false, nil
	}
	logger.V(4).Info("Instance exists", "node", klog.KObj(node), "instance", deref(inst.Id),
		"state", inst.LifecycleState, "foundBy", by)
	return true, nil
}

// InstanceShutdown reports whether the Node's instance is shut down: true for STOPPED and
// STOPPING. An instance that cannot be found is an error wrapping cloudprovider.InstanceNotFound.
// Like InstanceExists, it reads the instance fresh.
func (i *Instances) InstanceShutdown(ctx context.Context, node *v1.Node) (bool, error) {
	inst, by, err := i.lookup(ctx, node, true)
	if err != nil {
		return false, err
	}
	shutdown := isShutdown(inst.LifecycleState)
	klog.FromContext(ctx).V(4).Info("Instance shutdown check", "node", klog.KObj(node),
		"instance", deref(inst.Id), "state", inst.LifecycleState, "shutdown", shutdown, "foundBy", by)
	return shutdown, nil
}

// InstanceMetadata returns the Node's provider ID, instance type (the shape), addresses (from the
// primary VNIC), zone (the availability domain without its tenancy prefix), region and the fault
// domain label. Every value is valid where Kubernetes puts it. Its reads may come from
// ociclient's caches.
func (i *Instances) InstanceMetadata(ctx context.Context, node *v1.Node) (*cloudprovider.InstanceMetadata, error) {
	inst, by, err := i.lookup(ctx, node, false)
	if err != nil {
		return nil, err
	}
	vnic, err := i.primaryVNIC(ctx, inst)
	if err != nil {
		return nil, err
	}
	md := metadata(inst, vnic, i.region)
	klog.FromContext(ctx).V(4).Info("Instance metadata", "node", klog.KObj(node), "instance", deref(inst.Id),
		"foundBy", by, "zone", md.Zone, "instanceType", md.InstanceType, "addresses", md.NodeAddresses)
	return md, nil
}

// metadata assembles what InstanceMetadata returns from an instance and its primary VNIC.
func metadata(inst core.Instance, primary core.Vnic, region string) *cloudprovider.InstanceMetadata {
	md := &cloudprovider.InstanceMetadata{
		ProviderID:    ProviderID(deref(inst.Id)),
		InstanceType:  LabelValue(deref(inst.Shape)),
		NodeAddresses: nodeAddresses(primary),
		Zone:          Zone(deref(inst.AvailabilityDomain)),
		Region:        region,
	}
	if fd := LabelValue(deref(inst.FaultDomain)); fd != "" {
		md.AdditionalLabels = map[string]string{FaultDomainLabel: fd}
	}
	return md
}

func isTerminated(s core.InstanceLifecycleStateEnum) bool {
	return s == core.InstanceLifecycleStateTerminated || s == core.InstanceLifecycleStateTerminating
}

func isShutdown(s core.InstanceLifecycleStateEnum) bool {
	return s == core.InstanceLifecycleStateStopped || s == core.InstanceLifecycleStateStopping
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// CompartmentAnnotation is the Node annotation naming the compartment of the Node's instance
// (OKE sets it). It tells which compartment's listing can confirm that the instance is gone.
const CompartmentAnnotation = "oci.oraclecloud.com/compartment-id"
