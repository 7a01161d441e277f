// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

//go:build e2e

package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/oci-ccm/oci-ccm/internal/proc"
)

// The leader election of ccmRunner.start: --leader-elect-lease-duration and
// --leader-elect-retry-period.
const (
	leaseDuration = 15 * time.Second
	retryPeriod   = 2 * time.Second
	// leaseName is the framework's default Lease (kube-system/cloud-controller-manager).
	leaseName = "cloud-controller-manager"
	// haService is the Service the HA scenarios create, change and delete.
	haService = "ha"
	// acquiredLog is what the framework's leader election logs when it acquires the Lease.
	acquiredLog = "Successfully acquired lease"
)

// leaseHolder returns the identity holding the CCM's Lease ("" when free).
func (s *suite) leaseHolder(ctx context.Context) (string, error) {
	l, err := s.kube.CoordinationV1().Leases(ccmNamespace).Get(ctx, leaseName, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	if l.Spec.HolderIdentity == nil {
		return "", nil
	}
	return *l.Spec.HolderIdentity, nil
}

// startStandby starts a second CCM beside the leader and checks it does not lead: the Lease
// stays with the leader's identity and the standby never logs an acquisition.
func (s *suite) startStandby(t *testing.T) (leader, standby *proc.Process, leaderID string) {
	t.Helper()
	leader = s.ccm.current()
	var err error
	if leaderID, err = s.leaseHolder(s.ctx); err != nil || leaderID == "" {
		t.Fatalf("Lease holder %q, %v; want the running CCM", leaderID, err)
	}
	if err := s.ccm.start(s.ctx); err != nil {
		t.Fatal(err)
	}
	standby = s.ccm.current()
	// Two retry periods: a standby that wrongly took the Lease would have done so by now.
	time.Sleep(2 * retryPeriod)
	if holder, err := s.leaseHolder(s.ctx); err != nil || holder != leaderID {
		t.Fatalf("after the standby started, the Lease is held by %q (%v), want still %q", holder, err, leaderID)
	}
	if logged(t, standby, acquiredLog) {
		t.Fatalf("the standby logged %q while the leader runs", acquiredLog)
	}
	return leader, standby, leaderID
}

// waitTakeover waits until the standby holds the Lease (at most within), and returns how long
// after since that took.
func (s *suite) waitTakeover(t *testing.T, standby *proc.Process, oldID string, since time.Time, within time.Duration) time.Duration {
	t.Helper()
	var took time.Duration
	eventually(t, s.ctx, within, "the standby takes the Lease over", func(ctx context.Context) (bool, string, error) {
		holder, err := s.leaseHolder(ctx)
		if err != nil {
			return false, "", err
		}
		took = time.Since(since)
		return holder != "" && holder != oldID && logged(t, standby, acquiredLog), "holder " + holder, nil
	})
	return took
}

func logged(t *testing.T, p *proc.Process, text string) bool {
	t.Helper()
	data, err := os.ReadFile(p.LogPath())
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(data), text)
}

