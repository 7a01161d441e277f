// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/oci-ccm/oci-ccm/ccm/service"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// outcome is what the steps measured, for the test to check.
type outcome struct {
	// IPs is each Service's load balancer address after it was created.
	IPs map[string]string
	// BackendsAfterJoin is, per load balancer and backend set, the number of backends after the
	// fourth node joined.
	BackendsAfterJoin map[string]map[string]int
	// PortChange and Rotation are the work requests of those steps, in the order OCI accepted them.
	PortChange, Rotation []ocitest.WorkRequestInfo
	// CertBefore and CertAfter are the certificate shop's TLS listener presented before and after
	// the rotation; CertsAfter the certificates its load balancer then held.
	CertBefore, CertAfter string
	CertsAfter            []string
	// JoinCalls are the OCI calls the join caused.
	JoinCalls ocitest.Calls
	// DeletedGone says the deleted Service's load balancer no longer existed in OCI.
	DeletedGone bool
	// NSGRules counts the rules Service dns (mode NSG) had in its frontend NSG and the nodes'
	// NSG; NSGLeft what was left of them (and of the frontend NSG) after its deletion.
	NSGRules, NSGLeft int
	// NLBListeners describes, per listener, the network load balancer of examples/services/nlb.yaml;
	// NLBGone says it no longer existed after its Service was deleted.
	NLBListeners map[string]string
	NLBGone      bool
	// RuleSetAdded and RuleSetRemoved are the work requests of giving Service web a rule set and
	// of taking it away; RuleSetsLeft and RuleSetTagsLeft what was left of it after.
	RuleSetAdded, RuleSetRemoved []ocitest.WorkRequestInfo
	RuleSetsLeft                 []string
	RuleSetTagsLeft              int
}

const (
	web, shop, api = "default/web", "default/shop", "default/api"
	tlsListener    = "TCP-443"
)

var exampleFiles = []struct{ file, service string }{
	{"plain.yaml", web}, {"tls.yaml", shop}, {"internal.yaml", api},
}

func (d *demo) steps() []step {
	return []step{
		{"An in-memory OCI (ocitest), seeded with a small tenancy", d.showTenancy},
		{"Three nodes register; the cloud-node controller initialises them", d.registerNodes},
		{"Three Services of type LoadBalancer, from examples/services", d.applyServices},
		{"A fourth node joins", d.joinNode},
		{"Service web moves from port 80 to port 8080", d.changePort},
		{"The certificate in Secret shop-tls is rotated", d.rotateCertificate},
		{"Service api is deleted", d.deleteService},
		{"Service dns keeps its rules in network security groups (mode NSG), then is deleted", d.nsgService},
		{"Service dns again, now a network load balancer: UDP and TCP on port 53, client addresses kept", d.nlbService},
		{"Service web turns HTTP with a rule set that adds a request header, then drops the rule set", d.ruleSets},
	}
}

func (d *demo) showTenancy(context.Context) error {
	t := tenancy()
	d.n.say("region %s, compartment %s, VCN %s %s", d.srv.Region(), short(d.seeded.Compartment), t.VCN.Name, t.VCN.CIDR)
	// The OCID column is how the plans below name the subnets.
	rows := [][]string{{"SUBNET", "CIDR", "AVAILABILITY DOMAIN", "SECURITY LIST", "USED FOR", "OCID"}}
	for _, sn := range t.Subnets {
		rows = append(rows, []string{sn.Name, sn.CIDR, cmp.Or(sn.AvailabilityDomain, "regional"), strings.Join(sn.SecurityLists, ","),
			cmp.Or(sn.Role, "-"), short(d.seeded.Subnets[sn.Name])})
	}
	d.n.table(rows)
	rows = [][]string{{"INSTANCE", "SHAPE", "AVAILABILITY DOMAIN", "FAULT DOMAIN", "PRIVATE IP", "PUBLIC IP"}}
	for _, in := range t.Instances {
		rows = append(rows, d.instanceRow(d.seeded.Instances[in.Name]))
	}
	d.n.table(rows)
	d.n.say("node-1..3 are the cluster's nodes; node-4 is still booting and joins in step 4.")
	d.n.say("The provider's configuration (what cloud-provider.yaml holds) names the compartment, the")
	d.n.say("VCN and the load balancer subnets lb-1 and lb-2; security lists are managed (mode All);")
	d.n.say("load balancers are named namespace-name. Its API key is registered with the server, which")
	d.n.say("checks the signature of every call.")
	return nil
}

