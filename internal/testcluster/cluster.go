// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package testcluster runs a real Kubernetes control plane, etcd and
// kube-apiserver, on loopback for tests: real admission, validation, RBAC
// and watches, without kubelets or controllers.
//
// What is missing compared with a full cluster follows from that: no
// controller-manager (namespaces are never finalized, no garbage
// collection, no "default" ServiceAccount in new namespaces, no
// EndpointSlices), no scheduler and no nodes running anything. Nodes can
// be created as API objects; admission gives them a not-ready taint.
//
// The binaries are built from source by internal/kubebins (see its
// README); `make e2e` builds them and passes their paths in KUBE_APISERVER
// and OCI_CCM_ETCD.
//
// Typical use:
//
//	c, err := testcluster.Start(t.Context(), testcluster.Options{Logf: t.Logf})
//	if err != nil {
//		t.Fatal(err)
//	}
//	t.Cleanup(c.Stop)
//	client := kubernetes.NewForConfigOrDie(c.AdminConfig())
package testcluster

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sync"
	"time"

	"k8s.io/client-go/rest"

	"github.com/oci-ccm/oci-ccm/internal/proc"
)

// Environment variables that supply the binaries when Options leaves them
// empty. The etcd one must not start with ETCD_: etcd reads every such
// variable as configuration.
const (
	EnvKubeAPIServer = "KUBE_APISERVER"
	EnvEtcd          = "OCI_CCM_ETCD"
)

// ErrNoBinary reports that Start was not told where kube-apiserver or etcd
// is, or that the path given is not an executable file.
var ErrNoBinary = errors.New("test cluster binary missing")

const (
	// defaultReadyTimeout bounds how long Start waits for both processes;
	// kube-apiserver needs a few seconds on an idle machine and much more
	// on a loaded one.
	defaultReadyTimeout = 3 * time.Minute
	// startAttempts is how often a process that exits during startup is
	// started again on fresh ports.
	startAttempts = 3
	// pollInterval is the pause between readiness probes.
	pollInterval = 100 * time.Millisecond
	// probeTimeout bounds one readiness probe.
	probeTimeout = 5 * time.Second
	// stopGrace is how long a process may take to exit after SIGTERM
	// before it is killed.
	stopGrace = 10 * time.Second
	// logTailBytes is how much of a log Logf shows when a process fails.
	logTailBytes = 8 << 10
)

// Options configures Start. The zero value works when the environment
// variables EnvKubeAPIServer and EnvEtcd name the binaries.
type Options struct {
	// KubeAPIServer is the path of the kube-apiserver binary. Empty means
	// the value of the KUBE_APISERVER environment variable.
	KubeAPIServer string
	// Etcd is the path of the etcd binary. Empty means the value of the
	// OCI_CCM_ETCD environment variable.
	Etcd string
	// Dir holds the logs (etcd.log, kube-apiserver.log), keys, tokens,
	// certificates and the etcd data. Empty means a new temporary
	// directory that Stop removes; a given Dir is kept, except for the
	// etcd data, so that its logs can be read after the test.
	Dir string
	// Logf receives progress and, when a process fails, the end of its
	// log. Nil means the standard logger; tests pass t.Logf.
	Logf func(format string, args ...any)
	// ReadyTimeout bounds how long Start waits for etcd and then
	// kube-apiserver to become ready. Zero means three minutes.
	ReadyTimeout time.Duration
}

// Cluster is a running etcd and kube-apiserver. Its methods are safe for
// concurrent use.
type Cluster struct {
	ctx       context.Context
	dir       string
	removeDir bool
	logf      func(format string, args ...any)

	etcd      *proc.Process
	apiserver *proc.Process
	admin     *rest.Config

	stopOnce sync.Once
}

// Start starts etcd and kube-apiserver on free loopback ports and returns
// once kube-apiserver's /readyz passes. The processes live until Stop is
// called or ctx is done, whichever comes first, and are killed by the
// kernel if the calling process dies; pass the test's context and register
// Stop with t.Cleanup.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	apiserverBin, err := binary(opts.KubeAPIServer, EnvKubeAPIServer, "kube-apiserver")
	if err != nil {
		return nil, err
	}
	etcdBin, err := binary(opts.Etcd, EnvEtcd, "etcd")
	if err != nil {
		return nil, err
	}

	c := &Cluster{ctx: ctx, dir: opts.Dir, logf: opts.Logf}
	if c.logf == nil {
		c.logf = log.Printf
	}
	if c.dir == "" {
		if c.dir, err = os.MkdirTemp("", "testcluster-"); err != nil {
			return nil, fmt.Errorf("create cluster dir: %w", err)
		}
		c.removeDir = true
	} else if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return nil, fmt.Errorf("create cluster dir: %w", err)
	}

	readyTimeout := opts.ReadyTimeout
	if readyTimeout <= 0 {
		readyTimeout = defaultReadyTimeout
	}
	readyCtx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()

	begin := time.Now()
	etcdURL, err := c.startEtcd(ctx, readyCtx, etcdBin)
	if err == nil {
		c.logf("testcluster: etcd ready at %s after %s", etcdURL, time.Since(begin).Round(time.Millisecond))
		err = c.startAPIServer(ctx, readyCtx, apiserverBin, etcdURL)
	}
	if err != nil {
		c.logTails()
		c.Stop()
		return nil, fmt.Errorf("start test cluster: %w", err)
	}
	c.logf("testcluster: kube-apiserver ready at %s after %s (logs in %s)",
		c.admin.Host, time.Since(begin).Round(time.Millisecond), c.dir)
	return c, nil
}

