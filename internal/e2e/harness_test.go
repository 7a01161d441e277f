// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/oci-ccm/oci-ccm/internal/iampolicy"
	"github.com/oci-ccm/oci-ccm/internal/proc"
	"github.com/oci-ccm/oci-ccm/internal/testcluster"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

const (
	// ccmNamespace and ccmServiceAccount are where examples/deploy/rbac.yaml puts the CCM.
	ccmNamespace      = "kube-system"
	ccmServiceAccount = "cloud-controller-manager"
	// testNamespace holds the suite's Services and Secrets.
	testNamespace = "e2e"
	// extraInstance is the instance seeded on top of the default tenancy, for the Node that joins
	// later (NodeAddedAndRemoved).
	extraInstance = "node-4"
	// outsideCompartment is a compartment the documented IAM policy does not cover (it names only
	// the cluster's compartment): every call about its resources is refused with 404
	// NotAuthorizedOrNotFound. outsideInstances live there, in the cluster's node subnet, as
	// nodes in an instance compartment of their own do (ForeignNodeSurvivesRestart).
	outsideCompartment = "outside"
	// logTailBytes is how much of a log a failure shows.
	logTailBytes = 12 << 10
)

// suite is what the scenarios share.
type suite struct {
	ctx  context.Context
	dir  string
	kube kubernetes.Interface
	// dyn reads and writes custom resources (BackendSetBindings).
	dyn     dynamic.Interface
	oci     *ociView
	ocitest *proc.Process
	ccm     *ccmRunner
	tenancy ocitest.Tenancy
	// cluster issues ServiceAccount tokens (ChartRBAC runs the CCM as another ServiceAccount).
	cluster *testcluster.Cluster
}

// newSuite starts etcd and kube-apiserver, ocitest, applies the RBAC manifest and starts the CCM
// as its ServiceAccount. Everything is stopped when the test ends; the logs are kept (and their
// place printed) when it failed.
func newSuite(t *testing.T) *suite {
	t.Helper()
	ctx := t.Context()
	dir, err := os.MkdirTemp("", "oci-ccm-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("logs kept in %s", dir)
			return
		}
		os.RemoveAll(dir)
	})
	s := &suite{ctx: ctx, dir: dir}

	cluster, err := testcluster.Start(ctx, testcluster.Options{
		KubeAPIServer: bins.kubeAPIServer, Etcd: bins.etcd, Dir: filepath.Join(dir, "cluster"), Logf: t.Logf,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Stop)
	s.cluster = cluster
	if s.kube, err = kubernetes.NewForConfig(cluster.AdminConfig()); err != nil {
		t.Fatal(err)
	}
	if s.dyn, err = dynamic.NewForConfig(cluster.AdminConfig()); err != nil {
		t.Fatal(err)
	}

	if err := s.startOCITest(t); err != nil {
		t.Fatal(err)
	}

	if err := applyManifest(ctx, s.kube, filepath.Join(bins.root, "examples", "deploy", "rbac.yaml")); err != nil {
		t.Fatalf("apply examples/deploy/rbac.yaml: %v", err)
	}
	// The CRD is there before the CCM starts, as an operator installs it: the
	// backend-set-binding controller watches BackendSetBindings from its start.
	if err := cluster.ApplyCRD(ctx, filepath.Join(bins.root, "examples", "deploy", bindingCRDFile)); err != nil {
		t.Fatalf("apply examples/deploy/%s: %v", bindingCRDFile, err)
	}
	saConfig, err := cluster.ServiceAccountConfig(ctx, ccmNamespace, ccmServiceAccount)
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(dir, "ccm.kubeconfig")
	if err := cluster.WriteKubeconfig(kubeconfig, saConfig); err != nil {
		t.Fatal(err)
	}
	if err := createNamespace(ctx, s.kube, testNamespace); err != nil {
		t.Fatal(err)
	}

	s.ccm = &ccmRunner{dir: dir, kubeconfig: kubeconfig, cloudConfig: filepath.Join(dir, "ocitest", "cloud-provider.yaml"),
		clusterName: clusterName}
	t.Cleanup(s.ccm.stop) // registered after the cluster's, so it runs before it
	if err := s.ccm.start(ctx); err != nil {
		s.ccm.logTail(t, 0)
		t.Fatal(err)
	}
	return s
}

