// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	nlb "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// sentRequest is what a server sees of one request, in the parts OCI reads.
type sentRequest struct {
	Method, Path, RawPath, Query string
	Header                       http.Header
	Body                         any // the body decoded as JSON: a left-out field and a null differ
	LengthMatchesBody            bool
}

// recorder is an HTTP server that answers every request as OCI answers an accepted
// UpdateBackendSet and keeps what it was sent.
type recorder struct {
	mu   sync.Mutex
	sent []sentRequest
}

// headersSetPerRequest differ between two sends of the same request: the time, and the
// signature with the body digest it covers (the SDK sends the body's keys sorted, encoding/json
// in field order; ocitest checks signatures in the tests below).
var headersSetPerRequest = []string{"Date", "Authorization", "X-Content-Sha256", "Accept-Encoding"}

var opcRequestIDForm = regexp.MustCompile(`^[0-9a-f]{32}$`)

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body any
	if err := json.Unmarshal(raw, &body); err != nil {
		body = "not JSON: " + string(raw)
	}
	h := r.Header.Clone()
	for _, k := range headersSetPerRequest {
		h.Del(k)
	}
	// A request ID is made up for every request: compare its form.
	if id := h.Get("Opc-Request-Id"); opcRequestIDForm.MatchString(id) {
		h.Set("Opc-Request-Id", "32 hex digits")
	}
	length, _ := strconv.Atoi(r.Header.Get("Content-Length"))
	rec.mu.Lock()
	rec.sent = append(rec.sent, sentRequest{Method: r.Method, Path: r.URL.Path, RawPath: r.URL.RawPath, Query: r.URL.RawQuery,
		Header: h, Body: body, LengthMatchesBody: length == len(raw) && r.ContentLength == int64(len(raw))})
	rec.mu.Unlock()
	w.Header().Set("opc-request-id", "req-1")
	w.Header().Set("opc-work-request-id", "ocid1.loadbalancerworkrequest.oc1..x")
	w.WriteHeader(http.StatusNoContent)
}

// filled returns a T with every field set, recursively: pointers to non-zero values, lists of
// two. A field the fast path dropped would show in the comparison.
func filled[T any]() T {
	var v T
	fill(reflect.ValueOf(&v).Elem(), "x")
	return v
}

func fill(v reflect.Value, name string) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), name)
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), v.Type().Field(i).Name)
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fill(v.Index(i), name+strconv.Itoa(i))
		}
	case reflect.String:
		v.SetString(name + " <&> \u00e9") // HTML and non-ASCII characters, escaped alike
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(len(name)))
	case reflect.Uint8:
		v.SetUint(uint64(len(name)))
	case reflect.Bool:
		v.SetBool(true)
	default:
		panic(fmt.Sprintf("fill: no value for a %s", v.Type()))
	}
}

// backends returns n backends with only the mandatory fields, as lb sends them for nodes.
func backends(n int) []loadbalancer.BackendDetails {
	out := make([]loadbalancer.BackendDetails, n)
	for i := range out {
		out[i] = loadbalancer.BackendDetails{IpAddress: common.String(fmt.Sprintf("10.0.%d.%d", i/250, i%250+1)), Port: common.Int(30000 + i%3)}
	}
	return out
}