// binary resolves a binary path from an option or, when that is empty, an
// environment variable, and checks that it names an executable file.
func binary(path, env, what string) (string, error) {
	if path == "" {
		path = os.Getenv(env)
	}
	if path == "" {
		return "", fmt.Errorf("%w: no %s: set Options or %s (run `make e2e`, which builds it and sets %s)", ErrNoBinary, what, env, env)
	}
	info, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %w", ErrNoBinary, what, err)
	}
	if info.IsDir() || info.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("%w: %s %s is not an executable file", ErrNoBinary, what, path)
	}
	return path, nil
}

// retryStart calls start until it succeeds, fails for a reason other than
// the process exiting during startup, or has been tried startAttempts
// times.
func retryStart[T any](c *Cluster, ctx context.Context, start func() (T, error)) (T, error) {
	var err error
	for attempt := 1; attempt <= startAttempts; attempt++ {
		var v T
		v, err = start()
		if err == nil || !errors.Is(err, errExited) || ctx.Err() != nil {
			return v, err
		}
		c.logf("testcluster: attempt %d of %d failed, retrying on new ports: %v", attempt, startAttempts, err)
	}
	var zero T
	return zero, fmt.Errorf("gave up after %d attempts: %w", startAttempts, err)
}

// pollReady runs probe until it succeeds, the process exits, or ctx is
// done.
func pollReady(ctx context.Context, p *proc.Process, probe func(context.Context) error) error {
	ticker := time.NewTicker(pollInterval)
	defer ticker.Stop()
	for {
		err := probe(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-p.Done():
			return fmt.Errorf("%w: %w", errExited, p.ExitError())
		case <-ctx.Done():
			return fmt.Errorf("%s not ready: %w (last probe: %w)", p.Name(), context.Cause(ctx), err)
		case <-ticker.C:
		}
	}
}

// AdminConfig returns a new client configuration for a user in
// system:masters, which RBAC never denies. Client-side rate limiting is
// off: the cluster serves one test, and throttling would only slow it.
func (c *Cluster) AdminConfig() *rest.Config {
	cfg := rest.CopyConfig(c.admin)
	cfg.QPS = -1
	return cfg
}

// Stop stops kube-apiserver, then etcd (the other order leaves the
// apiserver retrying a vanished etcd until it is killed), waits until both
// have exited, and removes what Start created. Processes that died before
// Stop, other than by the end of the context, are reported through Logf
// with the end of their logs. Stop may be called more than once.
func (c *Cluster) Stop() {
	c.stopOnce.Do(func() {
		c.reportCrashes()
		for _, p := range []*proc.Process{c.apiserver, c.etcd} {
			if p == nil {
				continue
			}
			if p.Stop(stopGrace) {
				c.logf("testcluster: %s did not exit within %s of SIGTERM and was killed", p.Name(), stopGrace)
			}
		}
		if c.removeDir {
			if err := os.RemoveAll(c.dir); err != nil {
				c.logf("testcluster: remove %s: %v", c.dir, err)
			}
		} else if err := os.RemoveAll(filepath.Join(c.dir, "etcd-data")); err != nil {
			c.logf("testcluster: remove etcd data: %v", err)
		}
	})
}

// reportCrashes logs processes that exited on their own.
func (c *Cluster) reportCrashes() {
	if c.ctx.Err() != nil {
		// The context's end killed them; that is not news.
		return
	}
	for _, p := range []*proc.Process{c.apiserver, c.etcd} {
		if p != nil && p.Crashed() {
			c.logf("testcluster: %v before Stop", p.ExitError())
			c.logTail(p)
		}
	}
}

// logTails shows the end of every log; Start calls it when it fails.
func (c *Cluster) logTails() {
	for _, p := range []*proc.Process{c.etcd, c.apiserver} {
		if p != nil {
			c.logTail(p)
		}
	}
}

func (c *Cluster) logTail(p *proc.Process) {
	tail, err := proc.Tail(p.LogPath(), 0, logTailBytes)
	if err != nil {
		c.logf("testcluster: read %s log: %v", p.Name(), err)
		return
	}
	c.logf("testcluster: end of %s:\n%s", p.LogPath(), tail)
}
