// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/core"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cloudproviderapi "k8s.io/cloud-provider/api"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// initialNodes are the Nodes registered at the start, one per seeded instance of the default
// tenancy. extraInstance joins later.
var initialNodes = []string{"node-1", "node-2", "node-3"}

// nodeFacts is what the cloud-node controller should have written on a Node.
type nodeFacts struct {
	ProviderID    string
	Zone          string
	Region        string
	InstanceType  string
	InternalIP    string
	ExternalIP    string
	Uninitialized bool
}

// observedFacts reads nodeFacts from a Node.
func observedFacts(n *corev1.Node) nodeFacts {
	f := nodeFacts{
		ProviderID:   n.Spec.ProviderID,
		Zone:         n.Labels[corev1.LabelTopologyZone],
		Region:       n.Labels[corev1.LabelTopologyRegion],
		InstanceType: n.Labels[corev1.LabelInstanceTypeStable],
	}
	for _, a := range n.Status.Addresses {
		switch a.Type {
		case corev1.NodeInternalIP:
			f.InternalIP = a.Address
		case corev1.NodeExternalIP:
			f.ExternalIP = a.Address
		}
	}
	for _, taint := range n.Spec.Taints {
		if taint.Key == cloudproviderapi.TaintExternalCloudProvider {
			f.Uninitialized = true
		}
	}
	return f
}

// wantFacts derives nodeFacts for the Node of a seeded instance from the tenancy and from OCI.
func (s *suite) wantFacts(ctx context.Context, t *testing.T, name string) nodeFacts {
	t.Helper()
	id, ok := s.oci.seeded.Instances[name]
	if !ok {
		t.Fatalf("no seeded instance %s", name)
	}
	idx := slices.IndexFunc(s.tenancy.Instances, func(i ocitest.TenancyInstance) bool { return i.Name == name })
	if idx < 0 {
		t.Fatalf("no instance %s in the tenancy", name)
	}
	inst := s.tenancy.Instances[idx]
	private, public, err := s.oci.instanceAddresses(ctx, id)
	if err != nil {
		t.Fatalf("addresses of %s: %v", name, err)
	}
	// The zone is the availability domain without its tenancy prefix ("Uocm:PHX-AD-1" →
	// "PHX-AD-1"): ':' is not allowed in a label value.
	_, zone, _ := strings.Cut(inst.AvailabilityDomain, ":")
	return nodeFacts{
		ProviderID: "oci://" + id, Zone: zone, Region: s.oci.seeded.Region, InstanceType: inst.Shape,
		InternalIP: private, ExternalIP: public,
	}
}

// waitInitialised waits until the cloud-node controller has initialised the Node as want says.
func (s *suite) waitInitialised(t *testing.T, name string, want nodeFacts) {
	t.Helper()
	eventually(t, s.ctx, convergeTimeout, "Node "+name+" initialised by the CCM", func(ctx context.Context) (bool, string, error) {
		node, err := s.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		diff := cmp.Diff(want, observedFacts(node))
		return diff == "", "(-want +got):\n" + diff, nil
	})
}