func (d *demo) instanceRow(id string) []string {
	inst, _ := d.srv.Instance(id)
	private, public := "-", "-"
	if vnics := d.srv.InstanceVNICs(id); len(vnics) > 0 {
		private, public = cmp.Or(deref(vnics[0].PrivateIp), "-"), cmp.Or(deref(vnics[0].PublicIp), "-")
	}
	return []string{deref(inst.DisplayName), deref(inst.Shape), deref(inst.AvailabilityDomain), deref(inst.FaultDomain), private, public}
}

func (d *demo) registerNodes(ctx context.Context) error {
	names := []string{"node-1", "node-2", "node-3"}
	for _, name := range names {
		if err := d.register(ctx, name); err != nil {
			return err
		}
	}
	d.n.say("Each registers as a kubelet started with --cloud-provider=external and --node-ip would:")
	d.n.say("Ready, its InternalIP, no provider ID, and the taint node.cloudprovider.kubernetes.io/uninitialized.")
	if err := d.waitFor(ctx, "initialisation of node-1..3", func() bool { return d.nodesInitialised(ctx, names...) }); err != nil {
		return err
	}
	return d.showNodes(ctx, names...)
}

// register creates the Node of an instance, as its kubelet does.
func (d *demo) register(ctx context.Context, name string) error {
	vnics := d.srv.InstanceVNICs(d.seeded.Instances[name])
	if len(vnics) == 0 || vnics[0].PrivateIp == nil {
		return fmt.Errorf("instance %s has no private IP", name)
	}
	_, err := d.kube.CoreV1().Nodes().Create(ctx, registeringNode(name, *vnics[0].PrivateIp), metav1.CreateOptions{})
	return err
}

func (d *demo) nodesInitialised(ctx context.Context, names ...string) bool {
	for _, name := range names {
		n, err := d.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil || !initialised(n) {
			return false
		}
	}
	return true
}

func (d *demo) showNodes(ctx context.Context, names ...string) error {
	d.n.say("The cloud-node controller asked the provider about each and wrote back (taint removed):")
	rows := [][]string{{"NODE", "PROVIDER ID", "INSTANCE TYPE", "ZONE", "INTERNAL IP", "EXTERNAL IP"}}
	for _, name := range names {
		n, err := d.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		rows = append(rows, []string{name, short(n.Spec.ProviderID), n.Labels[v1.LabelInstanceTypeStable],
			n.Labels[v1.LabelTopologyZone], address(n, v1.NodeInternalIP), address(n, v1.NodeExternalIP)})
	}
	d.n.table(rows)
	return nil
}

func (d *demo) applyServices(ctx context.Context) error {
	secret, cert, err := tlsSecret("default", "shop-tls", "shop.example.com")
	if err != nil {
		return err
	}
	if _, err := d.kube.CoreV1().Secrets("default").Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		return err
	}
	d.n.say("Secret default/shop-tls: a self-signed certificate for %s, made just now (serial %x…).", cert.Subject.CommonName, cert.SerialNumber.Bytes()[:4])
	// The provider reads only the Secrets Services reference: it starts watching shop-tls when
	// Service shop appears, and re-queues shop as soon as it has read it.

	rulesBefore, mark := ownedRules(d.srv, d.seeded), d.calls.mark()
	var services []string
	for _, ex := range exampleFiles {
		svc, err := readService(d.servicesDir, ex.file)
		if err != nil {
			return err
		}
		if _, err := d.kube.CoreV1().Services(svc.Namespace).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			return err
		}
		services = append(services, ex.service)
		d.n.say("applied %s/%s: Service %s", servicesDir, ex.file, ex.service)
	}
	if err := d.settled(ctx, "a load balancer address for every Service", mark, services,
		method("EnsureLoadBalancer"), func() bool { return len(d.ingressIPs(ctx, services...)) == len(services) }); err != nil {
		return err
	}
	d.n.plans(d.rec.takePlans())
	d.showRuleChanges(ruleChanges(rulesBefore, ownedRules(d.srv, d.seeded)), "none needed")
	d.out.IPs = d.ingressIPs(ctx, services...)
	rows := [][]string{{"SERVICE", "ADDRESS", "LOAD BALANCER", "LISTENERS", "BACKENDS PER SET"}}
	for _, s := range services {
		lb, _ := loadBalancer(d.srv, lbName(s))
		rows = append(rows, []string{s, d.out.IPs[s], lbName(s), strings.Join(slices.Sorted(maps.Keys(lb.Listeners)), " "), countsText(backendCounts(lb))})
	}
	d.n.say("Service status, written by the service controller from what the provider returned:")
	d.n.table(rows)
	return nil
}

