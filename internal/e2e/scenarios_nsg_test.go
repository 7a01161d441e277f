// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/seclist"
)

// backendNSG is the network security group seeded for the nodes (NSGModeService).
const backendNSG = "nodes-nsg"

// testNSGModeService: a Service in security-rule mode NSG gets a frontend NSG that its load
// balancer is created in (tagged as the Service's), ingress rules in the backend NSG it names
// from that frontend NSG on its node port and the health-check port, and no security-list rule
// of its own; deleting it deletes the load balancer, the frontend NSG and the backend rules, and
// leaves the backend NSG's other rules as they were.
func testNSGModeService(t *testing.T, s *suite) {
	const name = "nsg-web"
	backend := s.oci.seeded.NetworkSecurityGroups[backendNSG]
	before := s.nsgRules(t, backend)
	svc := loadService(t, "plain.yaml", testNamespace)
	svc.Name = name
	svc.Spec.Ports[0].Port = 8181 // no other Service's port, so the lists' rules tell
	svc.Annotations[string(annotation.SecurityRuleManagementMode)] = "NSG"
	svc.Annotations[string(annotation.BackendNetworkSecurityGroups)] = backend
	if _, err := s.kube.CoreV1().Services(testNamespace).Create(s.ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	created := waitIngressIP(t, s, testNamespace, name)
	nodePort := int(created.Spec.Ports[0].NodePort)

	got, ok, err := s.oci.loadBalancerNamed(s.ctx, string(created.UID))
	if err != nil || !ok {
		t.Fatalf("no load balancer for %s (err %v)", name, err)
	}
	if len(got.NetworkSecurityGroupIds) != 1 {
		t.Fatalf("load balancer NSGs %v, want just the frontend NSG", got.NetworkSecurityGroupIds)
	}
	front := got.NetworkSecurityGroupIds[0]
	g, err := s.oci.network.GetNetworkSecurityGroup(s.ctx, core.GetNetworkSecurityGroupRequest{NetworkSecurityGroupId: &front})
	if err != nil {
		t.Fatal(err)
	}
	if g.FreeformTags[model.TagCluster] != clusterName || g.FreeformTags[model.TagService] != testNamespace+"/"+name {
		t.Errorf("frontend NSG tags %v, want cluster %s and Service %s/%s", g.FreeformTags, clusterName, testNamespace, name)
	}

	want := []string{fmt.Sprintf("INGRESS from %s:%d", front, lb.KubeProxyHealthPort), fmt.Sprintf("INGRESS from %s:%d", front, nodePort)}
	slices.Sort(want)
	eventually(t, s.ctx, convergeTimeout, "backend NSG rules from the frontend NSG", func(ctx context.Context) (bool, string, error) {
		owned := ownedNSGRules(s.nsgRules(t, backend))
		return slices.Equal(owned, want), strings.Join(owned, ", "), nil
	})
	frontRules := ownedNSGRules(s.nsgRules(t, front))
	if !slices.Contains(frontRules, "INGRESS from 0.0.0.0/0:8181") {
		t.Errorf("frontend NSG rules %v, want ingress from 0.0.0.0/0 on 8181", frontRules)
	}
	lists := []string{s.oci.seeded.SecurityLists["lb-1"], s.oci.seeded.SecurityLists["nodes"]}
	for _, id := range lists {
		l, err := s.oci.network.GetSecurityList(s.ctx, core.GetSecurityListRequest{SecurityListId: &id})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range l.IngressSecurityRules {
			if r.TcpOptions != nil && r.TcpOptions.DestinationPortRange != nil && *r.TcpOptions.DestinationPortRange.Min <= 8181 &&
				8181 <= *r.TcpOptions.DestinationPortRange.Max {
				t.Errorf("security list %s has a rule for the NSG-mode Service's port 8181: %v", id, r)
			}
		}
	}

	s.deleteService(t, testNamespace, name)
	if exists, err := s.oci.loadBalancerExists(s.ctx, deref(got.Id)); err != nil || exists {
		t.Errorf("load balancer %s still exists after the Service is gone (err %v)", deref(got.Id), err)
	}
	_, err = s.oci.network.GetNetworkSecurityGroup(s.ctx, core.GetNetworkSecurityGroupRequest{NetworkSecurityGroupId: &front})
	if !isNotFound(err) {
		t.Errorf("frontend NSG %s after the Service is gone: err %v, want 404", front, err)
	}
	if after := s.nsgRules(t, backend); !slices.EqualFunc(before, after, func(a, b core.SecurityRule) bool { return deref(a.Id) == deref(b.Id) }) {
		t.Errorf("backend NSG holds %d rules after the Service is gone, want its %d rules from before", len(after), len(before))
	}
}

// nsgRules lists a group's rules through the SDK.
func (s *suite) nsgRules(t *testing.T, id string) []core.SecurityRule {
	t.Helper()
	resp, err := s.oci.network.ListNetworkSecurityGroupSecurityRules(s.ctx, core.ListNetworkSecurityGroupSecurityRulesRequest{NetworkSecurityGroupId: &id})
	if err != nil {
		t.Fatal(err)
	}
	return resp.Items
}

// ownedNSGRules renders the rules this cluster owns as "DIRECTION from|to peer:port", sorted.
func ownedNSGRules(rules []core.SecurityRule) []string {
	var out []string
	for _, r := range rules {
		if deref(r.Description) != seclist.Owner(clusterName) || r.TcpOptions == nil || r.TcpOptions.DestinationPortRange == nil {
			continue
		}
		peer, prep := deref(r.Source), "from"
		if r.Direction == core.SecurityRuleDirectionEgress {
			peer, prep = deref(r.Destination), "to"
		}
		out = append(out, fmt.Sprintf("%s %s %s:%d", r.Direction, prep, peer, *r.TcpOptions.DestinationPortRange.Min))
	}
	slices.Sort(out)
	return out
}

// isNotFound reports whether err is OCI's 404.
func isNotFound(err error) bool {
	se, ok := common.IsServiceError(err)
	return ok && se.GetHTTPStatusCode() == 404
}