// runStep runs one scenario. On failure it shows the CCM's log from the step's start and the
// OCI calls made during the step; it fails the step if the CCM exited on its own meanwhile.
func (s *suite) runStep(t *testing.T, run func(*testing.T, *suite)) {
	if s.ccm.current().Crashed() {
		t.Fatalf("the CCM is not running: %v", s.ccm.current().ExitError())
	}
	logPath, offset := s.ccm.current().LogPath(), proc.Size(s.ccm.current().LogPath())
	before, err := s.oci.calls(s.ctx)
	if err != nil {
		t.Fatal(err)
	}
	deniedBefore, err := s.oci.denials(s.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if denied, err := s.oci.denials(context.WithoutCancel(s.ctx)); err != nil {
			t.Errorf("reading the calls the IAM policy refused: %v", err)
		} else if unexpected := s.unexpectedDenials(denied[min(len(deniedBefore), len(denied)):]); len(unexpected) > 0 {
			t.Errorf("calls the documented IAM policy (seclist/README.md) refused during this step: %+v", unexpected)
		}
		if p := s.ccm.current(); p.Crashed() {
			t.Errorf("the CCM exited during this step: %v", p.ExitError())
		}
		if !t.Failed() {
			return
		}
		if p := s.ccm.current(); p.LogPath() != logPath {
			offset = 0 // restarted during the step: show the new process's log
		}
		s.ccm.logTail(t, offset)
		if after, err := s.oci.calls(context.WithoutCancel(s.ctx)); err == nil {
			t.Logf("OCI calls during this step:\n%s", after.Since(before))
		}
		if tail, err := proc.Tail(s.ocitest.LogPath(), 0, 4<<10); err == nil {
			t.Logf("end of %s:\n%s", s.ocitest.LogPath(), tail)
		}
	}()
	run(t, s)
}

// unexpectedDenials returns the refused calls that are not about outsideCompartment, which the
// policy leaves out on purpose: a CCM asking about a Node there is refused by design.
func (s *suite) unexpectedDenials(denied []ocitest.Denial) []ocitest.Denial {
	outside := s.oci.seeded.Compartments[outsideCompartment]
	var out []ocitest.Denial
	for _, d := range denied {
		if outside == "" || d.Compartment != outside {
			out = append(out, d)
		}
	}
	return out
}

// startOCITest seeds the default tenancy plus one spare instance and the outside compartment's
// instances, serves it over TLS (so the CCM's endpoint.caFile is exercised) and reads back the
// files ocitest wrote.
func (s *suite) startOCITest(t *testing.T) error {
	s.tenancy = ocitest.DefaultTenancy()
	s.tenancy.Instances = append(s.tenancy.Instances, ocitest.TenancyInstance{
		Name: extraInstance, Shape: "VM.Standard.E4.Flex", AvailabilityDomain: s.tenancy.AvailabilityDomains[0],
		FaultDomain: "FAULT-DOMAIN-2", Subnet: "nodes", PublicIP: "auto",
	})
	// No public IPs: the pool's addresses of the other instances and the reserved IP stay as
	// they were without them.
	s.tenancy.Compartments = append(s.tenancy.Compartments, outsideCompartment)
	s.tenancy.NetworkSecurityGroups = append(s.tenancy.NetworkSecurityGroups, backendNSG) // NSGModeService
	for _, name := range outsideInstances {
		s.tenancy.Instances = append(s.tenancy.Instances, ocitest.TenancyInstance{
			Name: name, Shape: "VM.Standard.E4.Flex", AvailabilityDomain: s.tenancy.AvailabilityDomains[1],
			FaultDomain: "FAULT-DOMAIN-1", Subnet: "nodes", Compartment: outsideCompartment,
		})
	}
	tenancyYAML, err := yaml.Marshal(s.tenancy)
	if err != nil {
		return err
	}
	tenancyFile := filepath.Join(s.dir, "tenancy.yaml")
	if err := os.WriteFile(tenancyFile, tenancyYAML, 0o600); err != nil {
		return err
	}
	outDir := filepath.Join(s.dir, "ocitest")
	policyFile, err := s.writePolicy()
	if err != nil {
		return err
	}

	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	// Work requests last OCI's own durations divided by 100 (a create 0.6–1.2 s, a listener or
	// backend change 0.2–0.4 s), so that polling and concurrency meet OCI's real ratios; IAM,
	// the policy delay and the listing lag are ocitest's defaults.
	p, err := proc.Start(context.Background(), "ocitest", bins.ocitest, []string{
		"-addr", "127.0.0.1:0", "-tls", "-out", outDir, "-tenancy", tenancyFile,
		"-work-request-profile", "realistic", "-time-scale", "0.01", "-policy", policyFile,
	}, nil, filepath.Join(s.dir, "ocitest.log"), w)
	w.Close() // the child has its own copy
	if err != nil {
		return err
	}
	s.ocitest = p
	t.Cleanup(func() { p.Stop(10 * time.Second) })

	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "URL="); ok {
				urls <- u
				return
			}
		}
		close(urls)
	}()
	var url string
	select {
	case u, ok := <-urls:
		if !ok {
			<-p.Done()
			return fmt.Errorf("ocitest printed no URL: %w", p.ExitError())
		}
		url = u
	case <-time.After(time.Minute):
		return errors.New("ocitest printed no URL within a minute")
	}
	t.Logf("ocitest serving %s (log %s)", url, p.LogPath())
	s.oci, err = newOCIView(url, outDir)
	return err
}