// ingressIPs returns the load balancer address in each Service's status, for those that have one.
func (d *demo) ingressIPs(ctx context.Context, services ...string) map[string]string {
	ips := map[string]string{}
	for _, s := range services {
		ns, name, _ := strings.Cut(s, "/")
		svc, err := d.kube.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
		if err == nil && len(svc.Status.LoadBalancer.Ingress) > 0 && svc.Status.LoadBalancer.Ingress[0].IP != "" {
			ips[s] = svc.Status.LoadBalancer.Ingress[0].IP
		}
	}
	return ips
}

// showRuleChanges shows the security list rules a step added, changed and removed; why explains
// no change.
func (d *demo) showRuleChanges(rows [][]string, why string) {
	if len(rows) == 0 {
		d.n.say("Security lists: no change (%s).", why)
		return
	}
	d.n.say("Security list rules the provider changed (each described \"oci-ccm cluster=%s\"):", clusterName)
	d.n.table(rows)
}

func (d *demo) joinNode(ctx context.Context) error {
	d.n.say("Instance node-4 has booted; its kubelet registers Node node-4.")
	calls, rulesBefore, mark := d.srv.Calls(), ownedRules(d.srv, d.seeded), d.calls.mark()
	if err := d.register(ctx, "node-4"); err != nil {
		return err
	}
	all := []string{web, shop, api}
	// The service controller syncs load balancers when the Node appears and again when it gets its
	// provider ID; the step is over after the second.
	initialisedNode4 := func(c lbCall) bool { return slices.Contains(c.Initialised, "node-4") }
	if err := d.settled(ctx, "node-4 in every backend set", mark, all, initialisedNode4,
		func() bool { return d.nodesInitialised(ctx, "node-4") && d.everyBackendSetHas(4, all...) }); err != nil {
		return err
	}
	if err := d.showNodes(ctx, "node-4"); err != nil {
		return err
	}
	d.out.JoinCalls = d.srv.Calls().Since(calls)
	d.n.plans(d.rec.takePlans())
	d.showRuleChanges(ruleChanges(rulesBefore, ownedRules(d.srv, d.seeded)),
		"node-4 is in subnet nodes, whose rules already let the load balancers in")
	d.out.BackendsAfterJoin = map[string]map[string]int{}
	var now []string
	for _, s := range all {
		lb, _ := loadBalancer(d.srv, lbName(s))
		d.out.BackendsAfterJoin[lbName(s)] = backendCounts(lb)
		now = append(now, lbName(s)+" "+countsText(backendCounts(lb)))
	}
	d.n.say("Backends per set now: %s.", strings.Join(now, "; "))
	return nil
}

// everyBackendSetHas reports whether every backend set of the Services' load balancers has n
// backends.
func (d *demo) everyBackendSetHas(n int, services ...string) bool {
	for _, s := range services {
		lb, ok := loadBalancer(d.srv, lbName(s))
		if !ok || len(lb.BackendSets) == 0 {
			return false
		}
		for _, c := range backendCounts(lb) {
			if c != n {
				return false
			}
		}
	}
	return true
}

func countsText(counts map[string]int) string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%s: %d", name, counts[name]))
	}
	return strings.Join(parts, ", ")
}

func (d *demo) changePort(ctx context.Context) error {
	svc, err := d.kube.CoreV1().Services("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		return err
	}
	i := slices.IndexFunc(svc.Spec.Ports, func(p v1.ServicePort) bool { return p.Port == 80 })
	if i < 0 {
		return errors.New("the web Service has no port 80")
	}
	svc.Spec.Ports[i].Port = 8080
	known, rulesBefore, mark := workRequestIDs(d.srv), ownedRules(d.srv, d.seeded), d.calls.mark()
	if _, err := d.kube.CoreV1().Services("default").Update(ctx, svc, metav1.UpdateOptions{}); err != nil {
		return err
	}
	d.n.say("Service web: spec.ports[%d].port 80 → 8080 (node port %d unchanged).", i, svc.Spec.Ports[i].NodePort)
	if err := d.settled(ctx, "listener TCP-8080 replacing TCP-80", mark, []string{web}, method("EnsureLoadBalancer"), func() bool {
		lb, ok := loadBalancer(d.srv, lbName(web))
		_, has8080 := lb.Listeners["TCP-8080"]
		_, has80 := lb.Listeners["TCP-80"]
		return ok && has8080 && !has80
	}); err != nil {
		return err
	}
	d.n.plans(d.rec.takePlans())
	d.out.PortChange = workRequestsSince(d.srv, known)
	d.showWorkRequests(d.out.PortChange)
	d.showRuleChanges(ruleChanges(rulesBefore, ownedRules(d.srv, d.seeded)), "none needed")
	return nil
}

