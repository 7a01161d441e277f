// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
)

// Status is what oci-ccm does with an upstream key.
type Status string

// The statuses. There is no "unknown": a key whose outcome is none of these fails generation.
const (
	Supported            Status = "supported"
	SupportedDifferently Status = "supported, with a difference"
	Refused              Status = "refused"
)

// Row is one line of the compatibility table.
type Row struct {
	Key    string
	Status Status
	// Note is the difference (SupportedDifferently), the refusal's message (Refused), or empty.
	Note string
}

// errUnknown marks a key oci-ccm neither implements nor refuses: it would be ignored silently.
var errUnknown = errors.New("neither implemented nor refused (silently ignored)")

// classifyAnnotation runs lb.Desired on a Service carrying the annotation (and what it needs
// beside it) and reports what oci-ccm does with it.
func classifyAnnotation(a upstreamAnnotation) (Row, error) {
	ann := map[string]string{a.Key: a.Value}
	for k, v := range a.With {
		ann[k] = v
	}
	svc := sampleService(ann)
	if a.Spec != nil {
		a.Spec(&svc.Spec)
	}
	_, err := lb.Desired(svc, sampleNodes(), sampleConfig(), anySecret(svc))
	var ve *lb.ValidationError
	switch {
	case errors.As(err, &ve):
		for _, p := range ve.Problems {
			if p.Field == a.Key {
				return Row{Key: a.Key, Status: Refused, Note: fmt.Sprintf("%q: %s", a.Value, p.Allowed)}, nil
			}
		}
		return Row{}, fmt.Errorf("annotation %s: the sample is refused for another reason: %w", a.Key, err)
	case err != nil:
		return Row{}, fmt.Errorf("annotation %s: %w", a.Key, err)
	case !slices.Contains(annotation.All(), annotation.Name(a.Key)):
		return Row{}, fmt.Errorf("annotation %s: %w", a.Key, errUnknown)
	case a.Difference != "":
		return Row{Key: a.Key, Status: SupportedDifferently, Note: a.Difference}, nil
	}
	return Row{Key: a.Key, Status: Supported}, nil
}

// classifyConfigKey loads a document setting the key and reports what config.Load makes of it:
// an error is a refusal, a warning on the key a difference (deprecated or ignored), silence
// support, but only when the key is one of the current schema's.
func classifyConfigKey(k upstreamConfigKey) (Row, error) {
	cfg, warnings, err := config.Load(strings.NewReader(k.YAML))
	if err != nil {
		var ve *config.ValidationError
		if errors.As(err, &ve) {
			for _, fe := range ve.Errors {
				if fe.Field == k.Key {
					return Row{Key: k.Key, Status: Refused, Note: fe.Detail}, nil
				}
			}
		}
		return Row{}, fmt.Errorf("config key %s: refused without naming it: %w", k.Key, err)
	}
	for _, w := range warnings {
		if w.Field == k.Key {
			return Row{Key: k.Key, Status: SupportedDifferently, Note: "accepted with a warning: " + w.Message}, nil
		}
	}
	if cfg == nil {
		return Row{}, fmt.Errorf("config key %s: %w", k.Key, errUnknown)
	}
	if k.Difference != "" {
		return Row{Key: k.Key, Status: SupportedDifferently, Note: k.Difference}, nil
	}
	return Row{Key: k.Key, Status: Supported}, nil
}

// upstreamPrefixVariable is the upstream CCM's environment variable for a load balancer name prefix.
const upstreamPrefixVariable = "LOAD_BALANCER_PREFIX"

// classifyEnvironment reports what the binary does with the upstream CCM's environment variable.
func classifyEnvironment() (Row, error) {
	err := config.CheckEnvironment(func(k string) string {
		if k == upstreamPrefixVariable {
			return "prod-"
		}
		return ""
	})
	if err == nil {
		return Row{}, fmt.Errorf("environment %s: %w", upstreamPrefixVariable, errUnknown)
	}
	return Row{Key: upstreamPrefixVariable, Status: Refused, Note: "the binary refuses to start: " + err.Error()}, nil
}

func sampleService(ann map[string]string) *v1.Service {
	return &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "0b7f4d5e-1c2a-4e8b-9f10-aa11bb22cc33", Annotations: ann},
		Spec: v1.ServiceSpec{
			Type:                  v1.ServiceTypeLoadBalancer,
			ExternalTrafficPolicy: v1.ServiceExternalTrafficPolicyCluster,
			Ports:                 []v1.ServicePort{{Name: "http", Protocol: v1.ProtocolTCP, Port: 80, NodePort: 30080}},
		},
	}
}

func sampleNodes() []*v1.Node {
	return []*v1.Node{{
		ObjectMeta: metav1.ObjectMeta{Name: "node-1", Labels: map[string]string{"pool": "web"}},
		Status:     v1.NodeStatus{Addresses: []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: "10.0.10.2"}}},
	}}
}

func sampleConfig() *config.Config {
	return &config.Config{
		CompartmentID: "ocid1.compartment.oc1..c",
		LoadBalancer:  config.LoadBalancer{Subnet1: "ocid1.subnet.oc1.phx.a"},
	}
}

// anySecret finds every Secret svc references: whether a Secret exists is not what is classified.
func anySecret(svc *v1.Service) lb.Secrets {
	found := lb.Secrets{}
	for _, ref := range lb.RequiredSecrets(svc) {
		found[ref] = lb.TLSSecret{
			Certificate: "-----BEGIN CERTIFICATE-----\nsample\n-----END CERTIFICATE-----",
			Key:         config.Secret("-----BEGIN PRIVATE KEY-----\nsample\n-----END PRIVATE KEY-----"),
			CA:          "-----BEGIN CERTIFICATE-----\nsample-ca\n-----END CERTIFICATE-----",
		}
	}
	return found
}
