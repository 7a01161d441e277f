// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package iampolicy_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/ccm"
	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/internal/iampolicy"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// TestMain silences klog: the reconciler logs every plan, and the minimality test runs the suite
// once per statement.
func TestMain(m *testing.M) {
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	os.Exit(m.Run())
}

// readme is the document whose policy these tests prove.
const readme = "../../seclist/README.md"

// documented returns the README's statements for dynamic group "ccm" in compartment "cluster",
// the name ocitest gives the seeded tenancy's compartment.
func documented(t *testing.T) []string {
	t.Helper()
	st, err := iampolicy.FromFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	return iampolicy.Substitute(st, "ccm", "cluster")
}

// world is the CCM (ccm.Cloud, wired as the binary wires it) against an ocitest tenancy with
// a policy loaded: the default tenancy plus a network security group for the Service to use.
type world struct {
	srv    *ocitest.Server
	seeded ocitest.Seeded
	cloud  *ccm.Cloud
	nodes  []*v1.Node
	// restart returns a new CCM over the same OCI, as a restarted process is.
	restart func() *ccm.Cloud
}

// newWorld is the world with policy loaded; compartments are further compartments of the
// tenancy, by name.
func newWorld(t *testing.T, policy []string, compartments ...string) *world {
	t.Helper()
	ten := ocitest.DefaultTenancy()
	ten.NetworkSecurityGroups = []string{"lb-nsg", "nodes-nsg"}
	ten.ReservedPublicIPs[0].IP = reservedIP
	ten.Compartments = append(ten.Compartments, compartments...)
	ten.Policy = policy
	srv := ocitest.New(ocitest.Options{WorkRequestDuration: 5 * time.Millisecond, Tenancy: &ten})
	t.Cleanup(srv.Close)
	seeded := srv.Seeded()
	creds, err := srv.NewCredentials()
	if err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{
		Auth: config.Auth{Region: srv.Region(), Tenancy: creds.TenancyID, User: creds.UserID,
			Fingerprint: creds.Fingerprint, Key: config.Secret(creds.PrivateKeyPEM)},
		CompartmentID: seeded.Compartment,
		VCNID:         seeded.VCN,
		LoadBalancer:  config.LoadBalancer{Subnet1: seeded.LoadBalancerSubnets[0], Subnet2: seeded.LoadBalancerSubnets[1]},
	}
	cfg.SetDefaults()
	provider, err := cfg.ConfigurationProvider()
	if err != nil {
		t.Fatal(err)
	}
	newCloud := func() *ccm.Cloud {
		client, err := ociclient.New(ociclient.Options{
			Provider: provider, Region: srv.Region(), Host: srv.URL(), HTTPClient: srv.HTTPClient(),
			RateLimit: config.RateLimiter{Disabled: true},
			Retry:     ociclient.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, MaxElapsed: 5 * time.Second},
			Poll:      ociclient.PollPolicy{Initial: time.Millisecond, Max: 5 * time.Millisecond, Factor: 2},
			Logger:    klog.Background().V(10),
		})
		if err != nil {
			t.Fatal(err)
		}
		cloud, err := ccm.New(cfg, ccm.Options{ClusterName: "iam-cluster", Client: client})
		if err != nil {
			t.Fatal(err)
		}
		return cloud
	}
	w := &world{srv: srv, seeded: seeded, cloud: newCloud(), restart: newCloud}
	for _, name := range []string{"node-1", "node-2", "node-3"} {
		vnics := srv.InstanceVNICs(seeded.Instances[name])
		w.nodes = append(w.nodes, &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       v1.NodeSpec{ProviderID: "oci://" + seeded.Instances[name]},
			Status: v1.NodeStatus{
				Addresses:  []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: *vnics[0].PrivateIp}},
				Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
			},
		})
	}
	return w
}

// service is a Service on one port that uses every feature the policy has a statement for: a
// reserved public IP (spec.loadBalancerIP), a network security group, managed security lists.
func (w *world) service(port int32) *v1.Service {
	return &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: types.UID("uid-web"),
			Annotations: map[string]string{
				string(annotation.NetworkSecurityGroups): w.seeded.NetworkSecurityGroups["lb-nsg"],
			}},
		Spec: v1.ServiceSpec{
			Type:           v1.ServiceTypeLoadBalancer,
			LoadBalancerIP: reservedIP,
			Ports: []v1.ServicePort{{Name: "web", Protocol: v1.ProtocolTCP, Port: port,
				TargetPort: intstr.FromInt32(8080), NodePort: 30000 + port}},
		},
	}
}

