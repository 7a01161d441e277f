// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package preflight

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
)

// fakeCluster is the fixture in a fake clientset, each Service's UID its name.
func fakeCluster() *fake.Clientset {
	var objs []runtime.Object
	for _, node := range fixtureNodes() {
		objs = append(objs, node)
	}
	objs = append(objs, fixtureSecret())
	for _, svc := range fixtureServices() {
		svc.UID = types.UID("uid-" + svc.Name)
		objs = append(objs, svc)
	}
	return fake.NewClientset(objs...)
}

func fakeUID(name string) types.UID { return types.UID("uid-" + name) }

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestServicesAreReportedWithWhatIsRefusedReadDifferentlyOrCreatedAnew(t *testing.T) {
	for _, tc := range []struct {
		name           string
		env            map[string]string
		upstreamPrefix *string
		wantPrefix     string // the upstream prefix the want is made with
		wantConfig     []Finding
		wantBlocking   int
	}{
		{
			name: "upstream's prefix taken to be this environment's (unset)",
			wantConfig: []Finding{{Severity: Note, Key: "LOAD_BALANCER_PREFIX",
				Message: "the upstream CCM is taken to run with the same LOAD_BALANCER_PREFIX as here (unset)",
				Fix:     "if it runs with another, pass --upstream-load-balancer-prefix with its value"}},
			wantBlocking: 5,
		},
		{
			name:           "upstream ran with a prefix oci-ccm is not given: its load balancers with an address are created anew, its network load balancers adopted",
			upstreamPrefix: new("prod"),
			wantPrefix:     "prod",
			wantConfig:     []Finding{},
			wantBlocking:   10,
		},
		{
			name:           "the prefix kept in oci-ccm's environment",
			env:            map[string]string{"LOAD_BALANCER_PREFIX": "prod"},
			upstreamPrefix: new("prod"),
			wantBlocking:   5,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Run(t.Context(), Options{CloudConfig: writeConfig(t, fixtureConfig), Getenv: env(tc.env),
				UpstreamPrefix: tc.upstreamPrefix, Kube: fakeCluster()})
			if err != nil {
				t.Fatal(err)
			}
			if tc.env["LOAD_BALANCER_PREFIX"] != "" {
				// The variable's own note is the comparison's; only its presence is checked here.
				if len(r.Config) != 1 || r.Config[0].Key != "LOAD_BALANCER_PREFIX" || r.Config[0].Severity != Note {
					t.Errorf("config findings = %+v, want the variable's note", r.Config)
				}
			} else if diff := cmp.Diff(tc.wantConfig, r.Config); diff != "" {
				t.Errorf("config findings (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantServices(t, fakeUID, tc.wantPrefix), r.Services); diff != "" {
				t.Errorf("Services (-want +got):\n%s", diff)
			}
			if r.OtherClass != 1 || !r.ServicesChecked {
				t.Errorf("other class = %d, checked = %v; want 1, true", r.OtherClass, r.ServicesChecked)
			}
			if got := r.Blocking(); got != tc.wantBlocking {
				t.Errorf("Blocking() = %d, want %d", got, tc.wantBlocking)
			}
		})
	}
}