func TestUpdateBackendSetSendsWhatTheSDKSends(t *testing.T) {
	withOptions := backends(510)
	withOptions[3].Backup, withOptions[3].Drain, withOptions[3].Weight = common.Bool(false), common.Bool(true), common.Int(0)
	tests := []struct {
		name    string
		details loadbalancer.UpdateBackendSetDetails
	}{
		{"510 backends and a health checker, nothing optional", loadbalancer.UpdateBackendSetDetails{
			Policy: common.String("ROUND_ROBIN"), Backends: backends(510),
			HealthChecker: &loadbalancer.HealthCheckerDetails{Protocol: common.String("TCP"), Port: common.Int(10256)}}},
		{"optional fields set to false and zero are sent", loadbalancer.UpdateBackendSetDetails{
			Policy: common.String("LEAST_CONNECTIONS"), Backends: withOptions, BackendMaxConnections: common.Int(0),
			HealthChecker: &loadbalancer.HealthCheckerDetails{Protocol: common.String("HTTP"), UrlPath: common.String("/healthz"),
				Retries: common.Int(3), IsForcePlainText: common.Bool(false)},
			SslConfiguration: &loadbalancer.SslConfigurationDetails{CertificateName: common.String("cert"), Protocols: []string{}}}},
		{"every field set", filled[loadbalancer.UpdateBackendSetDetails]()},
		{"every nested field set, every optional top-level field nil", func() loadbalancer.UpdateBackendSetDetails {
			d := filled[loadbalancer.UpdateBackendSetDetails]()
			return loadbalancer.UpdateBackendSetDetails{Policy: d.Policy, Backends: d.Backends, HealthChecker: d.HealthChecker}
		}()},
		{"optional nested structs with nothing set", loadbalancer.UpdateBackendSetDetails{
			Policy: common.String("IP_HASH"), Backends: []loadbalancer.BackendDetails{},
			HealthChecker:                           &loadbalancer.HealthCheckerDetails{},
			SslConfiguration:                        &loadbalancer.SslConfigurationDetails{},
			SessionPersistenceConfiguration:         &loadbalancer.SessionPersistenceConfigurationDetails{},
			LbCookieSessionPersistenceConfiguration: &loadbalancer.LbCookieSessionPersistenceConfigurationDetails{}}},
		{"mandatory fields nil are sent as null", loadbalancer.UpdateBackendSetDetails{Backends: []loadbalancer.BackendDetails{}}},
		{"a nil list of backends is refused", loadbalancer.UpdateBackendSetDetails{}},
		{ifMatchCase, loadbalancer.UpdateBackendSetDetails{Policy: common.String("ROUND_ROBIN"), Backends: backends(3),
			HealthChecker: &loadbalancer.HealthCheckerDetails{Protocol: common.String("TCP"), Port: common.Int(10256)}}},
	}
	rec, c := recordingClient(t)
	l := c.LoadBalancers
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec.sent = nil
			req := loadbalancer.UpdateBackendSetRequest{LoadBalancerId: common.String("ocid1.loadbalancer.oc1..aaaa"),
				BackendSetName: common.String("TCP-443"), UpdateBackendSetDetails: tt.details, OpcRetryToken: common.String("token-1")}
			if tt.name == ifMatchCase {
				req.IfMatch = common.String("etag-1")
			}
			sdkResp, sdkErr := l.sdk.UpdateBackendSet(context.Background(), req)
			fastResp, fastErr := l.updateBackendSet(context.Background(), req)
			rec.sameAsSDK(t, tt.details.Backends == nil, sdkErr, fastErr, sdkResp.OpcWorkRequestId, fastResp.OpcWorkRequestId)
		})
	}
}

// ifMatchCase names the cases sent with an if-match ETag (binding's guarded writes).
const ifMatchCase = "only backends, with an if-match ETag"

func TestNLBUpdateBackendSetSendsWhatTheSDKSends(t *testing.T) {
	some := make([]nlb.BackendDetails, 300)
	for i := range some {
		some[i] = nlb.BackendDetails{IpAddress: common.String(fmt.Sprintf("10.0.%d.%d", i/250, i%250+1)), Port: common.Int(30000), Weight: common.Int(1)}
	}
	some[7].IsDrain, some[7].TargetId = common.Bool(false), common.String("ocid1.instance.oc1..a")
	tests := []struct {
		name    string
		details nlb.UpdateBackendSetDetails
	}{
		{"300 backends, a TCP health checker, preserve source", nlb.UpdateBackendSetDetails{Policy: common.String("FIVE_TUPLE"), Backends: some,
			IsPreserveSource: common.Bool(true), IsFailOpen: common.Bool(false),
			HealthChecker: &nlb.HealthCheckerDetails{Protocol: nlb.HealthCheckProtocolsTcp, Port: common.Int(10256), RequestData: []byte{}}}},
		{"every field set", func() nlb.UpdateBackendSetDetails {
			d := filled[nlb.UpdateBackendSetDetails]()
			d.IpVersion = nlb.IpVersionIpv6
			return d
		}()},
		{"an unknown IP version is refused", nlb.UpdateBackendSetDetails{IpVersion: "IPV5"}},
		{"nothing set", nlb.UpdateBackendSetDetails{}},
		{"empty lists and structs", nlb.UpdateBackendSetDetails{Backends: []nlb.BackendDetails{},
			HealthChecker: &nlb.HealthCheckerDetails{Dns: &nlb.DnsHealthCheckerDetails{Rcodes: []nlb.DnsHealthCheckRCodesEnum{}}}}},
		{ifMatchCase, nlb.UpdateBackendSetDetails{Backends: some[:3]}},
	}
	rec, c := recordingClient(t)
	n := c.NetworkLoadBalancers
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec.sent = nil
			req := nlb.UpdateBackendSetRequest{NetworkLoadBalancerId: common.String("ocid1.networkloadbalancer.oc1..aaaa"),
				BackendSetName: common.String("TCP-443"), UpdateBackendSetDetails: tt.details, OpcRetryToken: common.String("token-1")}
			if tt.name == ifMatchCase {
				req.IfMatch = common.String("etag-1")
			}
			sdkResp, sdkErr := n.sdk.UpdateBackendSet(context.Background(), req)
			fastResp, fastErr := n.updateBackendSet(context.Background(), req)
			rec.sameAsSDK(t, tt.details.IpVersion == "IPV5", sdkErr, fastErr, sdkResp.OpcWorkRequestId, fastResp.OpcWorkRequestId)
		})
	}
}

