// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package bench

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	restclient "k8s.io/client-go/rest"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/ccm"
	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// Scale is how much faster than real time the harness runs: OCI's durations ÷ 100.
const Scale = 0.01

// quiet is a context whose logger discards: plans applied by the thousand would flood the output.
var quiet = klog.NewContext(context.Background(), logr.Discard())

// World is one ocitest server, the real OCI client over it on a shared fast clock, a ccm.Cloud
// and a fake Kubernetes API holding the Nodes and Services.
type World struct {
	Clock  *Clock
	Srv    *ocitest.Server
	Seeded ocitest.Seeded
	OCI    *ociclient.Client
	Cloud  *ccm.Cloud
	LB     cloudprovider.LoadBalancer
	Kube   *fake.Clientset
	Nodes  []*v1.Node
	cfg    *config.Config
	stop   chan struct{}
	scale  float64 // WorldOptions.Scale
}

// WorldOptions shape a World.
type WorldOptions struct {
	// Nodes is how many instances (and Nodes) the node subnet holds.
	Nodes int
	// Durations is the work-request duration profile, in real OCI time.
	Durations ocitest.WorkRequestDurations
	// WriteQPS and ReadQPS, if set, are OCI's server-side limits (real-time calls per second).
	WriteQPS, ReadQPS float64
	// Mode is the security-list management mode ("" = All).
	Mode config.SecurityListMode
	// Services are put in the fake API before the Cloud starts (restart, storm).
	Services []*v1.Service
	// NoInformers leaves the Cloud without informers (the storm runs the service controller,
	// which brings its own).
	NoInformers bool
	// Scale is the clock's speed, as Scale (0 means Scale: 100 times faster than real time).
	Scale float64
	// RateLimit is the OCI client's own limiter (zero: the client's defaults, 5 writes/s).
	RateLimit config.RateLimiter
	// OpenNodePortRange is loadBalancer.openNodePortRange: one rule for the node port range per
	// pair of subnets in modes All and Backend (see seclist/README.md, "Past 200 rules").
	OpenNodePortRange bool
}

// tenancy is ocitest's default tenancy with n instances in a node subnet of /21 (2,043 usable
// addresses after OCI's reserved ones), or /19 for more.
func tenancy(n int) ocitest.Tenancy {
	t := ocitest.DefaultTenancy()
	t.Instances = nil
	cidr := "10.0.8.0/21"
	if n > 2000 {
		cidr = "10.0.32.0/19"
	}
	for i := range t.Subnets {
		if t.Subnets[i].Name == "nodes" {
			t.Subnets[i].CIDR = cidr
		}
	}
	for i := range t.SecurityLists {
		if t.SecurityLists[i].Name == "nodes" {
			t.SecurityLists[i].Ingress[0].CIDR = cidr
		}
	}
	for i := 1; i <= n; i++ {
		t.Instances = append(t.Instances, ocitest.TenancyInstance{
			Name: fmt.Sprintf("node-%d", i), Shape: "VM.Standard.E4.Flex",
			AvailabilityDomain: t.AvailabilityDomains[(i-1)%3], FaultDomain: fmt.Sprintf("FAULT-DOMAIN-%d", (i-1)%3+1),
			Subnet: "nodes", Self: i == 1,
		})
	}
	return t
}

