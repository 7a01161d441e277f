// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// requestCounter records only requests; NopMetrics supplies the other methods.
type requestCounter struct {
	ociclient.NopMetrics
	ok, failed atomic.Int64
}

func (c *requestCounter) ObserveRequest(ctx context.Context, service, operation, outcome string, d time.Duration) {
	if outcome == "ok" {
		c.ok.Add(1)
	} else {
		c.failed.Add(1)
	}
}

// Plug in your own metrics, and see the client's calls in your own logger: calls log to the
// logr.Logger in their context.
func ExampleMetrics() {
	srv := ocitest.New(ocitest.Options{})
	defer srv.Close()
	counter := &requestCounter{}
	opts := ociclient.ForServer(srv)
	opts.Metrics = counter
	c, err := ociclient.New(opts)
	if err != nil {
		fmt.Println(err)
		return
	}

	// Every call logs at V(4); a controller's logger at that verbosity shows them.
	logger := funcr.New(func(prefix, args string) { fmt.Println(prefix, "OCI call") }, funcr.Options{Verbosity: 4})
	ctx := logr.NewContext(context.Background(), logger)
	lb := srv.AddLoadBalancer(loadbalancer.LoadBalancer{})
	if _, err := c.LoadBalancers.GetLoadBalancer(ctx, *lb.Id); err != nil {
		fmt.Println(err)
		return
	}
	_, err = c.LoadBalancers.GetLoadBalancer(context.Background(), srv.NewID("loadbalancer"))
	fmt.Println(ociclient.IsNotFound(err), counter.ok.Load(), counter.failed.Load())
	// Output:
	// ociclient OCI call
	// true 1 1
}
