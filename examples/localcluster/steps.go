// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
)

// field is one value of cloud-provider.yaml the tutorial's step 4 says to fill in.
type field struct {
	path, value string
}

// fields are the values for the in-memory tenancy, in the order of the tutorial's table.
func (l *local) fields() []field {
	return []field{
		{"clusterID", "local-1"},
		{"auth.region", l.seeded.Region},
		{"auth.tenancy", l.creds.TenancyID},
		{"auth.user", l.creds.UserID},
		{"auth.fingerprint", l.creds.Fingerprint},
		{"auth.keyFile", filepath.Join(l.dir, keyFile)},
		{"compartment", l.seeded.Compartment},
		{"vcn", l.seeded.VCN},
		{"loadBalancer.subnet1", l.seeded.LoadBalancerSubnets[0]},
		{"loadBalancer.subnet2", l.seeded.LoadBalancerSubnets[1]},
		{"endpoint.url", l.oci.URL()},
		{"endpoint.caFile", filepath.Join(l.dir, caFile)},
	}
}

// writeNextSteps prints what to fill in and run next, and keeps a copy in the directory.
func (l *local) writeNextSteps(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "localcluster: ready: an in-memory OCI and a kube-apiserver with Nodes %s (Ctrl-C stops both).\n\n",
		strings.Join(l.nodes, ", "))
	fmt.Fprintf(&b, "In another shell, at the repository's root:\n\n  export KUBECONFIG=%s\n\n", filepath.Join(l.dir, adminKubeconfig))
	b.WriteString("cloud-provider.yaml (tutorial, step 4): in your copy of examples/cloud-provider.yaml, set\n\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, f := range l.fields() {
		fmt.Fprintf(tw, "  %s:\t%s\n", f.path, f.value)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	b.WriteString("\n(endpoint is commented out at the end of the example: uncomment it) and delete the\n" +
		"loadBalancer.securityLists section.\n\n")
	fmt.Fprintf(&b, "The CCM (tutorial, step 6), after `kubectl apply -f examples/deploy/rbac.yaml`, runs as its\n"+
		"ServiceAccount with --kubeconfig=%s (a token valid for an hour).\n", filepath.Join(l.dir, ccmKubeconfig))
	fmt.Fprintf(&b, "Logs of etcd and kube-apiserver: %s\n", filepath.Join(l.dir, "cluster"))
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(l.dir, nextStepsFile), []byte(b.String()), 0o644)
}