// testHALeaderKilledMidCreate: two CCMs; the leader is killed (SIGKILL: no lease release)
// while a CreateLoadBalancer's work request is queued, and the Service is changed while no
// process leads. The standby takes over once the Lease expires, finds the load balancer the
// dead leader's create made (no second one) and applies the change made meanwhile.
func testHALeaderKilledMidCreate(t *testing.T, s *suite) {
	leader, standby, leaderID := s.startStandby(t)
	before, err := s.oci.calls(s.ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Hold every work-request poll: the leader sits between "create accepted" and "create done".
	release := s.oci.holdWorkRequests(s.ctx, t)

	svc := loadService(t, "plain.yaml", testNamespace)
	svc.Name = haService
	created, err := s.kube.CoreV1().Services(testNamespace).Create(s.ctx, svc, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, s.ctx, convergeTimeout, "CreateLoadBalancer sent and its work request being polled", func(ctx context.Context) (bool, string, error) {
		now, err := s.oci.calls(ctx)
		if err != nil {
			return false, "", err
		}
		d := now.Since(before)
		return d.Op("CreateLoadBalancer") >= 1 && d.Op("GetWorkRequest") >= 1, d.String(), nil
	})

	leader.Kill()
	killed := time.Now()
	var lastRenewal metav1.MicroTime
	if l, err := s.kube.CoordinationV1().Leases(ccmNamespace).Get(s.ctx, leaseName, metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	} else if l.Spec.RenewTime != nil {
		lastRenewal = *l.Spec.RenewTime
	}
	// A change no process sees when it is made: it must not be lost.
	if err := updateService(s.ctx, s.kube, testNamespace, haService, func(svc *corev1.Service) {
		svc.Spec.Ports[0].Port = 8081
	}); err != nil {
		t.Fatal(err)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}

	took := s.waitTakeover(t, standby, leaderID, killed, leaseDuration+2*retryPeriod+10*time.Second)
	if l, err := s.kube.CoordinationV1().Leases(ccmNamespace).Get(s.ctx, leaseName, metav1.GetOptions{}); err == nil && l.Spec.AcquireTime != nil {
		t.Logf("SIGKILLed leader: the standby took the Lease over %.1f s after the kill, %.1f s after the dead leader's last renewal "+
			"(lease duration %s, retry period %s)", took.Seconds(), l.Spec.AcquireTime.Sub(lastRenewal.Time).Seconds(), leaseDuration, retryPeriod)
	}

	waitIngressIP(t, s, testNamespace, haService)
	lbNow := s.waitLBConverged(t, testNamespace, haService, nil)
	if _, ok := lbNow.Listeners["TCP-8081"]; !ok {
		t.Errorf("the port changed while no CCM led was lost: %s", describeLB(lbNow))
	}
	lbs, err := s.oci.loadBalancersNamed(s.ctx, string(created.UID))
	if err != nil {
		t.Fatal(err)
	}
	if len(lbs) != 1 {
		t.Errorf("%d load balancers for the Service after the takeover, want 1", len(lbs))
	}
	if after, err := s.oci.calls(s.ctx); err == nil {
		t.Logf("CreateLoadBalancer calls across the takeover: %d", after.Since(before).Op("CreateLoadBalancer"))
	}
}

// testHALeaseReleasedOnSIGTERM: the leader asked to stop (SIGTERM, as a rolling update does)
// exits with status 0 and releases its Lease first, so the standby takes over at its next retry
// instead of after the lease duration. The new leader (checking for drift every 2 s) then
// repairs a listener deleted out of band, with a Warning Event saying so, and finally deletes
// the Service's load balancer.
func testHALeaseReleasedOnSIGTERM(t *testing.T, s *suite) {
	s.ccm.extraArgs = []string{"--drift-check-period=2s"}
	defer func() { s.ccm.extraArgs = nil }()
	leader, standby, leaderID := s.startStandby(t)
	asked := time.Now()
	if killed := leader.Stop(10 * time.Second); killed {
		t.Fatal("the leader did not exit within 10 s of SIGTERM")
	}
	var exit *exec.ExitError
	if err := leader.ExitError(); errors.As(err, &exit) {
		t.Errorf("the leader did not exit cleanly on SIGTERM: %v", err)
	}
	if !logged(t, leader, "Released the leader Lease") {
		t.Errorf("the leader did not log its release (see %s)", leader.LogPath())
	}
	// Without the release the standby waits for the Lease to expire: at least the lease
	// duration less one retry period (with jitter) after the signal; with it, one retry period.
	took := s.waitTakeover(t, standby, leaderID, asked, leaseDuration/2)
	t.Logf("SIGTERMed leader: the standby took the Lease over %.1f s after the signal (lease duration %s)", took.Seconds(), leaseDuration)

	s.listenerDeletedOutOfBandIsRepaired(t, "TCP-8081")

	// The new leader acts: the finalizer goes only once the load balancer is deleted.
	s.deleteService(t, testNamespace, haService)
}

// listenerDeletedOutOfBandIsRepaired deletes a listener of haService's load balancer through the
// OCI API, as someone in the console would, and waits for the CCM's drift check to requeue the
// Service and the service controller's reconcile to put the listener back.
func (s *suite) listenerDeletedOutOfBandIsRepaired(t *testing.T, listener string) {
	t.Helper()
	svc, err := s.kube.CoreV1().Services(testNamespace).Get(s.ctx, haService, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lb, ok, err := s.oci.loadBalancerNamed(s.ctx, string(svc.UID))
	if err != nil || !ok {
		t.Fatalf("load balancer of %s: found %v, %v", haService, ok, err)
	}
	before, err := s.oci.calls(s.ctx)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := s.oci.lbs.DeleteListener(s.ctx, loadbalancer.DeleteListenerRequest{LoadBalancerId: lb.Id, ListenerName: &listener})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, s.ctx, convergeTimeout, "the out-of-band DeleteListener done", func(ctx context.Context) (bool, string, error) {
		wr, err := s.oci.lbs.GetWorkRequest(ctx, loadbalancer.GetWorkRequestRequest{WorkRequestId: resp.OpcWorkRequestId})
		if err != nil {
			return false, "", err
		}
		return wr.LifecycleState == loadbalancer.WorkRequestLifecycleStateSucceeded, string(wr.LifecycleState), nil
	})
	eventually(t, s.ctx, convergeTimeout, "a Warning Event naming the drift", func(ctx context.Context) (bool, string, error) {
		events, err := serviceEvents(ctx, s.kube, testNamespace, haService)
		if err != nil {
			return false, "", err
		}
		for _, e := range events {
			if e.Reason == "LoadBalancerDrift" && strings.Contains(e.Message, "listener "+listener+" missing") {
				return true, "", nil
			}
		}
		return false, describeEvents(events), nil
	})
	lbNow := s.waitLBConverged(t, testNamespace, haService, nil)
	if _, ok := lbNow.Listeners[listener]; !ok {
		t.Errorf("listener %s not repaired: %s", listener, describeLB(lbNow))
	}
	if after, err := s.oci.calls(s.ctx); err == nil {
		d := after.Since(before)
		t.Logf("drift repaired: %d ListLoadBalancers, %d CreateListener calls since the out-of-band delete", d.Op("ListLoadBalancers"), d.Op("CreateListener"))
	}
}