// writePolicy writes the IAM policy seclist/README.md documents, for dynamic group "ccm" in the
// seeded compartment, to a file for ocitest's -policy: the whole suite runs under it, so a call
// the documented policy does not allow fails the step that made it.
func (s *suite) writePolicy() (string, error) {
	statements, err := iampolicy.FromFile(filepath.Join(bins.root, "seclist", "README.md"))
	if err != nil {
		return "", err
	}
	s.tenancy.CompartmentName = "cluster"
	statements = iampolicy.Substitute(statements, "ccm", s.tenancy.CompartmentName)
	path := filepath.Join(s.dir, "ccm.policy")
	return path, os.WriteFile(path, []byte(strings.Join(statements, "\n")+"\n"), 0o600)
}

// ccmRunner starts the CCM binary, and again after a kill.
type ccmRunner struct {
	dir, kubeconfig, cloudConfig string
	// clusterName is --cluster-name; empty leaves the flag out (the identity is then the
	// config's clusterID).
	clusterName string
	// extraArgs are appended to every start's flags (e.g. the validating webhook's).
	extraArgs []string
	procs     []*proc.Process
}

func (c *ccmRunner) current() *proc.Process { return c.procs[len(c.procs)-1] }

// start runs a new CCM process and waits until its /healthz answers. Leader election is on, with
// short timings, so a restarted CCM takes over after the lease of a killed one expires.
func (c *ccmRunner) start(ctx context.Context) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	args := []string{
		"--cloud-provider=oci",
		"--cloud-config=" + c.cloudConfig,
		"--kubeconfig=" + c.kubeconfig,
		"--authentication-kubeconfig=" + c.kubeconfig,
		"--authorization-kubeconfig=" + c.kubeconfig,
		"--controllers=cloud-node,cloud-node-lifecycle,service,backend-set-binding",
		"--leader-elect=true",
		"--leader-elect-lease-duration=15s",
		"--leader-elect-renew-deadline=10s",
		"--leader-elect-retry-period=2s",
		"--node-monitor-period=5s",
		"--concurrent-service-syncs=2",
		"--secure-port=" + strconv.Itoa(port),
		"--bind-address=127.0.0.1",
		"--cert-dir=" + filepath.Join(c.dir, "ccm-certs"),
		"--v=2",
	}
	if c.clusterName != "" {
		args = append(args, "--cluster-name="+c.clusterName)
	}
	args = append(args, c.extraArgs...)
	log := filepath.Join(c.dir, fmt.Sprintf("ccm-%d.log", len(c.procs)+1))
	p, err := proc.Start(context.Background(), "oci-cloud-controller-manager", bins.ccm, args, nil, log, nil)
	if err != nil {
		return err
	}
	c.procs = append(c.procs, p)

	// /healthz is reachable without credentials (--authorization-always-allow-paths); the
	// serving certificate is self-signed, and this probe only asks whether the process is up.
	probe := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // liveness probe on loopback
	}}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		resp, err := probe.Get("https://127.0.0.1:" + strconv.Itoa(port) + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-p.Done():
			return fmt.Errorf("the CCM exited during startup: %w", p.ExitError())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the CCM's /healthz on port %d did not answer 200 within 2 minutes (last error: %v)", port, err)
		}
	}
}

// kill ends the current CCM with SIGKILL: no lease release, no cleanup, a reconcile cut short.
func (c *ccmRunner) kill() { c.current().Kill() }

// stop ends the current CCM with SIGTERM.
func (c *ccmRunner) stop() {
	if len(c.procs) > 0 {
		c.current().Stop(10 * time.Second)
	}
}

// logTail shows the current CCM's log from offset (at most logTailBytes of it).
func (c *ccmRunner) logTail(t *testing.T, offset int64) {
	t.Helper()
	p := c.current()
	tail, err := proc.Tail(p.LogPath(), offset, logTailBytes)
	if err != nil {
		t.Logf("read %s: %v", p.LogPath(), err)
		return
	}
	t.Logf("CCM log %s (from byte %d, last %d KiB at most):\n%s", p.LogPath(), offset, logTailBytes>>10, tail)
}

// freePort returns a loopback port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// testRBACSufficient: the CCM, running as the ServiceAccount of examples/deploy/rbac.yaml, was
// never denied a request. The controllers log a denial and carry on (a missing Event, a
// retried patch), so the scenarios alone could pass with a permission missing.
func testRBACSufficient(t *testing.T, s *suite) {
	var denied []string
	for _, p := range s.ccm.procs {
		data, err := os.ReadFile(p.LogPath())
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(string(data)) {
			if strings.Contains(line, "forbidden") {
				denied = append(denied, strings.TrimSpace(line))
			}
		}
	}
	if len(denied) > 0 {
		t.Errorf("the CCM was denied %d request(s); examples/deploy/rbac.yaml (or, from ChartRBAC on, the chart's RBAC) lacks a permission. First ones:\n%s",
			len(denied), strings.Join(denied[:min(len(denied), 10)], "\n"))
	}
}
