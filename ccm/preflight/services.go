// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package preflight

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/internal/compatdata"
	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// checkServices reads the cluster's Services of type LoadBalancer, its Nodes and the TLS Secrets
// the Services name, and reports each Service oci-ccm manages.
func checkServices(ctx context.Context, r *Report, kube kubernetes.Interface, cfg *config.Config, table *compatdata.Table, upstreamPrefix string) error {
	services, err := kube.CoreV1().Services(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("list Services: %w", err)
	}
	nodeList, err := kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("list Nodes: %w", err)
	}
	nodes := make([]*v1.Node, len(nodeList.Items))
	for i := range nodeList.Items {
		nodes[i] = &nodeList.Items[i]
	}
	items := services.Items
	slices.SortFunc(items, func(a, b v1.Service) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	for i := range items {
		svc := &items[i]
		if svc.Spec.Type != v1.ServiceTypeLoadBalancer {
			continue
		}
		if !lb.Manages(svc) {
			r.OtherClass++
			continue
		}
		secrets, missing, err := readSecrets(ctx, kube, svc)
		if err != nil {
			return err
		}
		findings := refusals(svc, nodes, cfg, secrets, missing)
		findings = append(findings, differences(svc, table, findings)...)
		findings = append(findings, adoption(svc, cfg, upstreamPrefix)...)
		r.Services = append(r.Services, ServiceReport{Service: svc.Namespace + "/" + svc.Name, Findings: findings})
	}
	return nil
}

// readSecrets reads the TLS Secrets svc names; a Secret that does not exist is left out of the
// map (lb.Desired then refuses the annotation) and listed in missing.
func readSecrets(ctx context.Context, kube kubernetes.Interface, svc *v1.Service) (lb.Secrets, map[lb.SecretRef]bool, error) {
	secrets, missing := lb.Secrets{}, map[lb.SecretRef]bool{}
	for _, ref := range lb.RequiredSecrets(svc) {
		s, err := kube.CoreV1().Secrets(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			missing[ref] = true
		case err != nil:
			return nil, nil, fmt.Errorf("read Secret %s of Service %s/%s: %w", ref, svc.Namespace, svc.Name, err)
		default:
			secrets[ref] = lb.TLSSecretFromData(s.Data)
		}
	}
	return secrets, missing, nil
}

// refusals runs lb.Desired on svc and reports every problem: the annotation, its value and what
// is allowed, or that the Secret it names does not exist.
func refusals(svc *v1.Service, nodes []*v1.Node, cfg *config.Config, secrets lb.Secrets, missing map[lb.SecretRef]bool) []Finding {
	findings := []Finding{}
	_, err := lb.Desired(svc, nodes, cfg, lb.Known{Secrets: secrets})
	var ve *lb.ValidationError
	switch {
	case errors.As(err, &ve):
		for _, p := range ve.Problems {
			if ref, ok := missingSecret(svc, p, missing); ok {
				findings = append(findings, Finding{Severity: Refused, Key: p.Field, Value: p.Value,
					Message: "the Secret " + ref.String() + " does not exist",
					Fix:     "create it (tls.crt, tls.key) in namespace " + ref.Namespace + ", or correct the annotation"})
				continue
			}
			findings = append(findings, Finding{Severity: Refused, Key: p.Field, Value: p.Value,
				Message: "allowed: " + p.Allowed,
				Fix:     "change or remove it: oci-ccm does not reconcile the Service while it is refused"})
		}
	case err != nil:
		findings = append(findings, Finding{Severity: Refused, Key: "Service", Message: err.Error()})
	}
	return findings
}

// missingSecret returns the missing Secret p refuses a TLS Secret annotation for, if it is that.
func missingSecret(svc *v1.Service, p *lb.Problem, missing map[lb.SecretRef]bool) (lb.SecretRef, bool) {
	if p.Field != string(annotation.TLSSecret) && p.Field != string(annotation.TLSBackendSetSecret) {
		return lb.SecretRef{}, false
	}
	probe := &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: svc.Namespace, Annotations: map[string]string{p.Field: p.Value}}}
	for _, ref := range lb.RequiredSecrets(probe) {
		if missing[ref] {
			return ref, true
		}
	}
	return lb.SecretRef{}, false
}

// differences reports each annotation of svc whose comparison row is "supported, with a
// difference", with the documented difference: the row of an edge value svc carries (with what
// it needs beside it) when there is one, else the annotation's main row. An annotation already
// refused is left out.
func differences(svc *v1.Service, table *compatdata.Table, refused []Finding) []Finding {
	var out []Finding
	for _, key := range slices.Sorted(maps.Keys(svc.Annotations)) {
		row, ok := table.Annotations[key]
		if !ok || slices.ContainsFunc(refused, func(f Finding) bool { return f.Key == key }) {
			continue
		}
		status, note := row.Status, row.Note
		for _, e := range row.Edges {
			if e.Matches(key, svc.Annotations) {
				status, note = e.Status, e.Note
				if e.Condition != "" {
					note += " (when: " + e.Condition + ")"
				}
				break
			}
		}
		if status == compatdata.SupportedDifferently {
			out = append(out, Finding{Severity: Differs, Key: key, Value: svc.Annotations[key], Message: note})
		}
	}
	return out
}

// adoption reports what would make oci-ccm create a new load balancer for svc instead of adopting
// the one the upstream CCM made (lb.UpstreamName), and a rename under the name scheme. Only a
// Service with an address has one to adopt. Upstream reads the type annotation in any letter case.
func adoption(svc *v1.Service, cfg *config.Config, upstreamPrefix string) []Finding {
	if len(svc.Status.LoadBalancer.Ingress) == 0 {
		return nil
	}
	kind := model.KindLoadBalancer
	if v, _ := annotation.LoadBalancerType.Value(svc.Annotations); strings.EqualFold(strings.TrimSpace(v), "nlb") {
		kind = model.KindNetworkLoadBalancer
	}
	name := lb.UpstreamName(svc, upstreamPrefix, kind)
	found := lb.LookupNames(svc, cfg, kind)
	switch {
	case !slices.Contains(found, name):
		return []Finding{{Severity: NewLoadBalancer, Key: config.UpstreamPrefixVariable, Value: upstreamPrefix,
			Message: fmt.Sprintf("the upstream CCM's %s is named %q; oci-ccm looks it up as %s only, so it would create a second one, with a new address",
				kindName(kind), name, strings.Join(quoteAll(found), ", ")),
			Fix: fmt.Sprintf("run oci-ccm with %s=%s, or loadBalancer.naming.prefix: %s", config.UpstreamPrefixVariable, upstreamPrefix, upstreamPrefix)}}
	case found[0] != name && cfg.LoadBalancer.Naming.Scheme == config.NamingName:
		return []Finding{{Severity: Differs, Key: "loadBalancer.naming.scheme", Value: string(config.NamingName),
			Message: fmt.Sprintf("the upstream CCM's %s %q is adopted and renamed %q: upstream would not find it after a rollback", kindName(kind), name, found[0]),
			Fix:     "keep the default scheme uid to be able to roll back (ccm/MIGRATION.md, step 5)"}}
	}
	return nil
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

func kindName(k model.Kind) string {
	if k == model.KindNetworkLoadBalancer {
		return "network load balancer"
	}
	return "load balancer"
}