func TestConfigurationIsReadAsTheBinaryReadsIt(t *testing.T) {
	const fix = "correct it: the binary refuses to start"
	for _, tc := range []struct {
		name        string
		doc         string
		clusterName string
		env         map[string]string
		want        []Finding
	}{
		{name: "a file the binary starts with", doc: fixtureConfig, want: []Finding{}},
		{
			name: "deprecated and ignored upstream keys are warnings; a key read differently is shown",
			doc: fixtureConfig + `rateLimiter: {rateLimitQPSRead: 7}
regionKey: PHX
tags: {common: {freeform: {team: web}}}
`,
			want: []Finding{
				{Severity: Differs, Key: "tags.common", Message: "oci-ccm puts the common tags on new load balancers, under loadBalancer.tags and tags.loadBalancer, " +
					"as the key says (upstream v1.35 merges them only with enableOkeSystemTags, which is false outside OKE's own build)"},
				{Severity: Warning, Key: "regionKey", Message: "ignored; oci-ccm derives everything it needs from auth.region"},
				{Severity: Warning, Key: "rateLimiter.rateLimitQPSRead", Message: "deprecated; write rateLimiter.readQPS"},
				{Severity: Warning, Key: "tags.common", Message: "deprecated; write loadBalancer.tags (freeformTags, definedTags)"},
			},
		},
		{
			name: "workload identity needs upstream's variables",
			doc:  fixtureConfig + "useWorkloadIdentity: true\n",
			want: []Finding{
				{Severity: Refused, Key: "useWorkloadIdentity", Value: "true", // the fixture uses instance principals
					Message: "not allowed together with useInstancePrincipals: true; choose one way to authenticate",
					Fix:     "correct it: the binary refuses to start"},
				{Severity: Refused, Key: "OCI_WORKLOAD_IDENTITY_DOMAIN_URL",
					Message: "required with useWorkloadIdentity: true: the identity domain's URL, e.g. https://idcs-….identity.oraclecloud.com",
					Fix:     "correct it: the binary refuses to start"},
				{Severity: Refused, Key: "OCI_WORKLOAD_IDENTITY_RESOURCE_TYPE",
					Message: "required with useWorkloadIdentity: true: the res_type of the identity propagation trust",
					Fix:     "correct it: the binary refuses to start"},
				{Severity: Refused, Key: "OCI_WORKLOAD_IDENTITY_CLIENT_ID",
					Message: "required with useWorkloadIdentity: true unless OCI_WORKLOAD_IDENTITY_USE_INSTANCE_PRINCIPAL_FOR_TOKEN_EXCHANGE=true",
					Fix:     "correct it: the binary refuses to start"},
				{Severity: Refused, Key: "OCI_WORKLOAD_IDENTITY_CLIENT_SECRET",
					Message: "required with useWorkloadIdentity: true unless OCI_WORKLOAD_IDENTITY_USE_INSTANCE_PRINCIPAL_FOR_TOKEN_EXCHANGE=true",
					Fix:     "correct it: the binary refuses to start"},
			},
		},
		{
			name: "an unknown key names its line",
			doc:  fixtureConfig + "loadBalancer2: {}\n",
			want: []Finding{{Severity: Refused, Key: "cloud-provider.yaml",
				Message: "<path>: parse cloud-provider config: yaml: unmarshal errors:\n  line 9: field loadBalancer2 not found in type config.fileConfig",
				Fix:     "correct the file: the binary refuses to start with it"}},
		},
		{
			name:        "the framework's default cluster name without clusterID is refused",
			doc:         strings.Replace(fixtureConfig, "clusterID: prod-phx-1\n", "", 1),
			clusterName: "kubernetes",
			want: []Finding{{Severity: Refused, Key: "--cluster-name", Value: "kubernetes",
				Message: "is the framework's default cluster name and identifies no cluster: two clusters left at the default remove each other's security rules. " +
					"Set a name unique among the clusters sharing this tenancy's load balancer compartments and subnets (it marks the load balancers and security rules this cluster owns), e.g. prod-phx-1" +
					"; or, for a cluster already running under this name that shares nothing with another, set allowDefaultClusterName: true",
				Fix: fix}},
		},
		{
			name: "region and compartment left to instance metadata are checked with placeholders",
			doc:  strings.NewReplacer("auth:\n  region: us-phoenix-1\n", "", "compartment: ocid1.compartment.oc1..fixture\n", "").Replace(fixtureConfig),
			want: []Finding{
				{Severity: Note, Key: "auth.region", Message: "not set: the binary reads it from the instance metadata service at start-up (on an OCI instance only); checked with a placeholder",
					Fix: "none needed on OCI; set it in the file for the binary to start anywhere"},
				{Severity: Note, Key: "compartment", Message: "not set: the binary reads it from the instance metadata service at start-up (on an OCI instance only); checked with a placeholder",
					Fix: "none needed on OCI; set it in the file for the binary to start anywhere"},
			},
		},
		{
			name: "LOAD_BALANCER_PREFIX disagreeing with loadBalancer.naming.prefix stops the binary",
			doc:  fixtureConfig + "  naming: {prefix: staging}\n",
			env:  map[string]string{"LOAD_BALANCER_PREFIX": "prod"},
			want: []Finding{{Severity: Refused, Key: "LOAD_BALANCER_PREFIX", Value: "prod",
				Message: `environment variable LOAD_BALANCER_PREFIX="prod" disagrees with loadBalancer.naming.prefix "staging"; set one of them`,
				Fix:     "make the variable and loadBalancer.naming agree: the binary refuses to start"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeConfig(t, tc.doc)
			r, err := Run(t.Context(), Options{CloudConfig: path, ClusterName: tc.clusterName, Getenv: env(tc.env)})
			if err != nil {
				t.Fatal(err)
			}
			for i := range tc.want {
				tc.want[i].Message = strings.ReplaceAll(tc.want[i].Message, "<path>", path)
			}
			if diff := cmp.Diff(tc.want, r.Config); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			if r.ServicesChecked {
				t.Error("Services checked without a cluster")
			}
		})
	}
}

// A configuration that does not load leaves the Services unchecked, and says so.
func TestServicesAreNotCheckedWithAConfigurationThatDoesNotLoad(t *testing.T) {
	r, err := Run(t.Context(), Options{CloudConfig: writeConfig(t, "loadBalancer2: {}\n"), Getenv: env(nil), Kube: fakeCluster()})
	if err != nil {
		t.Fatal(err)
	}
	if r.ServicesChecked || len(r.Services) != 0 || r.Blocking() != 1 {
		t.Fatalf("report = %+v; want the refusal alone, Services unchecked", r)
	}
	if last := r.Config[len(r.Config)-1]; last.Key != "Services" || last.Severity != Note {
		t.Errorf("last finding = %+v, want the note that Services were not checked", last)
	}
}

func TestReportReadsAsTextAndRoundTripsAsJSON(t *testing.T) {
	r, err := Run(t.Context(), Options{CloudConfig: writeConfig(t, fixtureConfig), Getenv: env(nil), Kube: fakeCluster()})
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	t.Logf("the report:\n%s", text.String())
	for _, want := range []string{
		"\nService shop/refused\n  refused           service.beta.kubernetes.io/oci-load-balancer-shape-flex-max: \"9000\"\n" +
			"                    allowed: a bandwidth in Mbps up to 8000 (below 10 counts as 10)\n" +
			"                    fix: change or remove it: oci-ccm does not reconcile the Service while it is refused\n",
		"\nService shop/clean\n  adopted as it is: nothing refused, nothing read differently\n",
		"\nChecked the configuration and 9 Service(s) of type LoadBalancer (1 of another loadBalancerClass ignored): " +
			"5 refused, 0 new load balancer, 11 differs, 0 warning. NOT ready to switch: fix what is refused or would make a new load balancer.\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the text lacks %q", want)
		}
	}
	var js bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r, &back); diff != "" {
		t.Errorf("JSON round trip (-want +got):\n%s", diff)
	}
}
