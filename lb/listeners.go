// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// portsAndListeners builds, per Service port, a listener on the port and a backend set on its
// node port. Backend sets are keyed by the Service port, not the targetPort, so two ports with the
// same targetPort (nginx serving 80 and 443 from one container port) get one each.
func (d *desiredBuilder) portsAndListeners(spec *model.Spec, ips []string) {
	p := d.p
	protocol := p.oneOfOrEmpty(annotation.BackendProtocol, protocolTCP, protocolTCP, protocolHTTP, protocolGRPC)
	policy := p.oneOf(annotation.Policy, defaultPolicy, "ROUND_ROBIN", "LEAST_CONNECTIONS", "IP_HASH")
	idleDefault := defaultIdleTimeoutHTTP
	if protocol == protocolTCP {
		idleDefault = defaultIdleTimeoutTCP
	}
	idle := p.intRangeOrEmpty(annotation.ConnectionIdleTimeout, idleDefault, 1, 7200, " seconds")
	proxy := p.intRangeOrEmpty(annotation.ProxyProtocolVersion, 0, 1, 2, "")
	if proxy != 0 && protocol != protocolTCP {
		p.add(problemf(annotation.ProxyProtocolVersion, p.ann[string(annotation.ProxyProtocolVersion)],
			"no value with backend protocol %s (the PROXY header is sent by TCP listeners only)", protocol))
	}

	sslPorts := p.ports(annotation.SSLPorts)
	listenerCert, backendCert := d.certificates(spec, len(sslPorts) > 0)
	if len(sslPorts) > 0 && listenerCert == "" && backendCert == "" && !p.has(annotation.TLSSecret) && !p.has(annotation.TLSBackendSetSecret) {
		p.add(problemf(annotation.SSLPorts, p.ann[string(annotation.SSLPorts)],
			"ports to terminate TLS on, together with %s (or %s)", annotation.TLSSecret, annotation.TLSBackendSetSecret))
	}
	listenerCipher, listenerProtocols := p.sslConfig(annotation.ListenerSSLConfig)
	backendCipher, backendProtocols := p.sslConfig(annotation.BackendSetSSLConfig)
	if protocol == protocolGRPC && listenerCipher == "" {
		listenerCipher = defaultGRPCCipherSuite
	}
	hc := d.healthCheck(backendCert != "")

	servicePorts := make([]int, 0, len(d.svc.Spec.Ports))
	for _, sp := range d.svc.Spec.Ports {
		servicePorts = append(servicePorts, int(sp.Port))
	}
	for _, port := range sslPorts {
		if !slices.Contains(servicePorts, port) {
			p.add(problemf(annotation.SSLPorts, p.ann[string(annotation.SSLPorts)],
				"ports of this Service (%s); %d is not one", joinInts(servicePorts), port))
		}
	}

	spec.Listeners = make(map[string]model.Listener, len(d.svc.Spec.Ports))
	spec.BackendSets = make(map[string]model.BackendSet, len(d.svc.Spec.Ports))
	for i, sp := range d.svc.Spec.Ports {
		if sp.Protocol != "" && sp.Protocol != v1.ProtocolTCP {
			p.add(&Problem{Field: fmt.Sprintf("spec.ports[%d].protocol", i), Value: string(sp.Protocol),
				Allowed: "TCP (OCI load balancers forward TCP only)"})
			continue
		}
		nodePort, ok := p.allocatedNodePort(i, sp)
		if !ok {
			continue
		}
		port := int(sp.Port)
		ssl := slices.Contains(sslPorts, port)

		bs := model.BackendSet{
			Name:        backendSetName(v1.ProtocolTCP, port),
			Policy:      policy,
			Backends:    make([]model.Backend, 0, len(ips)),
			HealthCheck: hc,
		}
		for _, ip := range ips {
			bs.Backends = append(bs.Backends, model.Backend{IP: ip, Port: nodePort})
		}
		if ssl && backendCert != "" {
			bs.TLS = &model.TLS{Certificate: backendCert, CipherSuite: backendCipher, Protocols: slices.Clone(backendProtocols)}
		}

		l := model.Listener{
			Name:                 listenerName(protocol, port),
			Protocol:             protocol,
			Port:                 port,
			BackendSet:           bs.Name,
			IdleTimeoutSeconds:   int64(idle),
			ProxyProtocolVersion: proxy,
			// Every listener applies every rule set, as upstream's getListeners does.
			Routing: model.ListenerRouting{RuleSets: ruleSetNames(spec.RuleSets)},
		}
		if ssl && listenerCert != "" {
			l.TLS = &model.TLS{Certificate: listenerCert, CipherSuite: listenerCipher, Protocols: slices.Clone(listenerProtocols)}
		}
		if protocol == protocolGRPC && l.TLS == nil {
			p.add(problemf(annotation.BackendProtocol, p.ann[string(annotation.BackendProtocol)],
				"GRPC only with TLS on every port: port %d needs to be in %s, with %s set", port, annotation.SSLPorts, annotation.TLSSecret))
		}
		spec.BackendSets[bs.Name] = bs
		spec.Listeners[l.Name] = l
		spec.Ports = append(spec.Ports, model.Port{Protocol: v1.ProtocolTCP, Listener: port, NodePort: nodePort, HealthCheck: hc.Port})
	}
}