// testNodesInitialised: Nodes registered by kubelets with --cloud-provider=external are
// initialised by the cloud-node controller: providerID, zone, region and instance-type labels,
// internal and external addresses, and the uninitialized taint removed.
func testNodesInitialised(t *testing.T, s *suite) {
	for _, name := range initialNodes {
		if err := createNode(s.ctx, s.kube, name, "", corev1.ConditionTrue); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range initialNodes {
		s.waitInitialised(t, name, s.wantFacts(s.ctx, t, name))
	}
}

// kubeletStartup stands for the seconds a real kubelet stays NotReady after registering (until
// its network plugin is up). It is not a deadline: the scenario only needs the CCM to have
// finished with the new Node before the Node turns Ready, as it has in a real cluster.
const kubeletStartup = 3 * time.Second

// testNodeAddedAndRemoved: a Node that joins becomes a backend of every load balancer once it is
// Ready, and one that is deleted stops being one.
//
// The Node joins as a kubelet does: registered NotReady (with its --node-ip address), initialised
// by the CCM, Ready a little later. The service controller re-syncs load balancers when a Node is
// added or its providerID changes, never when it turns Ready (KEP-3458), so a provider that
// leaves NotReady Nodes out must see the Node again some other way.
func testNodeAddedAndRemoved(t *testing.T, s *suite) {
	want := s.wantFacts(s.ctx, t, extraInstance)
	events, err := serviceEvents(s.ctx, s.kube, testNamespace, "web")
	if err != nil {
		t.Fatal(err)
	}
	syncsBefore := eventCount(events, "UpdatedLoadBalancer")
	if err := createNode(s.ctx, s.kube, extraInstance, want.InternalIP, corev1.ConditionFalse); err != nil {
		t.Fatal(err)
	}
	s.waitInitialised(t, extraInstance, want)
	eventually(t, s.ctx, convergeTimeout, "the service controller updated web's backends for the new Node", func(ctx context.Context) (bool, string, error) {
		events, err := serviceEvents(ctx, s.kube, testNamespace, "web")
		if err != nil {
			return false, "", err
		}
		return eventCount(events, "UpdatedLoadBalancer") > syncsBefore, describeEvents(events), nil
	})
	select {
	case <-time.After(kubeletStartup):
	case <-s.ctx.Done():
		t.Fatal(s.ctx.Err())
	}
	if err := setNodeReady(s.ctx, s.kube, extraInstance, corev1.ConditionTrue); err != nil {
		t.Fatal(err)
	}
	s.waitLBConverged(t, testNamespace, "web", func(backends []string) error {
		return requireAddress(backends, want.InternalIP, true)
	})

	if err := s.kube.CoreV1().Nodes().Delete(s.ctx, extraInstance, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	s.waitLBConverged(t, testNamespace, "web", func(backends []string) error {
		return requireAddress(backends, want.InternalIP, false)
	})
}

// requireAddress checks whether a backend list ("ip:port") holds ip.
func requireAddress(backends []string, ip string, present bool) error {
	has := slices.ContainsFunc(backends, func(b string) bool { return strings.HasPrefix(b, ip+":") })
	if has != present {
		return fmt.Errorf("backend %s present=%v, want %v", ip, has, present)
	}
	return nil
}

// testInstanceTerminated: the Node of a terminated instance is deleted by the node lifecycle
// controller (which only looks at Nodes that are not Ready, as after a kubelet stops reporting).
func testInstanceTerminated(t *testing.T, s *suite) {
	const name = "node-3"
	if err := setNodeReady(s.ctx, s.kube, name, corev1.ConditionUnknown); err != nil {
		t.Fatal(err)
	}
	if err := s.oci.setInstanceState(s.ctx, s.oci.seeded.Instances[name], core.InstanceLifecycleStateTerminated); err != nil {
		t.Fatal(err)
	}
	eventually(t, s.ctx, nodeDeletionTimeout, "Node "+name+" deleted", func(ctx context.Context) (bool, string, error) {
		node, err := s.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, "deleted", nil
		}
		if err != nil {
			return false, "", err
		}
		return false, fmt.Sprintf("still there: conditions %v", node.Status.Conditions), nil
	})
}

// nodeDeletionTimeout bounds how long a terminated instance's Node may live on: the CCM caches
// instance listings for a minute, and the lifecycle controller looks every five seconds.
const nodeDeletionTimeout = 3 * time.Minute

// outageDuration is how long OCI fails every call in testOCIOutage.
const outageDuration = time.Minute

// testOCIOutage: while OCI answers every call with 500 or 503 for a minute, no Node is deleted
// (an error is not an absence), and a Service changed during the outage converges once OCI is
// back.
func testOCIOutage(t *testing.T, s *suite) {
	const notReady = "node-2"
	if err := setNodeReady(s.ctx, s.kube, notReady, corev1.ConditionFalse); err != nil {
		t.Fatal(err)
	}
	nodesBefore, err := s.kube.CoreV1().Nodes().List(s.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	before, err := s.oci.calls(s.ctx)
	if err != nil {
		t.Fatal(err)
	}

	// Half the calls get a 500, the rest a 503 (a call takes the oldest fault that fires).
	for _, f := range []fault{{Status: 500, Probability: 0.5}, {Status: 503}} {
		if _, err := s.oci.injectFault(s.ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	outageEnded := false
	endOutage := func() {
		if !outageEnded {
			outageEnded = true
			if err := s.oci.clearFaults(context.WithoutCancel(s.ctx)); err != nil {
				t.Errorf("clear faults: %v", err)
			}
		}
	}
	defer endOutage()

	if err := updateService(s.ctx, s.kube, testNamespace, "web", func(svc *corev1.Service) {
		svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{
			Name: "extra", Port: 9090, TargetPort: svc.Spec.Ports[0].TargetPort, Protocol: corev1.ProtocolTCP,
		})
	}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-time.After(outageDuration):
	case <-s.ctx.Done():
		t.Fatal(s.ctx.Err())
	}
	during, err := s.oci.calls(s.ctx)
	if err != nil {
		t.Fatal(err)
	}
	endOutage()
	outage := during.Since(before)
	t.Logf("OCI calls during the outage:\n%s\nfaulted %d", outage, outage.Faulted())
	// The lifecycle controller asks about NotReady Nodes every --node-monitor-period; unless
	// those questions reached OCI (and failed), "no Node deleted" would prove nothing.
	if outage.Op("ListInstances")+outage.Op("GetInstance") == 0 {
		t.Fatal("no instance was read during the outage, so the outage did not test Node deletion")
	}

	nodesAfter, err := s.kube.CoreV1().Nodes().List(s.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(nodeNames(nodesBefore.Items), nodeNames(nodesAfter.Items)); diff != "" {
		t.Errorf("Nodes changed during the outage (-before +after):\n%s", diff)
	}

	s.waitLBConvergedWithin(t, recoveryTimeout, testNamespace, "web", nil)
	if err := setNodeReady(s.ctx, s.kube, notReady, corev1.ConditionTrue); err != nil {
		t.Fatal(err)
	}
}

// nodeNames returns the names of the Nodes not being deleted.
func nodeNames(nodes []corev1.Node) []string {
	var out []string
	for _, n := range nodes {
		if n.DeletionTimestamp == nil {
			out = append(out, n.Name)
		}
	}
	slices.Sort(out)
	return out
}

// outsideInstances are the instances seeded in outsideCompartment, which the CCM may not read:
// the first for a Node without the compartment annotation, the second for one that has it.
var outsideInstances = []string{"outside-1", "outside-2"}

// compartmentAnnotation is the Node annotation (OKE sets it) naming the compartment of the
// Node's instance. Spelt out rather than imported: the suite shares no code with the CCM.
const compartmentAnnotation = "oci.oraclecloud.com/compartment-id"

// lifecycleChecks is how many times the restarted CCM's node lifecycle controller must have
// asked about each foreign Node, and been refused by OCI, before the scenario rests its case.
const lifecycleChecks = 3

// foreignNodeTimeout bounds the wait for those checks: leader election after the restart (at
// most the 15 s lease) and lifecycleChecks rounds of --node-monitor-period (5 s).
const foreignNodeTimeout = 2 * time.Minute

// foreignNode is a Node of ForeignNodeSurvivesRestart.
type foreignNode struct {
	name, instance string
	// compartment is the value of compartmentAnnotation, "" for none.
	compartment string
}

// testForeignNodeSurvivesRestart: a NotReady Node whose instance lives in a compartment the IAM
// policy does not cover is not deleted by a CCM that has just restarted (no cache, no memory of
// where the instance lives). GetInstance answers 404 NotAuthorizedOrNotFound there, exactly as
// for a deleted instance, so the node lifecycle controller must get an error, never "does not
// exist". The same holds with the Node annotated with its compartment: the listing of that
// compartment that could prove the instance gone is refused too.
func testForeignNodeSurvivesRestart(t *testing.T, s *suite) {
	outside := s.oci.seeded.Compartments[outsideCompartment]
	if outside == "" {
		t.Fatalf("compartment %s was not seeded: %v", outsideCompartment, s.oci.seeded.Compartments)
	}
	nodes := []foreignNode{
		{name: "foreign", instance: outsideInstances[0]},
		{name: "foreign-annotated", instance: outsideInstances[1], compartment: outside},
	}
	defer func() {
		for _, n := range nodes {
			err := s.kube.CoreV1().Nodes().Delete(context.WithoutCancel(s.ctx), n.name, metav1.DeleteOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("delete Node %s: %v", n.name, err)
			}
		}
	}()
	for _, n := range nodes {
		if err := createForeignNode(s.ctx, s, n); err != nil {
			t.Fatal(err)
		}
	}

	// A restart: the new process knows nothing of where these instances live.
	s.ccm.stop()
	denialsBefore, err := s.oci.denials(s.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ccm.start(s.ctx); err != nil {
		t.Fatal(err)
	}
	log := s.ccm.current().LogPath()

	// Wait until every Node was asked about lifecycleChecks times by the new CCM, each question
	// reached OCI (a refused GetInstance of its instance) and ended in an error the lifecycle
	// controller logged. A Node deleted meanwhile ends the wait at once.
	var gone []string
	eventually(t, s.ctx, foreignNodeTimeout, fmt.Sprintf("%d refused lifecycle checks of each foreign Node by the restarted CCM", lifecycleChecks),
		func(ctx context.Context) (bool, string, error) {
			denials, err := s.oci.denials(ctx)
			if err != nil {
				return false, "", err
			}
			denials = denials[min(len(denialsBefore), len(denials)):]
			data, err := os.ReadFile(log)
			if err != nil {
				return false, "", err
			}
			done, state := true, ""
			gone = nil
			for _, n := range nodes {
				if _, err := s.kube.CoreV1().Nodes().Get(ctx, n.name, metav1.GetOptions{}); apierrors.IsNotFound(err) {
					gone = append(gone, n.name)
				} else if err != nil {
					return false, "", err
				}
				refused := deniedOn(denials, "GetInstance", s.oci.seeded.Instances[n.instance])
				failed := len(existsErrors(string(data), n.name))
				done = done && refused >= lifecycleChecks && failed >= lifecycleChecks
				state += fmt.Sprintf("Node %s: GetInstance refused %d times, lifecycle check errors logged %d\n", n.name, refused, failed)
			}
			return done || len(gone) > 0, state, nil
		})
	if len(gone) > 0 {
		t.Fatalf("Nodes %v were deleted although their instances are running (their compartment is only unreadable); the CCMs logged:\n%s",
			gone, strings.Join(s.deletionLines(t, gone...), "\n"))
	}
	if lines := s.deletionLines(t, nodeNamesOf(nodes)...); len(lines) > 0 {
		t.Errorf("the lifecycle controller decided to delete foreign Nodes:\n%s", strings.Join(lines, "\n"))
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		errs := existsErrors(string(data), n.name)
		t.Logf("Node %s (annotation %q) survived; its last lifecycle check failed with:\n%s", n.name, n.compartment, errs[len(errs)-1])
	}
	// The annotated Node's check listed its compartment to settle the 404, and was refused.
	denials, err := s.oci.denials(s.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := deniedOn(denials[min(len(denialsBefore), len(denials)):], "ListInstances", outside); got == 0 {
		t.Errorf("no ListInstances of the annotated compartment %s was refused: the annotated Node's absence was not checked where its instance lives", outside)
	}
}

// createForeignNode registers a Node for an instance the CCM may not read, as a kubelet that has
// run for a while and then stopped reporting: providerID set, no uninitialized taint, Ready
// Unknown. It is excluded from load balancers, so that only the lifecycle controller asks
// about it.
func createForeignNode(ctx context.Context, s *suite, n foreignNode) error {
	id, ok := s.oci.seeded.Instances[n.instance]
	if !ok {
		return fmt.Errorf("no seeded instance %s", n.instance)
	}
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: n.name, Labels: map[string]string{
			corev1.LabelHostname: n.name, corev1.LabelNodeExcludeBalancers: "true",
		}},
		Spec: corev1.NodeSpec{ProviderID: "oci://" + id},
	}
	if n.compartment != "" {
		node.Annotations = map[string]string{compartmentAnnotation: n.compartment}
	}
	if _, err := s.kube.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create node %s: %w", n.name, err)
	}
	return setNodeReady(ctx, s.kube, n.name, corev1.ConditionUnknown)
}

// deniedOn counts the refused calls of an operation on one resource (an OCID, or a compartment
// for a listing).
func deniedOn(denials []ocitest.Denial, op, resource string) int {
	n := 0
	for _, d := range denials {
		if d.Operation == op && d.Resource == resource {
			n++
		}
	}
	return n
}

// existsErrors returns the log lines in which cloud-provider's node lifecycle controller reports
// that it could not tell whether the Node's instance exists (and so left the Node alone).
func existsErrors(log, node string) []string {
	return logLines(log, "error checking if node "+node+" exists:")
}

// deletionLines returns the lines of every CCM log so far in which the node lifecycle controller
// decides to delete one of the named Nodes.
func (s *suite) deletionLines(t *testing.T, names ...string) []string {
	t.Helper()
	var out []string
	for _, p := range s.ccm.procs {
		data, err := os.ReadFile(p.LogPath())
		if err != nil {
			t.Errorf("read %s: %v", p.LogPath(), err)
			continue
		}
		for _, line := range logLines(string(data), "deleting node since it is no longer present in cloud provider: ") {
			if slices.ContainsFunc(names, func(n string) bool { return strings.HasSuffix(line, ": "+n) }) {
				out = append(out, p.LogPath()+": "+line)
			}
		}
	}
	return out
}

func nodeNamesOf(nodes []foreignNode) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, n.name)
	}
	return out
}

func logLines(log, substr string) []string {
	var out []string
	for line := range strings.Lines(log) {
		if strings.Contains(line, substr) {
			out = append(out, strings.TrimSpace(line))
		}
	}
	return out
}
