// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package instances

import (
	"net/http"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2/ktesting"

	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// faultNoPolicy is what OCI answers when an IAM policy is missing: 404 NotAuthorizedOrNotFound,
// the same answer as for a resource that does not exist. "" matches every read.
func faultNoPolicy(op string) ocitest.Fault {
	return ocitest.Fault{Operation: op, Class: ocitest.ClassRead, Status: http.StatusNotFound, Code: "NotAuthorizedOrNotFound"}
}

// TestExistsNeverReportsGoneOnFaults is the bug users hit with the upstream CCM: Nodes deleted
// after transient errors or a missing IAM policy. Under each fault, applied to every matching
// call, InstanceExists must not return (false, nil) for any kind of Node, including one whose
// instance really is gone: without a successful listing, absence is not confirmed.
func TestExistsNeverReportsGoneOnFaults(t *testing.T) {
	faults := []struct {
		name      string
		fault     ocitest.Fault
		retryable bool // what ociclient.IsRetryable must say of the error, so callers requeue
		// listOnly: the fault hits only listings, which a Node with a providerID whose
		// instance is live never needs: that one must be found, not made an error.
		listOnly bool
	}{
		{"100% 500 on reads", ocitest.Fault{Class: ocitest.ClassRead, Status: http.StatusInternalServerError}, true, false},
		{"100% 503 on reads", ocitest.Fault{Class: ocitest.ClassRead, Status: http.StatusServiceUnavailable}, true, false},
		{"100% 429 on reads", ocitest.Fault{Class: ocitest.ClassRead, Status: http.StatusTooManyRequests}, true, false},
		{"100% 429 with Retry-After on reads", ocitest.Fault{Class: ocitest.ClassRead, Status: http.StatusTooManyRequests, RetryAfter: "0"}, true, false},
		{"connections dropped", ocitest.Fault{Class: ocitest.ClassRead, DropConnection: true}, true, false},
		{"ambiguous 404 on every read (missing policy)", faultNoPolicy(""), false, false},
		{"ambiguous 404 on ListInstances (missing inspect policy)", faultNoPolicy("ListInstances"), false, true},
		{"500 on ListInstances only", ocitest.Fault{Operation: "ListInstances", Status: http.StatusInternalServerError}, true, true},
	}
	subjects := []struct {
		name     string
		node     func(e *env) *v1.Node
		readByID bool // a live instance named by providerID
	}{
		{"listed instance", func(e *env) *v1.Node { return nodeFor(e.addInstance("node-a", nil)) }, true},
		{"removed instance", func(e *env) *v1.Node {
			inst := e.addInstance("node-a", nil)
			e.srv.RemoveInstance(*inst.Id)
			return withCompartment(nodeFor(inst), e.compartment) // its compartment is known
		}, false},
		{"node without providerID, by name", func(e *env) *v1.Node {
			e.addInstance("node-a", nil)
			return namedNode("node-a")
		}, false},
		{"node without providerID, by IP", func(e *env) *v1.Node {
			inst := e.addInstance("node-a", nil)
			return namedNode(*e.srv.InstanceVNICs(*inst.Id)[0].PrivateIp)
		}, false},
	}
	for _, f := range faults {
		for _, s := range subjects {
			t.Run(f.name+"/"+s.name, func(t *testing.T) {
				_, ctx := ktesting.NewTestContext(t)
				e := newEnv(t, envOptions{})
				node := s.node(e)
				e.srv.InjectFault(f.fault)

				exists, err := e.inst.InstanceExists(ctx, node)
				if f.listOnly && s.readByID {
					if !exists || err != nil {
						t.Errorf("InstanceExists = %v, %v; want true, nil: a live instance read by ID needs no listing", exists, err)
					}
					return
				}
				if err == nil {
					t.Fatalf("InstanceExists = %v, nil; want an error (calls: %v)", exists, e.srv.Calls())
				}
				if got := ociclient.IsRetryable(err); got != f.retryable {
					t.Errorf("IsRetryable(%v) = %v, want %v", err, got, f.retryable)
				}
				if _, err := e.inst.InstanceShutdown(ctx, node); err == nil {
					t.Errorf("InstanceShutdown succeeded under the fault")
				}
				if _, err := e.inst.InstanceMetadata(ctx, node); err == nil {
					t.Errorf("InstanceMetadata succeeded under the fault")
				}
			})
		}
	}
}

// A get that answers the ambiguous 404 does not outweigh a fresh listing that still holds the
// instance.
func TestAmbiguousNotFoundOnGetWhileListedMeansExists(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	e := newEnv(t, envOptions{})
	node := nodeFor(e.addInstance("node-a", nil))
	e.srv.InjectFault(faultNoPolicy("GetInstance"))
	e.srv.ResetCalls()

	if exists, err := e.inst.InstanceExists(ctx, node); !exists || err != nil {
		t.Errorf("InstanceExists = %v, %v; want true, nil", exists, err)
	}
	if c := e.srv.Calls(); c.Op("GetInstance") != 1 || c.Op("ListInstances") != 1 {
		t.Errorf("calls = %v; want one GetInstance (404) and one ListInstances", c)
	}
}

// A VNIC that cannot be read might be the Node's, so a by-IP lookup that matched nothing else
// must not conclude anything.
func TestUnreadableVNICKeepsANodeWithoutProviderIDFromBeingReportedGone(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	e := newEnv(t, envOptions{})
	inst := e.addInstance("instance-1", nil)
	ip := *e.srv.InstanceVNICs(*inst.Id)[0].PrivateIp
	e.srv.InjectFault(ocitest.Fault{Operation: "GetVnic", Status: http.StatusInternalServerError})

	if exists, err := e.inst.InstanceExists(ctx, namedNode(ip)); err == nil {
		t.Errorf("InstanceExists = %v, nil; want an error", exists)
	}
}

// One failed call is retried by ociclient and never reaches the answer.
func TestATransientFaultIsRetriedAway(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	e := newEnv(t, envOptions{})
	node := nodeFor(e.addInstance("node-a", nil))
	e.srv.InjectFault(ocitest.Fault{Operation: "GetInstance", Status: http.StatusInternalServerError, Times: 1})

	if exists, err := e.inst.InstanceExists(ctx, node); !exists || err != nil {
		t.Errorf("InstanceExists = %v, %v; want true, nil", exists, err)
	}
	if got := e.srv.Calls().Op("GetInstance"); got != 2 {
		t.Errorf("GetInstance calls = %d, want 2 (one failed, one retry)", got)
	}
}
