// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/oci-ccm/oci-ccm/ccm/preflight"
	"github.com/oci-ccm/oci-ccm/config"
)

// checkCommand is `oci-cloud-controller-manager check`: the preflight check of package
// preflight, before a switch from the upstream CCM. It sets *status to 1 when the report has a
// blocking finding, so the process exits non-zero without cobra's error output.
func checkCommand(status *int) *cobra.Command {
	var cloudConfig, kubeconfig, clusterName, upstreamPrefix, output string
	cmd := &cobra.Command{
		Use:   "check --cloud-config=cloud-provider.yaml [--kubeconfig=FILE]",
		Short: "Check a configuration and a cluster's Services before switching from the upstream OCI CCM",
		Long: `Check reads cloud-provider.yaml (and LOAD_BALANCER_PREFIX) as the binary does at start-up and,
with a kubeconfig, every Service of type LoadBalancer oci-ccm would manage. It reports what oci-ccm
would refuse, what it would do differently from the upstream OCI CCM, and what would make it create
a new load balancer instead of adopting upstream's. It makes no OCI call. The exit status is 1 when
anything would be refused or a load balancer created anew (or the cluster cannot be read), 0
otherwise.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output != "text" && output != "json" {
				return fmt.Errorf("-o %q: text or json", output)
			}
			opts := preflight.Options{CloudConfig: cloudConfig, ClusterName: clusterName}
			if cmd.Flags().Changed("upstream-load-balancer-prefix") {
				opts.UpstreamPrefix = &upstreamPrefix
			}
			if kubeconfig != "" {
				rest, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
				if err != nil {
					return fmt.Errorf("--kubeconfig: %w", err)
				}
				if opts.Kube, err = kubernetes.NewForConfig(rest); err != nil {
					return err
				}
			}
			report, err := preflight.Run(cmd.Context(), opts)
			if err != nil {
				return err
			}
			write := report.WriteText
			if output == "json" {
				write = report.WriteJSON
			}
			if err := write(cmd.OutOrStdout()); err != nil {
				return err
			}
			if report.Blocking() > 0 {
				*status = 1
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&cloudConfig, "cloud-config", "", "The path of cloud-provider.yaml, as given to the binary.")
	fs.StringVar(&kubeconfig, "kubeconfig", "", "A kubeconfig to read the cluster's Services, Nodes and their TLS Secrets with; without it only the configuration is checked.")
	fs.StringVar(&clusterName, "cluster-name", config.DefaultClusterName, "The --cluster-name the binary is given.")
	fs.StringVar(&upstreamPrefix, "upstream-load-balancer-prefix", "",
		"The LOAD_BALANCER_PREFIX the upstream CCM runs with (\"\" for none); by default the one in this environment.")
	fs.StringVarP(&output, "output", "o", "text", "Output format: text or json.")
	_ = cmd.MarkFlagRequired("cloud-config") // the flag exists: no error
	// The controller manager's own usage lists its flags, not these.
	cmd.SetUsageFunc(func(c *cobra.Command) error {
		fmt.Fprintf(c.OutOrStderr(), "Usage:\n  %s\n\nFlags:\n%s", c.UseLine(), c.LocalFlags().FlagUsages())
		return nil
	})
	cmd.SetHelpFunc(func(c *cobra.Command, _ []string) {
		fmt.Fprintf(c.OutOrStdout(), "%s\n\n%s", c.Long, c.UsageString())
	})
	return cmd
}

// exit ends the process with the controller manager's status, or the check's when it has one.
func exit(code, checkStatus int) {
	if code == 0 {
		code = checkStatus
	}
	os.Exit(code)
}