// nsgService is a Service in mode NSG whose nodes are in the tenancy's "nodes-nsg".
func (w *world) nsgService() *v1.Service {
	return &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "dns", Namespace: "default", UID: types.UID("uid-dns"),
			Annotations: map[string]string{
				string(annotation.SecurityRuleManagementMode):   "NSG",
				string(annotation.BackendNetworkSecurityGroups): w.seeded.NetworkSecurityGroups["nodes-nsg"],
			}},
		Spec: v1.ServiceSpec{
			Type: v1.ServiceTypeLoadBalancer,
			Ports: []v1.ServicePort{{Name: "dns", Protocol: v1.ProtocolTCP, Port: 53,
				TargetPort: intstr.FromInt32(53), NodePort: 30053}},
		},
	}
}

// reservedIP is the address of the tenancy's reserved public IP.
const reservedIP = "198.51.100.200"

func (w *world) instances() cloudprovider.InstancesV2 {
	i, _ := w.cloud.InstancesV2()
	return i
}

func (w *world) lbs() cloudprovider.LoadBalancer {
	l, _ := w.cloud.LoadBalancer()
	return l
}

// step is one part of the reconcile suite.
type step struct {
	name string
	run  func(ctx context.Context, w *world) error
}

// suite is what the CCM does in a cluster's life: node lookups (one of a node newer than the
// cached listing, which costs a GetInstance), a load balancer created,
// changed (port change, node added) and deleted, with its security rules kept.
var suite = []step{
	{"InstanceExists", func(ctx context.Context, w *world) error {
		ok, err := w.instances().InstanceExists(ctx, w.nodes[0])
		if err == nil && !ok {
			err = errors.New("a running instance reported as gone")
		}
		return err
	}},
	{"InstanceMetadata", func(ctx context.Context, w *world) error {
		md, err := w.instances().InstanceMetadata(ctx, w.nodes[1])
		if err == nil && len(md.NodeAddresses) == 0 {
			err = errors.New("no node addresses")
		}
		return err
	}},
	{"InstanceMetadata (node joined after the listing was cached)", func(ctx context.Context, w *world) error {
		joined := w.srv.AddInstance(ocitest.Instance{
			Instance: core.Instance{DisplayName: new("node-4"), CompartmentId: &w.seeded.Compartment},
			VNICs:    []core.Vnic{{SubnetId: new(w.seeded.Subnets["nodes"])}},
		})
		node := w.nodes[0].DeepCopy()
		node.Name, node.Spec.ProviderID = "node-4", "oci://"+*joined.Id
		_, err := w.instances().InstanceMetadata(ctx, node)
		return err
	}},
	{"EnsureLoadBalancer (create)", func(ctx context.Context, w *world) error {
		_, err := w.lbs().EnsureLoadBalancer(ctx, "iam-cluster", w.service(80), w.nodes[:2])
		return err
	}},
	{"EnsureLoadBalancer (port 80 to 8080)", func(ctx context.Context, w *world) error {
		_, err := w.lbs().EnsureLoadBalancer(ctx, "iam-cluster", w.service(8080), w.nodes[:2])
		return err
	}},
	{"UpdateLoadBalancer (node added)", func(ctx context.Context, w *world) error {
		return w.lbs().UpdateLoadBalancer(ctx, "iam-cluster", w.service(8080), w.nodes)
	}},
	{"EnsureLoadBalancerDeleted", func(ctx context.Context, w *world) error {
		return w.lbs().EnsureLoadBalancerDeleted(ctx, "iam-cluster", w.service(8080))
	}},
	{"EnsureLoadBalancer (network load balancer, UDP and TCP)", func(ctx context.Context, w *world) error {
		_, err := w.lbs().EnsureLoadBalancer(ctx, "iam-cluster", w.nlbService(), w.nodes[:2])
		return err
	}},
	{"EnsureLoadBalancerDeleted (network load balancer)", func(ctx context.Context, w *world) error {
		return w.lbs().EnsureLoadBalancerDeleted(ctx, "iam-cluster", w.nlbService())
	}},
	{"EnsureLoadBalancer (mode NSG)", func(ctx context.Context, w *world) error {
		_, err := w.lbs().EnsureLoadBalancer(ctx, "iam-cluster", w.nsgService(), w.nodes)
		return err
	}},
	{"EnsureLoadBalancerDeleted (mode NSG)", func(ctx context.Context, w *world) error {
		return w.lbs().EnsureLoadBalancerDeleted(ctx, "iam-cluster", w.nsgService())
	}},
}