// recordingClient returns a Client whose calls go to a recorder instead of OCI, and the
// recorder.
func recordingClient(t *testing.T) (*recorder, *Client) {
	t.Helper()
	rec := &recorder{}
	hs := httptest.NewServer(rec)
	t.Cleanup(hs.Close)
	srv := ocitest.New(ocitest.Options{})
	t.Cleanup(srv.Close)
	c, err := New(Options{Provider: srv.ConfigurationProvider(), Host: hs.URL, RateLimit: noLimit})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return rec, c
}

// sameAsSDK checks that the SDK and the fast path did the same with one request: both refused
// it with the same error and sent nothing (refused), or both sent the same request, the fast
// path's with a Content-Length that is its body's, and read the same work request.
func (rec *recorder) sameAsSDK(t *testing.T, refused bool, sdkErr, fastErr error, sdkWR, fastWR *string) {
	t.Helper()
	if refused {
		if sdkErr == nil || fastErr == nil || fastErr.Error() != sdkErr.Error() || len(rec.sent) != 0 {
			t.Errorf("errors: SDK %v, fast path %v; %d requests sent; want the SDK's error from both, nothing sent", sdkErr, fastErr, len(rec.sent))
		}
		return
	}
	if sdkErr != nil || fastErr != nil {
		t.Fatalf("errors: SDK %v, fast path %v", sdkErr, fastErr)
	}
	if len(rec.sent) != 2 {
		t.Fatalf("server saw %d requests, want 2", len(rec.sent))
	}
	if diff := cmp.Diff(rec.sent[0], rec.sent[1]); diff != "" {
		t.Errorf("request (-SDK +fast path):\n%s", diff)
	}
	if !rec.sent[1].LengthMatchesBody {
		t.Error("the fast path's Content-Length is not its body's length")
	}
	if got, want := deref(fastWR), deref(sdkWR); got != want || got == "" {
		t.Errorf("work request = %q, the SDK read %q", got, want)
	}
}

