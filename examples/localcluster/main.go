// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Command localcluster stands in, on one machine, for what the tutorial (ccm/docs/tutorial.md)
// needs from OCI and from a cluster, so that its steps can be followed without a tenancy: it
// serves an in-memory OCI (ociclient/ocitest, over TLS, checking every request's signature, under
// the documented IAM policy) seeded with a small tenancy, starts a real etcd and kube-apiserver
// (those of the end-to-end suite), and registers a Node for each of the tenancy's instances as a
// kubelet started with --cloud-provider=external does (tainted uninitialized, Ready, no provider
// ID). It writes into DIR the API signing key the fake OCI trusts, its CA certificate, an admin
// kubeconfig and one for the CCM's ServiceAccount, prints the values to fill into
// cloud-provider.yaml, and serves until Ctrl-C.
//
//	go run ./examples/localcluster [-dir bin/local]
//
// Nothing runs Pods: there is no kube-controller-manager, scheduler or kubelet, so a Deployment
// makes no Pods, and the load balancers' addresses are not routable. The CCM's part, Nodes
// initialised and Services given an OCI load balancer, is all there.
//
// The binaries come from KUBE_APISERVER and OCI_CCM_ETCD when set, as in the end-to-end suite;
// otherwise from internal/kubebins (run from the repository's root): the first run builds
// kube-apiserver from source (11–20 minutes on 2 cores, then cached in ~/.cache/oci-ccm) and
// installs Debian's etcd-server as root when no etcd is on PATH.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "localcluster:", err)
		}
		os.Exit(1)
	}
}

// run is the whole command: it returns when ctx ends or setup fails.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("localcluster", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "bin/local", "`directory` for the keys, kubeconfigs and logs (emptied of an earlier run's cluster data)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	l, err := start(ctx, *dir, stderr)
	if err != nil {
		return err
	}
	defer l.stop()
	if err := l.writeNextSteps(stdout); err != nil {
		return err
	}
	<-ctx.Done()
	fmt.Fprintln(stderr, "localcluster: stopping")
	return nil
}