// nlbService is a Service asking for a network load balancer, with a UDP and a TCP port.
func (w *world) nlbService() *v1.Service {
	return &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "dns", Namespace: "default", UID: types.UID("uid-dns"),
			Annotations: map[string]string{string(annotation.LoadBalancerType): "nlb"}},
		Spec: v1.ServiceSpec{
			Type: v1.ServiceTypeLoadBalancer,
			Ports: []v1.ServicePort{
				{Name: "dns", Protocol: v1.ProtocolUDP, Port: 53, TargetPort: intstr.FromInt32(53), NodePort: 30053},
				{Name: "web", Protocol: v1.ProtocolTCP, Port: 80, TargetPort: intstr.FromInt32(8080), NodePort: 30080},
			},
		},
	}
}

// runSuite runs the suite until a step fails and returns that step's name and error.
func runSuite(t *testing.T, w *world) (string, error) { return runSteps(t, w, suite) }

// runSteps runs steps until one fails and returns that step's name and error.
func runSteps(t *testing.T, w *world, steps []step) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, s := range steps {
		if err := s.run(ctx, w); err != nil {
			return s.name, err
		}
	}
	return "", nil
}

// TestOcitestsDefaultTenancyCarriesTheDocumentedPolicy: every test on ocitest's default tenancy
// runs under the policy this package proves sufficient and minimal, so the two must not drift.
func TestOcitestsDefaultTenancyCarriesTheDocumentedPolicy(t *testing.T) {
	if diff := cmp.Diff(documented(t), ocitest.DefaultPolicy()); diff != "" {
		t.Errorf("ocitest.DefaultPolicy differs from seclist/README.md's policy (-README +ocitest):\n%s", diff)
	}
	if diff := cmp.Diff(ocitest.DefaultPolicy(), ocitest.DefaultTenancy().Policy); diff != "" {
		t.Errorf("DefaultTenancy's policy (-want +got):\n%s", diff)
	}
}

func TestDocumentedIAMPolicyIsSufficientForTheWholeReconcileSuite(t *testing.T) {
	w := newWorld(t, documented(t))
	if step, err := runSuite(t, w); err != nil {
		t.Fatalf("%s failed under the documented policy: %v\ndenials: %+v", step, err, w.srv.Denials())
	}
	if d := w.srv.Denials(); len(d) != 0 {
		t.Errorf("calls refused under the documented policy: %+v", d)
	}
	// The suite must really have made the calls the statements are for.
	calls := w.srv.Calls()
	for _, op := range []string{"GetInstance", "ListVnicAttachments", "CreateLoadBalancer", "UpdateBackendSet",
		"UpdateSecurityList", "DeleteLoadBalancer", "GetPublicIpByIpAddress",
		ocitest.NLB("CreateNetworkLoadBalancer"), ocitest.NLB("DeleteNetworkLoadBalancer"),
		"CreateNetworkSecurityGroup", "AddNetworkSecurityGroupSecurityRules", "DeleteNetworkSecurityGroup"} {
		if calls.Op(op) == 0 {
			t.Errorf("the suite never called %s:\n%s", op, calls)
		}
	}
}

// needs says, for each documented statement (by its verb and resource type), which call fails
// first without it.
var needs = map[string]string{
	"manage load-balancers":          "ListLoadBalancers",
	"manage network-load-balancers":  ocitest.NLB("ListNetworkLoadBalancers"),
	"read instance-family":           "GetInstance",
	"read virtual-network-family":    "ListVnicAttachments",
	"use subnets":                    "CreateLoadBalancer",
	"use vnics":                      "CreateLoadBalancer",
	"manage security-lists":          "UpdateSecurityList",
	"manage network-security-groups": "CreateLoadBalancer",
	"use vcns":                       "CreateNetworkSecurityGroup",
	"use public-ips":                 "CreateLoadBalancer",
}

