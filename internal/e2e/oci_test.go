// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	"gopkg.in/yaml.v3"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
	"github.com/oci-ccm/oci-ccm/seclist"
)

// ociView is the suite's own window on the ocitest process: the admin API for faults, call counts
// and instance states, and real SDK clients (signed with the key ocitest wrote) for reading what
// the CCM did. It shares nothing with the CCM's code, so a bug there cannot hide itself here.
type ociView struct {
	url    string
	http   *http.Client
	config providerConfig
	seeded ocitest.Seeded

	lbs     loadbalancer.LoadBalancerClient
	network core.VirtualNetworkClient
	compute core.ComputeClient
}

// providerConfig is the part of the cloud-provider.yaml ocitest writes that the suite reads.
type providerConfig struct {
	Auth struct {
		Region      string `yaml:"region"`
		Tenancy     string `yaml:"tenancy"`
		User        string `yaml:"user"`
		Fingerprint string `yaml:"fingerprint"`
		KeyFile     string `yaml:"keyFile"`
	} `yaml:"auth"`
	Compartment string `yaml:"compartment"`
	Endpoint    struct {
		URL    string `yaml:"url"`
		CAFile string `yaml:"caFile"`
	} `yaml:"endpoint"`
}

// newOCIView reads what ocitest wrote into dir (cloud-provider.yaml, key.pem, ca.pem,
// tenancy.json) and builds clients for the server at url.
func newOCIView(url, dir string) (*ociView, error) {
	v := &ociView{url: url}
	raw, err := os.ReadFile(filepath.Join(dir, "cloud-provider.yaml"))
	if err != nil {
		return nil, err
	}
	if err := yaml.Unmarshal(raw, &v.config); err != nil {
		return nil, fmt.Errorf("cloud-provider.yaml: %w", err)
	}
	if raw, err = os.ReadFile(filepath.Join(dir, "tenancy.json")); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, &v.seeded); err != nil {
		return nil, fmt.Errorf("tenancy.json: %w", err)
	}
	key, err := os.ReadFile(v.config.Auth.KeyFile)
	if err != nil {
		return nil, err
	}

	transport := http.DefaultTransport.(*http.Transport).Clone()
	if ca := v.config.Endpoint.CAFile; ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s holds no certificate", ca)
		}
		transport.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	v.http = &http.Client{Transport: transport, Timeout: 30 * time.Second}

	a := v.config.Auth
	provider := common.NewRawConfigurationProvider(a.Tenancy, a.User, a.Region, a.Fingerprint, string(key), nil)
	// One call is one request: the suite polls by itself, and SDK retries or a circuit breaker
	// would only blur what ocitest answered.
	noRetry := common.NoRetryPolicy()
	setup := func(c *common.BaseClient) {
		c.Host = url
		c.HTTPClient = v.http
		c.Configuration.RetryPolicy = &noRetry
		c.Configuration.CircuitBreaker = nil
	}
	if v.lbs, err = loadbalancer.NewLoadBalancerClientWithConfigurationProvider(provider); err != nil {
		return nil, err
	}
	setup(&v.lbs.BaseClient)
	if v.network, err = core.NewVirtualNetworkClientWithConfigurationProvider(provider); err != nil {
		return nil, err
	}
	setup(&v.network.BaseClient)
	if v.compute, err = core.NewComputeClientWithConfigurationProvider(provider); err != nil {
		return nil, err
	}
	setup(&v.compute.BaseClient)
	return v, nil
}

// --- admin API (/ocitest/, unsigned, never counted or faulted) ---