// TestBackendSetBodyTypesMirrorTheSDK guards against a new SDK field (most mirrors are converted
// from the SDK's type, which stops compiling on one; the others are built field by field) and
// against a wrong tag.
func TestBackendSetBodyTypesMirrorTheSDK(t *testing.T) {
	mirrors := map[reflect.Type]reflect.Type{
		reflect.TypeFor[loadbalancer.UpdateBackendSetDetails]():                        reflect.TypeFor[lbUpdateBackendSetBody](),
		reflect.TypeFor[loadbalancer.BackendDetails]():                                 reflect.TypeFor[lbBackendBody](),
		reflect.TypeFor[loadbalancer.HealthCheckerDetails]():                           reflect.TypeFor[lbHealthCheckerBody](),
		reflect.TypeFor[loadbalancer.SslConfigurationDetails]():                        reflect.TypeFor[lbSSLConfigurationBody](),
		reflect.TypeFor[loadbalancer.SessionPersistenceConfigurationDetails]():         reflect.TypeFor[lbSessionPersistenceBody](),
		reflect.TypeFor[loadbalancer.LbCookieSessionPersistenceConfigurationDetails](): reflect.TypeFor[lbCookieSessionPersistenceBody](),
		reflect.TypeFor[nlb.UpdateBackendSetDetails]():                                 reflect.TypeFor[nlbUpdateBackendSetBody](),
		reflect.TypeFor[nlb.BackendDetails]():                                          reflect.TypeFor[nlbBackendBody](),
		reflect.TypeFor[nlb.HealthCheckerDetails]():                                    reflect.TypeFor[nlbHealthCheckerBody](),
		reflect.TypeFor[nlb.DnsHealthCheckerDetails]():                                 reflect.TypeFor[nlbDNSHealthCheckerBody](),
	}
	// wireTag is the json tag the SDK's marshaller behaves as if the field had.
	wireTag := func(f reflect.StructField) string {
		tag := f.Tag.Get("json")
		switch f.Type.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
			if f.Tag.Get("mandatory") == "false" && !strings.Contains(tag, ",") {
				return tag + ",omitzero"
			}
		}
		return tag
	}
	// mirrored replaces every SDK type in t by its mirror, through pointers and slices.
	var mirrored func(reflect.Type) reflect.Type
	mirrored = func(t reflect.Type) reflect.Type {
		switch t.Kind() {
		case reflect.Pointer:
			return reflect.PointerTo(mirrored(t.Elem()))
		case reflect.Slice:
			return reflect.SliceOf(mirrored(t.Elem()))
		}
		if m, ok := mirrors[t]; ok {
			return m
		}
		return t
	}
	type field struct{ Name, Type, Tag string }
	for sdk, mirror := range mirrors {
		var want, got []field
		for i := range sdk.NumField() {
			f := sdk.Field(i)
			want = append(want, field{f.Name, mirrored(f.Type).String(), wireTag(f)})
		}
		for i := range mirror.NumField() {
			f := mirror.Field(i)
			got = append(got, field{f.Name, f.Type.String(), f.Tag.Get("json")})
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s mirrors %s wrongly (-want +got):\n%s", mirror, sdk, diff)
		}
	}
}

func TestUpdateBackendSetThroughOCITest(t *testing.T) {
	type result struct {
		NotFound, Conflict, RateLimited, Retryable bool
		Outcome                                    string
		Requests                                   map[string]int
	}
	tests := []struct {
		name    string
		fault   *ocitest.Fault
		unknown bool // the load balancer does not exist
		want    result
	}{
		{name: "accepted", want: result{Outcome: "ok", Requests: map[string]int{"request loadbalancer UpdateBackendSet ok": 1}}},
		{name: "404 for an unknown load balancer", unknown: true,
			want: result{NotFound: true, Outcome: "not_found", Requests: map[string]int{"request loadbalancer UpdateBackendSet not_found": 1}}},
		{name: "409 Conflict", fault: &ocitest.Fault{Operation: "UpdateBackendSet", Status: 409},
			want: result{Conflict: true, Outcome: "conflict", Requests: map[string]int{"request loadbalancer UpdateBackendSet conflict": 1}}},
		{name: "429 on every attempt", fault: &ocitest.Fault{Operation: "UpdateBackendSet", Status: 429, RetryAfter: "1"},
			want: result{RateLimited: true, Retryable: true, Outcome: "throttled", Requests: map[string]int{
				"request loadbalancer UpdateBackendSet throttled": DefaultMaxAttempts, "retry loadbalancer UpdateBackendSet throttled": DefaultMaxAttempts - 1}}},
	}
	details := loadbalancer.UpdateBackendSetDetails{Policy: common.String("ROUND_ROBIN"), Backends: backends(510),
		HealthChecker: &loadbalancer.HealthCheckerDetails{Protocol: common.String("TCP"), Port: common.Int(10256)}}
	for _, tt := range tests {
		for _, path := range []string{"fast path", "SDK"} {
			t.Run(tt.name+" ("+path+")", func(t *testing.T) {
				if path == "SDK" {
					// An escaped path is the same path for an OCID and makes the fast path step aside.
					t.Setenv(common.EncodePathParamsEnvVar, "true")
				}
				env, id := retryEnv(t, RetryPolicy{})
				env.srv.EditLoadBalancer(id, func(lb *loadbalancer.LoadBalancer) {
					lb.BackendSets = map[string]loadbalancer.BackendSet{"TCP-443": {Name: common.String("TCP-443"), Policy: common.String("ROUND_ROBIN"),
						Backends: []loadbalancer.Backend{}, HealthChecker: &loadbalancer.HealthChecker{Protocol: common.String("TCP"), Port: common.Int(10256)}}}
				})
				if tt.fault != nil {
					env.srv.InjectFault(*tt.fault)
				}
				if tt.unknown {
					id = "ocid1.loadbalancer.oc1..unknown"
				}
				wr, err := env.client.LoadBalancers.UpdateBackendSet(context.Background(), id, "TCP-443", details)
				got := result{NotFound: IsNotFound(err), Conflict: IsConflict(err), RateLimited: IsRateLimited(err), Retryable: IsRetryable(err),
					Outcome: outcome(err), Requests: env.metrics.snapshot("request", "retry")}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("UpdateBackendSet (-want +got):\n%s\nerror: %v", diff, err)
				}
				if err != nil {
					return
				}
				if err := env.client.LoadBalancers.WaitForWorkRequest(context.Background(), wr); err != nil {
					t.Fatalf("work request %s: %v", wr, err)
				}
				lb, _ := env.srv.LoadBalancer(id)
				if n := len(lb.BackendSets["TCP-443"].Backends); n != len(details.Backends) {
					t.Errorf("backend set has %d backends after the update, want %d", n, len(details.Backends))
				}
			})
		}
	}
}