// certificates reads the TLS Secrets into spec.Certificates and returns the names of the
// listener and backend-set certificates ("" when not configured).
func (d *desiredBuilder) certificates(spec *model.Spec, needed bool) (listener, backend string) {
	if !needed {
		return "", ""
	}
	for _, a := range []annotation.Name{annotation.TLSSecret, annotation.TLSBackendSetSecret} {
		v := d.p.str(a, "")
		if v == "" {
			continue
		}
		ref, ok := parseSecretRef(v, d.svc.Namespace)
		if !ok {
			d.p.add(problemf(a, v, "a Secret reference: name or namespace/name"))
			continue
		}
		sec, ok := d.secrets[ref]
		if !ok {
			d.p.add(problemf(a, v, "the name of an existing Secret (%s was not found)", ref))
			continue
		}
		cert := model.Certificate{
			PublicCertificate: strings.TrimSpace(sec.Certificate),
			CACertificate:     strings.TrimSpace(sec.CA),
			PrivateKey:        sec.Key,
			Passphrase:        sec.Passphrase,
		}
		if a == annotation.TLSSecret && (cert.PublicCertificate == "" || cert.PrivateKey == "") {
			d.p.add(problemf(a, v, "a Secret with %s and %s (Secret %s lacks one)", secretKeyCertificate, secretKeyKey, ref))
			continue
		}
		if a == annotation.TLSBackendSetSecret && cert.PublicCertificate == "" && cert.CACertificate == "" {
			d.p.add(problemf(a, v, "a Secret with %s or %s (Secret %s has neither)", secretKeyCA, secretKeyCertificate, ref))
			continue
		}
		cert.Name = certificateName(ref.Name, cert)
		spec.Certificates[cert.Name] = cert
		if a == annotation.TLSSecret {
			listener = cert.Name
		} else {
			backend = cert.Name
		}
	}
	return listener, backend
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}

// allocatedNodePort is the node port of sp, the Service's port i, or a problem when it has none
// (spec.allocateLoadBalancerNodePorts false): both kinds forward to node ports.
func (p *parser) allocatedNodePort(i int, sp v1.ServicePort) (int, bool) {
	if sp.NodePort == 0 {
		p.add(&Problem{Field: fmt.Sprintf("spec.ports[%d].nodePort", i), Value: "0",
			Allowed: "an allocated node port (spec.allocateLoadBalancerNodePorts must not be false)"})
		return 0, false
	}
	return int(sp.NodePort), true
}
