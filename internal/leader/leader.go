// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package leader lets the cloud-controller-manager hand its leader-election Lease over at once
// when it is asked to stop.
//
// k8s.io/cloud-provider v0.37's app runs leader election without ReleaseOnCancel and offers no
// flag for it, and stops only when the process dies: a standby replica then waits for the
// Lease to expire (--leader-elect-lease-duration, 15 s by default, plus up to a retry period)
// before it takes over, on every rolling update. Releaser closes that gap: it learns the
// process's Lease identity when the framework starts the controllers (which it does only once
// this process leads), and on SIGTERM or SIGINT it marks the Lease free (holder empty, duration
// 1 s, as client-go's own release does) before the process exits, so the standby acquires it at
// its next retry.
package leader

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	cloudprovider "k8s.io/cloud-provider"
	componentbaseconfig "k8s.io/component-base/config"
	"k8s.io/klog/v2"
)

// releaseTimeout bounds the release: a process asked to stop must stop, Lease or not.
const releaseTimeout = 5 * time.Second

// Releaser releases the Lease this process holds. Make one with New before the command runs,
// call StopOnSignal, and Wrap the provider once the configuration is known. Safe for concurrent
// use.
type Releaser struct {
	mu        sync.Mutex
	kube      kubernetes.Interface // nil: nothing to release (leader election off)
	namespace string
	name      string
	// hostname prefixes the identity the framework gives this process ("<hostname>_<uuid>").
	hostname string
	identity string // set once this process leads
}

// New returns a Releaser with nothing to release yet.
func New() *Releaser { return &Releaser{} }

// Wrap returns cloud, noting when the framework initialises it: the framework does that once
// this process has acquired the Lease, so the Lease's holder then is this process. kube is a
// client with the leader election's own credentials; cfg is the leader-election configuration.
// With leader election off, or a lock that is not a Lease, cloud is returned as it is.
func (r *Releaser) Wrap(cloud cloudprovider.Interface, kube kubernetes.Interface, cfg componentbaseconfig.LeaderElectionConfiguration) cloudprovider.Interface {
	if !cfg.LeaderElect || kube == nil || cfg.ResourceLock != "leases" {
		return cloud
	}
	host, _ := os.Hostname()
	r.mu.Lock()
	r.kube, r.namespace, r.name, r.hostname = kube, cfg.ResourceNamespace, cfg.ResourceName, host
	r.mu.Unlock()
	w := &wrapped{Interface: cloud, r: r}
	if iu, ok := cloud.(cloudprovider.InformerUser); ok {
		return &wrappedInformerUser{wrapped: w, iu: iu}
	}
	return w
}

type wrapped struct {
	cloudprovider.Interface
	r *Releaser
}

// Initialize records the Lease holder, then initialises the provider.
func (w *wrapped) Initialize(builder cloudprovider.ControllerClientBuilder, stop <-chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	if err := w.r.Leading(ctx); err != nil {
		klog.ErrorS(err, "Cannot record this process's leader-election identity; on SIGTERM the Lease will expire instead of being released")
	}
	w.Interface.Initialize(builder, stop)
}

// wrappedInformerUser keeps cloudprovider.InformerUser visible through the wrapper.
type wrappedInformerUser struct {
	*wrapped
	iu cloudprovider.InformerUser
}

// SetInformers forwards to the provider.
func (w *wrappedInformerUser) SetInformers(f informers.SharedInformerFactory) { w.iu.SetInformers(f) }

// Leading records the current holder of the Lease as this process. Call it only once this
// process has acquired the Lease.
func (r *Releaser) Leading(ctx context.Context) error {
	r.mu.Lock()
	kube, host := r.kube, r.hostname
	r.mu.Unlock()
	if kube == nil {
		return errors.New("leader: Leading called before Wrap")
	}
	lease, err := kube.CoordinationV1().Leases(r.namespace).Get(ctx, r.name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("read Lease %s/%s: %w", r.namespace, r.name, err)
	}
	holder := ""
	if lease.Spec.HolderIdentity != nil {
		holder = *lease.Spec.HolderIdentity
	}
	if holder == "" || (host != "" && !strings.HasPrefix(holder, host+"_")) {
		return fmt.Errorf("lease %s/%s is held by %q, not by a process of this host %q", r.namespace, r.name, holder, host)
	}
	r.mu.Lock()
	r.identity = holder
	r.mu.Unlock()
	klog.InfoS("Leading; the Lease is released on SIGTERM", "lease", r.namespace+"/"+r.name, "identity", holder)
	return nil
}

// ErrNotHolder is returned by Release when the Lease is held by another process (or nobody).
var ErrNotHolder = errors.New("leader: this process does not hold the Lease")

// Release marks the Lease free if this process holds it: holder empty, duration 1 s, renewed and
// acquired now, transitions kept. The update carries the Lease's resourceVersion, so a Lease
// taken over meanwhile is never released. A process that never led returns nil.
func (r *Releaser) Release(ctx context.Context) error {
	r.mu.Lock()
	identity, kube := r.identity, r.kube
	r.mu.Unlock()
	if identity == "" {
		return nil
	}
	leases := kube.CoordinationV1().Leases(r.namespace)
	lease, err := leases.Get(ctx, r.name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("read Lease %s/%s: %w", r.namespace, r.name, err)
	}
	if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity != identity {
		return ErrNotHolder
	}
	now := metav1.NewMicroTime(time.Now())
	free, one := "", int32(1)
	lease.Spec.HolderIdentity = &free
	lease.Spec.LeaseDurationSeconds = &one
	lease.Spec.AcquireTime, lease.Spec.RenewTime = &now, &now
	if _, err := leases.Update(ctx, lease, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("release Lease %s/%s: %w", r.namespace, r.name, err)
	}
	klog.InfoS("Released the leader Lease", "lease", r.namespace+"/"+r.name, "identity", identity)
	return nil
}

// StopOnSignal waits for SIGTERM or SIGINT, releases the Lease (at most releaseTimeout) and
// closes stop, which ends the controller manager's Run and so the process.
func (r *Releaser) StopOnSignal(stop chan<- struct{}) {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, os.Interrupt)
	sig := <-signals
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	if err := r.Release(ctx); err != nil {
		klog.ErrorS(err, "Lease not released; a standby takes over once it expires", "signal", sig.String())
	} else {
		klog.InfoS("Stopping", "signal", sig.String())
	}
	klog.Flush()
	close(stop)
}