// grant is a statement's "<verb> <resource-type>".
func grant(t *testing.T, statement string) string {
	t.Helper()
	_, rest, ok := strings.Cut(statement, " to ")
	f := strings.Fields(rest)
	if !ok || len(f) < 2 {
		t.Fatalf("statement %q has no \"to <verb> <resource-type>\"", statement)
	}
	return f[0] + " " + f[1]
}

func TestEveryDocumentedIAMStatementIsNeeded(t *testing.T) {
	statements := documented(t)
	for i, st := range statements {
		t.Run(grant(t, st), func(t *testing.T) {
			wantOp, ok := needs[grant(t, st)]
			if !ok {
				t.Fatalf("no expectation for %q: add which call fails without it to needs", st)
			}
			w := newWorld(t, slices.Delete(slices.Clone(statements), i, i+1))
			step, err := runSuite(t, w)
			assertDenied(t, w, step, err, wantOp)
		})
	}
	for g := range needs {
		if !slices.ContainsFunc(statements, func(st string) bool { return grant(t, st) == g }) {
			t.Errorf("needs has %q, which the README no longer documents", g)
		}
	}
}

func TestWeakerVerbsThanDocumentedAreNotEnough(t *testing.T) {
	tests := []struct {
		from, to string // a documented grant and its weaker replacement
		wantOp   string
		// recovers: the suite still succeeds, because the CCM falls back to something the weaker
		// grant allows, but only after wantOp was refused (and is refused on every lookup).
		recovers bool
	}{
		{"manage security-lists", "use security-lists", "UpdateSecurityList", false},
		{"manage network-security-groups", "use network-security-groups", "CreateNetworkSecurityGroup", false},
		{"manage load-balancers", "use load-balancers", "CreateLoadBalancer", false},
		{"manage network-load-balancers", "use network-load-balancers", ocitest.NLB("CreateNetworkLoadBalancer"), false},
		// inspect allows ListInstances: a refused GetInstance falls back to a fresh listing of
		// the compartment, which finds the instance. It works, at a listing of the whole
		// compartment per lookup instead of one GetInstance: read stays in the policy.
		{"read instance-family", "inspect instance-family", "GetInstance", true},
		{"read virtual-network-family", "inspect virtual-network-family", "ListVnicAttachments", false},
	}
	for _, tt := range tests {
		t.Run(tt.to, func(t *testing.T) {
			statements := documented(t)
			i := slices.IndexFunc(statements, func(st string) bool { return grant(t, st) == tt.from })
			if i < 0 {
				t.Fatalf("the README does not grant %q", tt.from)
			}
			statements[i] = strings.Replace(statements[i], tt.from, tt.to, 1)
			w := newWorld(t, statements)
			step, err := runSuite(t, w)
			if tt.recovers && err == nil {
				denials := w.srv.Denials()
				if len(denials) == 0 || denials[0].Operation != tt.wantOp {
					t.Fatalf("the suite succeeded and the first refused call is not %s: %v", tt.wantOp, denials)
				}
				return
			}
			assertDenied(t, w, step, err, tt.wantOp)
		})
	}
}

// assertDenied requires the suite to have failed as OCI refuses a call the policy does not
// allow: 404 NotAuthorizedOrNotFound, or 400 RelatedResourceNotAuthorizedOrNotFound when what is
// not allowed is a resource the request names (a subnet, an NSG, a reserved IP); the first call
// the policy refused being wantOp.
func assertDenied(t *testing.T, w *world, step string, err error, wantOp string) {
	t.Helper()
	if err == nil {
		t.Fatalf("the whole suite succeeded; want %s refused", wantOp)
	}
	var se common.ServiceError
	refused := errors.As(err, &se) && (se.GetHTTPStatusCode() == http.StatusNotFound && se.GetCode() == "NotAuthorizedOrNotFound" ||
		se.GetHTTPStatusCode() == http.StatusBadRequest && se.GetCode() == "RelatedResourceNotAuthorizedOrNotFound")
	if !refused {
		t.Fatalf("step %s failed with %v, want 404 NotAuthorizedOrNotFound or 400 RelatedResourceNotAuthorizedOrNotFound", step, err)
	}
	denials := w.srv.Denials()
	if len(denials) == 0 {
		t.Fatalf("step %s failed with %v but ocitest refused no call", step, err)
	}
	if diff := cmp.Diff(wantOp, denials[0].Operation); diff != "" {
		t.Errorf("first refused call (-want +got): %s\nall: %s", diff, fmt.Sprint(denials))
	}
}