// BenchmarkUpdateBackendSetRequest measures the client's CPU for building one UpdateBackendSet
// of 510 backends: the SDK's marshaller against the fast path. Sending and signing are left out
// (BenchmarkUpdateBackendSetCall has them).
func BenchmarkUpdateBackendSetRequest(b *testing.B) {
	req := loadbalancer.UpdateBackendSetRequest{LoadBalancerId: common.String("ocid1.loadbalancer.oc1..aaaa"),
		BackendSetName: common.String("TCP-443"), OpcRetryToken: common.String("token-1"),
		UpdateBackendSetDetails: loadbalancer.UpdateBackendSetDetails{Policy: common.String("ROUND_ROBIN"), Backends: backends(510),
			HealthChecker: &loadbalancer.HealthCheckerDetails{Protocol: common.String("TCP"), Port: common.Int(10256)}}}
	b.Run("SDK", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := req.HTTPRequest(http.MethodPut, "/loadBalancers/{loadBalancerId}/backendSets/{backendSetName}", nil, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fast path", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			body, err := json.Marshal(lbUpdateBackendSetBodyOf(req.UpdateBackendSetDetails))
			if err != nil {
				b.Fatal(err)
			}
			r := common.MakeDefaultHTTPRequest(http.MethodPut, "/loadBalancers/"+*req.LoadBalancerId+"/backendSets/"+*req.BackendSetName)
			setJSONBody(&r, body)
		}
	})
}

// BenchmarkUpdateBackendSetCall is one UpdateBackendSet of 510 backends through ociclient to
// ocitest, both in this process: client and server CPU, signing and checking the signature
// included.
func BenchmarkUpdateBackendSetCall(b *testing.B) {
	details := loadbalancer.UpdateBackendSetDetails{Policy: common.String("ROUND_ROBIN"), Backends: backends(510),
		HealthChecker: &loadbalancer.HealthCheckerDetails{Protocol: common.String("TCP"), Port: common.Int(10256)}}
	for _, path := range []string{"SDK", "fast path"} {
		b.Run(path, func(b *testing.B) {
			if path == "SDK" {
				b.Setenv(common.EncodePathParamsEnvVar, "true")
			}
			env := newTestEnv(b, envConfig{client: Options{RateLimit: noLimit}})
			lb := env.srv.AddLoadBalancer(loadbalancer.LoadBalancer{BackendSets: map[string]loadbalancer.BackendSet{"TCP-443": {
				Name: common.String("TCP-443"), Policy: common.String("ROUND_ROBIN"), Backends: []loadbalancer.Backend{},
				HealthChecker: &loadbalancer.HealthChecker{Protocol: common.String("TCP"), Port: common.Int(10256)}}}})
			b.ReportAllocs()
			for b.Loop() {
				if _, err := env.client.LoadBalancers.UpdateBackendSet(context.Background(), *lb.Id, "TCP-443", details); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
