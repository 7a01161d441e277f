// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package seclist_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	"k8s.io/apimachinery/pkg/types"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
	"github.com/oci-ccm/oci-ccm/seclist"
)

// The dry run before turning on loadBalancer.adoptUndescribedRules: list the rules without a
// description in the lists of this cluster's Services, and what each matches. Here the upstream
// CCM left a rule for Service default/web (port 80) and one for a Service deleted long ago (8443);
// port 22 is the user's own.
func ExampleManager_UndescribedRules() {
	srv := ocitest.New(ocitest.Options{})
	defer srv.Close()
	vcn := srv.AddVCN(core.Vcn{CidrBlock: common.String("10.0.0.0/16")})
	rule := func(port int) core.IngressSecurityRule {
		return core.IngressSecurityRule{Source: common.String("0.0.0.0/0"), Protocol: common.String("6"),
			TcpOptions: &core.TcpOptions{DestinationPortRange: &core.PortRange{Min: common.Int(port), Max: common.Int(port)}}}
	}
	list := srv.AddSecurityList(core.SecurityList{VcnId: vcn.Id,
		IngressSecurityRules: []core.IngressSecurityRule{rule(22), rule(80), rule(8443)}})
	subnet := srv.AddSubnet(core.Subnet{VcnId: vcn.Id, CidrBlock: common.String("10.0.1.0/24"), SecurityListIds: []string{*list.Id}})

	client, err := ociclient.New(ociclient.Options{Provider: srv.ConfigurationProvider(), Region: srv.Region(),
		Host: srv.URL(), HTTPClient: srv.HTTPClient()})
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := seclist.NewManager(client.VirtualNetwork, seclist.Options{
		Policy: seclist.PolicyFromConfig(&config.Config{ClusterID: "prod"}),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The CCM primes the Manager with every LB Service's claim once its caches have synced.
	err = m.Prime([]seclist.Claim{{Service: types.NamespacedName{Namespace: "default", Name: "web"}, Mode: config.SecurityListModeFrontend,
		LBSubnets: []string{*subnet.Id}, ListenerPorts: []int{80}}})
	if err != nil {
		fmt.Println(err)
		return
	}

	rules, err := m.UndescribedRules(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rules {
		match := "matches no Service"
		if len(r.Services) > 0 {
			var names []string
			for _, s := range r.Services {
				names = append(names, s.String()) // namespace/name
			}
			match = "taken over with adoptUndescribedRules, needed by " + strings.Join(names, ", ")
		}
		fmt.Printf("%s: %s\n", r.Text, match)
	}
	// Output:
	// ingress 6 from 0.0.0.0/0 to port 22: matches no Service
	// ingress 6 from 0.0.0.0/0 to port 80: taken over with adoptUndescribedRules, needed by default/web
	// ingress 6 from 0.0.0.0/0 to port 8443: matches no Service
}
