// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package bench

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// BenchmarkSignedGetLoadBalancer is the CPU of one OCI call as the storm makes them: a
// GetLoadBalancer through the SDK's own client, signed with an API key from config (as the CCM's
// user-principal auth signs), answered by ocitest in the same process and decoded, for a load
// balancer with two backend sets of 256 backends (a storm Service's). "cpu-s/1000calls" is the
// process's CPU time (user and system, the server's share included) per 1,000 calls: the figure
// `make bench` reports for the storm's node phase, without the CCM's own planning. It uses only
// what the code had before the signing key was parsed once, so it runs at both commits.
func BenchmarkSignedGetLoadBalancer(b *testing.B) {
	srv, err := ocitest.Listen(ocitest.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	creds, err := srv.NewCredentials()
	if err != nil {
		b.Fatal(err)
	}
	cfg := &config.Config{Auth: config.Auth{Region: srv.Region(), Tenancy: creds.TenancyID, User: creds.UserID,
		Fingerprint: creds.Fingerprint, Key: config.Secret(creds.PrivateKeyPEM)}}
	provider, err := cfg.ConfigurationProvider()
	if err != nil {
		b.Fatal(err)
	}
	client, err := loadbalancer.NewLoadBalancerClientWithConfigurationProvider(provider)
	if err != nil {
		b.Fatal(err)
	}
	client.Host = srv.URL()
	client.HTTPClient = srv.HTTPClient()
	l := srv.AddLoadBalancer(benchLoadBalancer(srv.Seeded().Compartment))
	req := loadbalancer.GetLoadBalancerRequest{LoadBalancerId: l.Id}
	ctx := context.Background()
	if _, err := client.GetLoadBalancer(ctx, req); err != nil {
		b.Fatal(err)
	}
	cpu0 := rusageCPU()
	for b.Loop() {
		if _, err := client.GetLoadBalancer(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((rusageCPU()-cpu0).Seconds()*1000/float64(b.N), "cpu-s/1000calls")
}

// rusageCPU is the process's CPU time so far (processCPU's twin, kept here so that this file
// builds alone at older commits).
func rusageCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchLoadBalancer is an ACTIVE load balancer in compartment with listeners on 80 and 443 and
// two backend sets of 256 backends each.
func benchLoadBalancer(compartment string) loadbalancer.LoadBalancer {
	sets := map[string]loadbalancer.BackendSet{}
	listeners := map[string]loadbalancer.Listener{}
	for i, port := range []int{80, 443} {
		name := fmt.Sprintf("TCP-%d", port)
		var backends []loadbalancer.Backend
		for n := range 256 {
			ip := fmt.Sprintf("10.0.%d.%d", 8+n/250, 1+n%250)
			backends = append(backends, loadbalancer.Backend{Name: common.String(fmt.Sprintf("%s:%d", ip, 30000+i)),
				IpAddress: common.String(ip), Port: common.Int(30000 + i), Weight: common.Int(1)})
		}
		sets[name] = loadbalancer.BackendSet{Name: common.String(name), Policy: common.String("ROUND_ROBIN"), Backends: backends,
			HealthChecker: &loadbalancer.HealthChecker{Protocol: common.String("TCP"), Port: common.Int(10256)}}
		listeners[name] = loadbalancer.Listener{Name: common.String(name), DefaultBackendSetName: common.String(name),
			Port: common.Int(port), Protocol: common.String("TCP")}
	}
	return loadbalancer.LoadBalancer{CompartmentId: common.String(compartment), DisplayName: common.String("bench"),
		ShapeName: common.String("flexible"), LifecycleState: loadbalancer.LoadBalancerLifecycleStateActive,
		BackendSets: sets, Listeners: listeners, FreeformTags: map[string]string{}}
}