// NewWorld builds a World. Close it when done.
func NewWorld(o WorldOptions) (*World, error) {
	scale := o.Scale
	if scale <= 0 {
		scale = Scale
	}
	clk := NewClock(scale)
	ten := tenancy(o.Nodes)
	srv, err := ocitest.Listen(ocitest.Options{Now: clk.Now, WorkRequestDurations: o.Durations, PageSize: 100, Tenancy: &ten})
	if err != nil {
		return nil, err
	}
	w := &World{Clock: clk, Srv: srv, stop: make(chan struct{}), scale: scale}
	seeded := srv.Seeded()
	w.Seeded = seeded
	if o.WriteQPS > 0 {
		srv.SetRateLimit(ocitest.ClassWrite, o.WriteQPS/scale, burstFor(o.WriteQPS))
	}
	if o.ReadQPS > 0 {
		srv.SetRateLimit(ocitest.ClassRead, o.ReadQPS/scale, burstFor(o.ReadQPS))
	}
	creds, err := srv.NewCredentials()
	if err != nil {
		w.Close()
		return nil, err
	}
	cfg := &config.Config{
		Auth: config.Auth{Region: srv.Region(), Tenancy: creds.TenancyID, User: creds.UserID,
			Fingerprint: creds.Fingerprint, Key: config.Secret(creds.PrivateKeyPEM)},
		ClusterID:     "bench",
		CompartmentID: seeded.Compartment,
		VCNID:         seeded.VCN,
		LoadBalancer: config.LoadBalancer{Subnet1: seeded.LoadBalancerSubnets[0], Subnet2: seeded.LoadBalancerSubnets[1],
			SecurityListManagementMode: o.Mode, OpenNodePortRange: o.OpenNodePortRange},
	}
	cfg.SetDefaults()
	w.cfg = cfg
	provider, err := cfg.ConfigurationProvider()
	if err != nil {
		w.Close()
		return nil, err
	}
	// The client's own defaults (rate limits, retries, polling), on the fast clock.
	w.OCI, err = ociclient.New(ociclient.Options{Provider: provider, Region: srv.Region(), Host: srv.URL(),
		HTTPClient: srv.HTTPClient(), Clock: clk, Logger: logr.Discard(), RateLimit: o.RateLimit})
	if err != nil {
		w.Close()
		return nil, err
	}
	for i := 1; i <= o.Nodes; i++ {
		w.Nodes = append(w.Nodes, w.node(fmt.Sprintf("node-%d", i)))
	}
	objs := make([]runtime.Object, 0, len(w.Nodes)+len(o.Services))
	for _, n := range w.Nodes {
		objs = append(objs, n)
	}
	for _, s := range o.Services {
		objs = append(objs, s)
	}
	w.Kube = fake.NewClientset(objs...)
	if err := w.newCloud(!o.NoInformers); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// newCloud builds the Cloud over the World's OCI client, as a restart would.
func (w *World) newCloud(withInformers bool) error {
	// The drift loop is off: its ticker runs on the wall clock, so a check would land in a
	// measured step at random (the storm runs its own check, see driftCheck).
	cloud, err := ccm.New(w.cfg, ccm.Options{ClusterName: "bench", Client: w.OCI, DriftCheckPeriod: -1})
	if err != nil {
		return err
	}
	w.Cloud = cloud
	cloud.Initialize(builder{w.Kube}, w.stop)
	if withInformers {
		factory := informers.NewSharedInformerFactory(w.Kube, 0)
		cloud.SetInformers(factory)
		factory.Start(w.stop)
		factory.WaitForCacheSync(w.stop)
	}
	lbs, _ := cloud.LoadBalancer()
	w.LB = resyncing{LoadBalancer: lbs, clock: w.Clock}
	return nil
}

// node is a ready Node for a seeded instance.
func (w *World) node(name string) *v1.Node {
	id := w.Seeded.Instances[name]
	vnics := w.Srv.InstanceVNICs(id)
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       v1.NodeSpec{ProviderID: "oci://" + id},
		Status: v1.NodeStatus{
			Addresses:  []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: *vnics[0].PrivateIp}},
			Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
		},
	}
}

// Close stops the informers and the server.
func (w *World) Close() {
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	w.Srv.Close()
}

// builder hands the fake clientset to the Cloud and the service controller.
type builder struct{ kube kubernetes.Interface }

func (b builder) Config(string) (*restclient.Config, error)   { return &restclient.Config{}, nil }
func (b builder) ConfigOrDie(string) *restclient.Config       { return &restclient.Config{} }
func (b builder) Client(string) (kubernetes.Interface, error) { return b.kube, nil }
func (b builder) ClientOrDie(string) kubernetes.Interface     { return b.kube }

var _ cloudprovider.ControllerClientBuilder = builder{}

// burstFor is the burst the scenarios give a limit of qps calls a second, on ocitest's side (OCI's
// limit) and the CCM's (its rateLimiter); a big-cluster phase's floor counts it.
func burstFor(qps float64) int { return max(1, int(qps)) }
