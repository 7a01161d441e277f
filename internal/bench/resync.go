// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package bench

import (
	"context"
	"errors"
	"time"

	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/api"
)

// resyncEvery is how soon, on the World's clock, resyncing syncs a Service again after a retry
// error: about when the service controller would, requeued at the end of the work (the Cloud's
// engine.Options.PendingDone), to within half a second.
const resyncEvery = 500 * time.Millisecond

// resyncing is the Cloud's load balancer driven as the service controller drives it. A sync whose
// work outlasted --load-balancer-max-wait (one minute of the World's clock: most creates at OCI's
// durations) returns a retry error while the work goes on; the Service is synced again until a
// sync completes. A sync while the work runs calls nothing in OCI; the one after it reads the load
// balancer and does what the first left (security rules), and a scenario's figures include it,
// as they would in production.
type resyncing struct {
	cloudprovider.LoadBalancer
	clock *Clock
}

func (r resyncing) EnsureLoadBalancer(ctx context.Context, cluster string, s *v1.Service, n []*v1.Node) (*v1.LoadBalancerStatus, error) {
	for {
		st, err := r.LoadBalancer.EnsureLoadBalancer(ctx, cluster, s, n)
		if err = r.again(ctx, err); err != errRetry {
			return st, err
		}
	}
}

func (r resyncing) UpdateLoadBalancer(ctx context.Context, cluster string, s *v1.Service, n []*v1.Node) error {
	for {
		if err := r.again(ctx, r.LoadBalancer.UpdateLoadBalancer(ctx, cluster, s, n)); err != errRetry {
			return err
		}
	}
}

func (r resyncing) EnsureLoadBalancerDeleted(ctx context.Context, cluster string, s *v1.Service) error {
	for {
		if err := r.again(ctx, r.LoadBalancer.EnsureLoadBalancerDeleted(ctx, cluster, s)); err != errRetry {
			return err
		}
	}
}

// errRetry says the sync is to be made again.
var errRetry = errors.New("sync again")

// again returns errRetry, after resyncEvery, when err is the service controller's retry error,
// and err otherwise.
func (r resyncing) again(ctx context.Context, err error) error {
	var re *api.RetryError
	if !errors.As(err, &re) {
		return err
	}
	if serr := r.clock.Sleep(ctx, resyncEvery); serr != nil {
		return errors.Join(err, serr)
	}
	return errRetry
}
