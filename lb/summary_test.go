// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

func TestAPlansSummaryListsItsChangesInAFewWords(t *testing.T) {
	tls := func(v string) Secrets { return Secrets{webTLS: testTLS(v)} }
	name := string(testService().UID)
	tests := []struct {
		name          string
		before, after *model.Spec // before nil: create
		want          string
	}{
		{"no change says nothing",
			mustDesired(t, testService(), nodes(1), nil), mustDesired(t, testService(), nodes(1), nil), ""},
		{"create counts what is created",
			nil, mustDesired(t, testService(), nodes(1, 2), nil),
			fmt.Sprintf(`load balancer %q: + load balancer %s: 1 listener, 1 backend set, 0 certificates`, name, name)},
		{"a node joining adds one backend",
			mustDesired(t, testService(), nodes(1, 2), nil), mustDesired(t, testService(), nodes(1, 2, 3), nil),
			fmt.Sprintf(`load balancer %q: ~ backend set TCP-80: +1 backend`, name)},
		{"a node swapped for another",
			mustDesired(t, testService(), nodes(1, 2), nil), mustDesired(t, testService(), nodes(1, 3), nil),
			fmt.Sprintf(`load balancer %q: ~ backend set TCP-80: +1 backend, -1 backend`, name)},
		{"a port added is a backend set and a listener",
			mustDesired(t, testService(), nodes(1), nil),
			mustDesired(t, testService(withPorts(tcpPort("http", 80, 30080), tcpPort("alt", 8080, 30880))), nodes(1), nil),
			fmt.Sprintf(`load balancer %q: + backend set TCP-8080; + listener TCP-8080`, name)},
		{"a rotated certificate is created, switched to, and the old one deleted",
			mustDesired(t, tlsService(), nodes(1), tls("v1")), mustDesired(t, tlsService(), nodes(1), tls("v2")),
			fmt.Sprintf(`load balancer %q: + certificate %s; ~ listener TCP-443: TLS.Certificate: %q → %q; - certificate %s`,
				name, certName("v2"), certName("v1"), certName("v2"), certName("v1"))},
		{"a health check change names the field",
			mustDesired(t, testService(), nodes(1), nil),
			mustDesired(t, testService(withAnnotation(annotation.HealthCheckRetries, "5")), nodes(1), nil),
			fmt.Sprintf(`load balancer %q: ~ backend set TCP-80: HealthCheck.Retries: 3 → 5`, name)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var observed *model.Spec
			if tc.before != nil {
				observed = asObserved(tc.before)
			}
			plan, err := Diff(observed, tc.after)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, plan.Summary()); diff != "" {
				t.Errorf("Summary (-want +got):\n%s\nplan:\n%s", diff, plan)
			}
		})
	}
}