func (d *demo) showWorkRequests(wrs []ocitest.WorkRequestInfo) {
	d.n.say("Work requests, in the order OCI accepted them (one at a time, each awaited):")
	rows := [][]string{{"#", "OPERATION", "STATE"}}
	for i, wr := range wrs {
		rows = append(rows, []string{fmt.Sprint(i + 1), wr.Operation, wr.State})
	}
	d.n.table(rows)
}

func (d *demo) rotateCertificate(ctx context.Context) error {
	before, ok := loadBalancer(d.srv, lbName(shop))
	if !ok {
		return fmt.Errorf("load balancer %s is missing", lbName(shop))
	}
	d.out.CertBefore = listenerCertificate(before, tlsListener)
	secret, cert, err := tlsSecret("default", "shop-tls", "shop.example.com")
	if err != nil {
		return err
	}
	known, mark := workRequestIDs(d.srv), d.calls.mark()
	if _, err := d.kube.CoreV1().Secrets("default").Update(ctx, secret, metav1.UpdateOptions{}); err != nil {
		return err
	}
	d.n.say("Secret default/shop-tls now holds a new certificate (serial %x…).", cert.SerialNumber.Bytes()[:4])
	if err := d.settled(ctx, "listener "+tlsListener+" presenting the new certificate", mark, []string{shop}, method("EnsureLoadBalancer"), func() bool {
		lb, ok := loadBalancer(d.srv, lbName(shop))
		_, oldKept := lb.Certificates[d.out.CertBefore]
		current := listenerCertificate(lb, tlsListener)
		return ok && current != "" && current != d.out.CertBefore && !oldKept
	}); err != nil {
		return err
	}
	svc, err := d.kube.CoreV1().Services("default").Get(ctx, "shop", metav1.GetOptions{})
	if err != nil {
		return err
	}
	d.n.say("The service controller does not watch Secrets; the provider does, and re-queued Service")
	d.n.say("shop by setting its annotation %s=%s.", service.AnnotationSecretsHash, svc.Annotations[service.AnnotationSecretsHash])
	d.n.plans(d.rec.takePlans())
	d.out.Rotation = workRequestsSince(d.srv, known)
	d.showWorkRequests(d.out.Rotation)
	after, _ := loadBalancer(d.srv, lbName(shop))
	d.out.CertAfter, d.out.CertsAfter = listenerCertificate(after, tlsListener), slices.Sorted(maps.Keys(after.Certificates))
	d.n.say("Listener %s: certificate %s → %s; the load balancer holds %s.", tlsListener, d.out.CertBefore, d.out.CertAfter,
		strings.Join(d.out.CertsAfter, ", "))
	return nil
}

func (d *demo) deleteService(ctx context.Context) error {
	rulesBefore, mark := ownedRules(d.srv, d.seeded), d.calls.mark()
	if err := d.kube.CoreV1().Services("default").Delete(ctx, "api", metav1.DeleteOptions{}); err != nil {
		return err
	}
	d.n.say("The API server only marks Service api for deletion: it carries the service controller's")
	d.n.say("finalizer, removed once the provider has deleted the load balancer.")
	if err := d.settled(ctx, "deletion of Service api and its load balancer", mark, []string{api}, method("EnsureLoadBalancerDeleted"), func() bool {
		_, err := d.kube.CoreV1().Services("default").Get(ctx, "api", metav1.GetOptions{})
		_, exists := loadBalancer(d.srv, lbName(api))
		return apierrors.IsNotFound(err) && !exists
	}); err != nil {
		return err
	}
	d.n.plans(d.rec.takePlans())
	d.showRuleChanges(ruleChanges(rulesBefore, ownedRules(d.srv, d.seeded)), "none needed")
	d.n.say("The rules now let in only what web and shop use: api's listener port and health check")
	d.n.say("port are removed, and the range of node ports no longer includes api's.")
	_, exists := loadBalancer(d.srv, lbName(api))
	d.out.DeletedGone = !exists
	var left []string
	for _, lb := range d.srv.LoadBalancers() {
		left = append(left, deref(lb.DisplayName))
	}
	d.n.say("Load balancers left in OCI: %s.", strings.Join(left, ", "))
	return nil
}
