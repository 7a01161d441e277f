// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package service

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/seclist"
)

const backNSG = "ocid1.networksecuritygroup.oc1..back"

// dns is a network load balancer Service with DNS on TCP and UDP 53 and a UDP-only port 5353.
func dns(mode config.SecurityListMode, preserve bool) *model.Spec {
	return &model.Spec{
		Kind: model.KindNetworkLoadBalancer, Subnets: []string{"lb-a"}, SecurityListMode: mode, PreserveSource: preserve,
		SourceCIDRs: []string{"198.51.100.0/24"}, BackendNSGs: []string{backNSG}, CompartmentID: "ocid1.compartment.oc1..lbs",
		Owner: model.Owner{Cluster: "c1", Service: "kube-system/dns", UID: "uid-dns"},
		Ports: []model.Port{
			{Protocol: v1.ProtocolTCP, Listener: 53, NodePort: 30053, HealthCheck: 31000},
			{Protocol: v1.ProtocolUDP, Listener: 53, NodePort: 30054, HealthCheck: 31000},
			{Protocol: v1.ProtocolUDP, Listener: 5353, NodePort: 30055, HealthCheck: 31000},
		},
	}
}

func TestClaimForSplitsUDPPortsAndCarriesPreserveSourceAndBackendNSGs(t *testing.T) {
	got := ClaimFor(types.NamespacedName{Namespace: "kube-system", Name: "dns"}, dns(config.SecurityListModeNSG, true), []string{"nodes"})
	want := seclist.Claim{Service: types.NamespacedName{Namespace: "kube-system", Name: "dns"}, Mode: config.SecurityListModeNSG,
		LBSubnets: []string{"lb-a"}, NodeSubnets: []string{"nodes"},
		SourceCIDRs: []string{"198.51.100.0/24"}, BackendNSGs: []string{backNSG}, PreserveSource: true,
		ListenerPorts: []int{53}, NodePorts: []int{30053}, UDPListenerPorts: []int{53, 5353}, UDPNodePorts: []int{30054, 30055},
		HealthCheckPort: 31000}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("claim (-want +got):\n%s", diff)
	}
}

func TestFrontendOfNamesTheServiceAndWhereItsLoadBalancerIs(t *testing.T) {
	got := frontendOf(dns(config.SecurityListModeNSG, false))
	want := seclist.Frontend{Service: types.NamespacedName{Namespace: "kube-system", Name: "dns"}, UID: "uid-dns",
		Mode: config.SecurityListModeNSG, Subnets: []string{"lb-a"}, CompartmentID: "ocid1.compartment.oc1..lbs"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("frontend (-want +got):\n%s", diff)
	}
}