// admin sends one admin request and decodes a JSON answer into out (when out is not nil).
func (v *ociView) admin(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, v.url+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := v.http.Do(req)
	if err != nil {
		return fmt.Errorf("ocitest admin %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		return fmt.Errorf("ocitest admin %s %s: %s: %s", method, path, resp.Status, strings.TrimSpace(string(data)))
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(data, out)
}

// denials returns the calls ocitest's IAM policy refused so far, oldest first.
func (v *ociView) denials(ctx context.Context) ([]ocitest.Denial, error) {
	var d []ocitest.Denial
	err := v.admin(ctx, http.MethodGet, "/ocitest/policy/denials", nil, &d)
	return d, err
}

// calls returns ocitest's call counters.
func (v *ociView) calls(ctx context.Context) (ocitest.Calls, error) {
	var c ocitest.Calls
	err := v.admin(ctx, http.MethodGet, "/ocitest/calls", nil, &c)
	return c, err
}

// fault is an injected fault as the admin API takes it (see ocitest.Fault).
type fault struct {
	Operation   string  `json:"operation,omitempty"`
	Class       string  `json:"class,omitempty"`
	Status      int     `json:"status,omitempty"`
	Code        string  `json:"code,omitempty"`
	Probability float64 `json:"probability,omitempty"`
	// Latency is a Go duration string.
	Latency string `json:"latency,omitempty"`
}

// injectFault adds a fault and returns its id.
func (v *ociView) injectFault(ctx context.Context, f fault) (int, error) {
	var out struct {
		ID int `json:"id"`
	}
	err := v.admin(ctx, http.MethodPost, "/ocitest/faults", f, &out)
	return out.ID, err
}

// removeFault removes one fault.
func (v *ociView) removeFault(ctx context.Context, id int) error {
	return v.admin(ctx, http.MethodDelete, fmt.Sprintf("/ocitest/faults/%d", id), nil, nil)
}

// holdWorkRequests holds every work-request poll (a 10-minute latency on GetWorkRequest), so a
// CCM sits between "change accepted" and "change done". The returned release lifts it and may be
// called more than once; the test's cleanup also lifts it.
func (v *ociView) holdWorkRequests(ctx context.Context, t *testing.T) (release func() error) {
	t.Helper()
	id, err := v.injectFault(ctx, fault{Operation: "GetWorkRequest", Latency: "10m"})
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	var rerr error
	release = func() error {
		once.Do(func() { rerr = v.removeFault(context.WithoutCancel(ctx), id) })
		return rerr
	}
	t.Cleanup(func() { _ = release() })
	return release
}

// clearFaults removes every fault.
func (v *ociView) clearFaults(ctx context.Context) error {
	return v.admin(ctx, http.MethodDelete, "/ocitest/faults", nil, nil)
}

// setInstanceState moves an instance to a lifecycle state, as OCI would on a terminate.
func (v *ociView) setInstanceState(ctx context.Context, id string, state core.InstanceLifecycleStateEnum) error {
	return v.admin(ctx, http.MethodPost, "/ocitest/instances/"+id+"/state", map[string]string{"state": string(state)}, nil)
}

// --- reads through the SDK ---

// loadBalancersNamed lists the compartment's load balancers with this display name.
func (v *ociView) loadBalancersNamed(ctx context.Context, name string) ([]loadbalancer.LoadBalancer, error) {
	var out []loadbalancer.LoadBalancer
	req := loadbalancer.ListLoadBalancersRequest{CompartmentId: &v.seeded.Compartment, DisplayName: &name}
	for {
		resp, err := v.lbs.ListLoadBalancers(ctx, req)
		if err != nil {
			return nil, err
		}
		out = append(out, resp.Items...)
		if resp.OpcNextPage == nil {
			return out, nil
		}
		req.Page = resp.OpcNextPage
	}
}

// listingSettle bounds how long loadBalancerNamed waits for a load balancer to appear in the
// listing: ocitest leaves one created a moment ago out of ListLoadBalancers for its listing lag
// (ocitest.DefaultListingLag, 2 s), as a real tenancy may, so a Service that already has its
// address can have a load balancer the listing does not show yet.
const listingSettle = 5 * ocitest.DefaultListingLag

// loadBalancerNamed returns the one load balancer with this display name; ok is false when there
// is none, and more than one is an error. Finding none, it lists again until listingSettle has
// passed, so that a load balancer just created is not taken for missing.
func (v *ociView) loadBalancerNamed(ctx context.Context, name string) (lb loadbalancer.LoadBalancer, ok bool, err error) {
	lbs, err := v.loadBalancersNamed(ctx, name)
	for deadline := time.Now().Add(listingSettle); err == nil && len(lbs) == 0 && time.Now().Before(deadline); {
		select {
		case <-ctx.Done():
			return lb, false, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		lbs, err = v.loadBalancersNamed(ctx, name)
	}
	switch {
	case err != nil:
		return lb, false, err
	case len(lbs) > 1:
		return lb, false, fmt.Errorf("%d load balancers are named %s", len(lbs), name)
	case len(lbs) == 0:
		return lb, false, nil
	}
	return lbs[0], true, nil
}

// loadBalancerExists reports whether GetLoadBalancer still finds id.
func (v *ociView) loadBalancerExists(ctx context.Context, id string) (bool, error) {
	_, err := v.lbs.GetLoadBalancer(ctx, loadbalancer.GetLoadBalancerRequest{LoadBalancerId: &id})
	var se common.ServiceError
	if errors.As(err, &se) && se.GetHTTPStatusCode() == http.StatusNotFound {
		return false, nil
	}
	return err == nil, err
}

// instanceAddresses returns an instance's primary private and public IPs.
func (v *ociView) instanceAddresses(ctx context.Context, instanceID string) (private, public string, err error) {
	atts, err := v.compute.ListVnicAttachments(ctx, core.ListVnicAttachmentsRequest{
		CompartmentId: &v.seeded.Compartment, InstanceId: &instanceID,
	})
	if err != nil {
		return "", "", err
	}
	if len(atts.Items) == 0 || atts.Items[0].VnicId == nil {
		return "", "", fmt.Errorf("instance %s has no VNIC attachment", instanceID)
	}
	vnic, err := v.network.GetVnic(ctx, core.GetVnicRequest{VnicId: atts.Items[0].VnicId})
	if err != nil {
		return "", "", err
	}
	return deref(vnic.PrivateIp), deref(vnic.PublicIp), nil
}

// rule is a TCP security rule in a form easy to compare: the list (by its tenancy name), the
// direction, the peer CIDR (source of ingress, destination of egress) and the destination ports.
type rule struct {
	List      string
	Direction string // "ingress" or "egress"
	CIDR      string
	MinPort   int
	MaxPort   int
}

func (r rule) String() string {
	return fmt.Sprintf("%s %s %s tcp/%d-%d", r.List, r.Direction, r.CIDR, r.MinPort, r.MaxPort)
}

// ownedRules returns the TCP rules in the seeded security lists that the CCM wrote for this
// cluster: their description is exactly the cluster's ownership mark (cluster "e2e" does not own
// the rules of "e2e-other").
func (v *ociView) ownedRules(ctx context.Context, cluster string) ([]rule, error) {
	owned := func(desc *string) bool { return deref(desc) == seclist.Owner(cluster) }
	var out []rule
	for _, name := range slices.Sorted(maps.Keys(v.seeded.SecurityLists)) {
		id := v.seeded.SecurityLists[name]
		resp, err := v.network.GetSecurityList(ctx, core.GetSecurityListRequest{SecurityListId: &id})
		if err != nil {
			return nil, fmt.Errorf("security list %s: %w", name, err)
		}
		for _, r := range resp.IngressSecurityRules {
			if deref(r.Protocol) == "6" && owned(r.Description) {
				out = append(out, tcpRule(name, "ingress", deref(r.Source), r.TcpOptions))
			}
		}
		for _, r := range resp.EgressSecurityRules {
			if deref(r.Protocol) == "6" && owned(r.Description) {
				out = append(out, tcpRule(name, "egress", deref(r.Destination), r.TcpOptions))
			}
		}
	}
	return out, nil
}

func tcpRule(list, dir, cidr string, o *core.TcpOptions) rule {
	r := rule{List: list, Direction: dir, CIDR: cidr, MinPort: 1, MaxPort: 65535}
	if o != nil && o.DestinationPortRange != nil {
		r.MinPort, r.MaxPort = derefInt(o.DestinationPortRange.Min), derefInt(o.DestinationPortRange.Max)
	}
	return r
}

// rulesTouching returns the rules whose port range includes any of ports.
func rulesTouching(rules []rule, ports ...int) []rule {
	var out []rule
	for _, r := range rules {
		for _, p := range ports {
			if r.MinPort <= p && p <= r.MaxPort {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// missingRules returns the rules of want that no rule of got covers: one of the same list,
// direction and peer whose ports hold want's. seclist merges rules whose ports touch, so a
// Service given a node port next to another Service's is allowed by one rule for both.
func missingRules(got, want []rule) []rule {
	var out []rule
	for _, w := range want {
		if !slices.ContainsFunc(got, func(g rule) bool {
			return g.List == w.List && g.Direction == w.Direction && g.CIDR == w.CIDR && g.MinPort <= w.MinPort && w.MaxPort <= g.MaxPort
		}) {
			out = append(out, w)
		}
	}
	return out
}

// backendAddrs returns a backend set's backends as sorted "ip:port" strings.
func backendAddrs(bs loadbalancer.BackendSet) []string {
	var out []string
	for _, b := range bs.Backends {
		out = append(out, fmt.Sprintf("%s:%d", deref(b.IpAddress), derefInt(b.Port)))
	}
	slices.Sort(out)
	return out
}

// publicIP returns the load balancer's public address, "" when it has none yet.
func publicIP(lb loadbalancer.LoadBalancer) string {
	for _, a := range lb.IpAddresses {
		if a.IsPublic != nil && *a.IsPublic {
			return deref(a.IpAddress)
		}
	}
	return ""
}

// describeLB renders what matters of a load balancer for failure messages.
func describeLB(lb loadbalancer.LoadBalancer) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %q %s ip=%s", deref(lb.Id), deref(lb.DisplayName), lb.LifecycleState, publicIP(lb))
	for _, name := range slices.Sorted(maps.Keys(lb.Listeners)) {
		l := lb.Listeners[name]
		cert := ""
		if l.SslConfiguration != nil {
			cert = " cert=" + deref(l.SslConfiguration.CertificateName)
		}
		fmt.Fprintf(&b, "\n  listener %s port=%d backendSet=%s%s", name, derefInt(l.Port), deref(l.DefaultBackendSetName), cert)
	}
	for _, name := range slices.Sorted(maps.Keys(lb.BackendSets)) {
		fmt.Fprintf(&b, "\n  backendSet %s %v", name, backendAddrs(lb.BackendSets[name]))
	}
	for _, name := range slices.Sorted(maps.Keys(lb.Certificates)) {
		fmt.Fprintf(&b, "\n  certificate %s", name)
	}
	return b.String()
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func derefInt(i *int) int {
	if i == nil {
		return 0
	}
	return *i
}
