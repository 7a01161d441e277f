// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	nlb "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
)

// UpdateBackendSet is the write a node change multiplies: one per backend set of every load
// balancer, each carrying every node. The SDK's request marshaller spends over 100 times the
// CPU of this file's encoding on such a body (21–31 ms against 0.16–0.22 ms for 510 backends,
// BenchmarkUpdateBackendSetRequest on a loaded 2-core machine): it
// marshals, decodes into maps, removes nil optional fields by reflection, marshals again, and
// formats debug messages and runs the log redaction regexps whether or not logging is on. With
// 1,000 load balancers of 500 nodes that is about a minute of CPU per node change. So this file
// builds the request itself, with the SDK's headers and a body equal as JSON to the SDK's, and
// sends it through the SDK client's own Call (signing, endpoint, refreshable tokens) and its
// error and response handling, so retries, rate limiting, metrics and error kinds stay as for
// every other call.

// The body types below mirror the SDK's detail types field for field, in order and with the
// same field types, so that Go's struct conversion (which ignores tags) turns one into the
// other and stops compiling when the SDK adds a field to a nested type. Their tags say what the
// SDK's marshaller does: a field tagged mandatory:"false" is left out when nil (omitzero, which
// unlike omitempty keeps a non-nil empty list), and a mandatory field is sent even when nil.
// TestBackendSetBodyTypesMirrorTheSDK checks every mirror's fields and tags against the SDK's
// (the types built field by field, not converted, rely on it alone).

type lbUpdateBackendSetBody struct {
	Policy                                  *string                         `json:"policy"`
	Backends                                []lbBackendBody                 `json:"backends"`
	HealthChecker                           *lbHealthCheckerBody            `json:"healthChecker"`
	BackendMaxConnections                   *int                            `json:"backendMaxConnections,omitzero"`
	SslConfiguration                        *lbSSLConfigurationBody         `json:"sslConfiguration,omitzero"`
	SessionPersistenceConfiguration         *lbSessionPersistenceBody       `json:"sessionPersistenceConfiguration,omitzero"`
	LbCookieSessionPersistenceConfiguration *lbCookieSessionPersistenceBody `json:"lbCookieSessionPersistenceConfiguration,omitzero"`
}

type lbBackendBody struct {
	IpAddress      *string `json:"ipAddress"`
	Port           *int    `json:"port"`
	Weight         *int    `json:"weight,omitzero"`
	MaxConnections *int    `json:"maxConnections,omitzero"`
	Backup         *bool   `json:"backup,omitzero"`
	Drain          *bool   `json:"drain,omitzero"`
	Offline        *bool   `json:"offline,omitzero"`
}

type lbHealthCheckerBody struct {
	Protocol          *string `json:"protocol"`
	UrlPath           *string `json:"urlPath,omitzero"`
	Port              *int    `json:"port,omitzero"`
	ReturnCode        *int    `json:"returnCode,omitzero"`
	Retries           *int    `json:"retries,omitzero"`
	TimeoutInMillis   *int    `json:"timeoutInMillis,omitzero"`
	IntervalInMillis  *int    `json:"intervalInMillis,omitzero"`
	ResponseBodyRegex *string `json:"responseBodyRegex,omitzero"`
	IsForcePlainText  *bool   `json:"isForcePlainText,omitzero"`
}

type lbSSLConfigurationBody struct {
	VerifyDepth                    *int                                                          `json:"verifyDepth,omitzero"`
	VerifyPeerCertificate          *bool                                                         `json:"verifyPeerCertificate,omitzero"`
	HasSessionResumption           *bool                                                         `json:"hasSessionResumption,omitzero"`
	TrustedCertificateAuthorityIds []string                                                      `json:"trustedCertificateAuthorityIds,omitzero"`
	CertificateIds                 []string                                                      `json:"certificateIds,omitzero"`
	CertificateName                *string                                                       `json:"certificateName,omitzero"`
	Protocols                      []string                                                      `json:"protocols,omitzero"`
	CipherSuiteName                *string                                                       `json:"cipherSuiteName,omitzero"`
	ServerOrderPreference          loadbalancer.SslConfigurationDetailsServerOrderPreferenceEnum `json:"serverOrderPreference,omitempty"`
}

type lbSessionPersistenceBody struct {
	CookieName      *string `json:"cookieName"`
	DisableFallback *bool   `json:"disableFallback,omitzero"`
}

type lbCookieSessionPersistenceBody struct {
	CookieName      *string `json:"cookieName,omitzero"`
	DisableFallback *bool   `json:"disableFallback,omitzero"`
	Domain          *string `json:"domain,omitzero"`
	Path            *string `json:"path,omitzero"`
	MaxAgeInSeconds *int    `json:"maxAgeInSeconds,omitzero"`
	IsSecure        *bool   `json:"isSecure,omitzero"`
	IsHttpOnly      *bool   `json:"isHttpOnly,omitzero"`
}

// lbUpdateBackendSetBodyOf is d in its wire form.
func lbUpdateBackendSetBodyOf(d loadbalancer.UpdateBackendSetDetails) lbUpdateBackendSetBody {
	var backends []lbBackendBody
	if d.Backends != nil {
		backends = make([]lbBackendBody, len(d.Backends))
		for i, b := range d.Backends {
			backends[i] = lbBackendBody(b)
		}
	}
	return lbUpdateBackendSetBody{
		Policy:                                  d.Policy,
		Backends:                                backends,
		HealthChecker:                           (*lbHealthCheckerBody)(d.HealthChecker),
		BackendMaxConnections:                   d.BackendMaxConnections,
		SslConfiguration:                        (*lbSSLConfigurationBody)(d.SslConfiguration),
		SessionPersistenceConfiguration:         (*lbSessionPersistenceBody)(d.SessionPersistenceConfiguration),
		LbCookieSessionPersistenceConfiguration: (*lbCookieSessionPersistenceBody)(d.LbCookieSessionPersistenceConfiguration),
	}
}

// The Network Load Balancer API's UpdateBackendSet, the same way.

type nlbUpdateBackendSetBody struct {
	Policy                                  *string               `json:"policy,omitzero"`
	IsPreserveSource                        *bool                 `json:"isPreserveSource,omitzero"`
	IsFailOpen                              *bool                 `json:"isFailOpen,omitzero"`
	IsInstantFailoverEnabled                *bool                 `json:"isInstantFailoverEnabled,omitzero"`
	IsInstantFailoverTcpResetEnabled        *bool                 `json:"isInstantFailoverTcpResetEnabled,omitzero"`
	AreOperationallyActiveBackendsPreferred *bool                 `json:"areOperationallyActiveBackendsPreferred,omitzero"`
	IpVersion                               nlb.IpVersionEnum     `json:"ipVersion,omitempty"`
	Backends                                []nlbBackendBody      `json:"backends,omitzero"`
	HealthChecker                           *nlbHealthCheckerBody `json:"healthChecker,omitzero"`
}

type nlbBackendBody struct {
	Port      *int    `json:"port"`
	Name      *string `json:"name,omitzero"`
	IpAddress *string `json:"ipAddress,omitzero"`
	TargetId  *string `json:"targetId,omitzero"`
	Weight    *int    `json:"weight,omitzero"`
	IsBackup  *bool   `json:"isBackup,omitzero"`
	IsDrain   *bool   `json:"isDrain,omitzero"`
	IsOffline *bool   `json:"isOffline,omitzero"`
}

type nlbHealthCheckerBody struct {
	Protocol          nlb.HealthCheckProtocolsEnum `json:"protocol"`
	Port              *int                         `json:"port,omitzero"`
	Retries           *int                         `json:"retries,omitzero"`
	TimeoutInMillis   *int                         `json:"timeoutInMillis,omitzero"`
	IntervalInMillis  *int                         `json:"intervalInMillis,omitzero"`
	UrlPath           *string                      `json:"urlPath,omitzero"`
	ResponseBodyRegex *string                      `json:"responseBodyRegex,omitzero"`
	ReturnCode        *int                         `json:"returnCode,omitzero"`
	RequestData       []byte                       `json:"requestData,omitzero"`
	ResponseData      []byte                       `json:"responseData,omitzero"`
	Dns               *nlbDNSHealthCheckerBody     `json:"dns,omitzero"`
}

type nlbDNSHealthCheckerBody struct {
	DomainName        *string                                  `json:"domainName"`
	TransportProtocol nlb.DnsHealthCheckTransportProtocolsEnum `json:"transportProtocol,omitempty"`
	QueryClass        nlb.DnsHealthCheckQueryClassesEnum       `json:"queryClass,omitempty"`
	QueryType         nlb.DnsHealthCheckQueryTypesEnum         `json:"queryType,omitempty"`
	Rcodes            []nlb.DnsHealthCheckRCodesEnum           `json:"rcodes,omitzero"`
}

// nlbUpdateBackendSetBodyOf is d in its wire form.
func nlbUpdateBackendSetBodyOf(d nlb.UpdateBackendSetDetails) nlbUpdateBackendSetBody {
	var backends []nlbBackendBody
	if d.Backends != nil {
		backends = make([]nlbBackendBody, len(d.Backends))
		for i, b := range d.Backends {
			backends[i] = nlbBackendBody(b)
		}
	}
	var hc *nlbHealthCheckerBody
	if d.HealthChecker != nil {
		h := d.HealthChecker
		hc = &nlbHealthCheckerBody{Protocol: h.Protocol, Port: h.Port, Retries: h.Retries, TimeoutInMillis: h.TimeoutInMillis,
			IntervalInMillis: h.IntervalInMillis, UrlPath: h.UrlPath, ResponseBodyRegex: h.ResponseBodyRegex, ReturnCode: h.ReturnCode,
			RequestData: h.RequestData, ResponseData: h.ResponseData, Dns: (*nlbDNSHealthCheckerBody)(h.Dns)}
	}
	return nlbUpdateBackendSetBody{Policy: d.Policy, IsPreserveSource: d.IsPreserveSource, IsFailOpen: d.IsFailOpen,
		IsInstantFailoverEnabled: d.IsInstantFailoverEnabled, IsInstantFailoverTcpResetEnabled: d.IsInstantFailoverTcpResetEnabled,
		AreOperationallyActiveBackendsPreferred: d.AreOperationallyActiveBackendsPreferred, IpVersion: d.IpVersion,
		Backends: backends, HealthChecker: hc}
}

// updateBackendSet sends req as the SDK's NetworkLoadBalancerClient.UpdateBackendSet would with
// our NoRetryPolicy, with the body encoded by encoding/json (see the top of this file).
func (n *NetworkLoadBalancerClient) updateBackendSet(ctx context.Context, req nlb.UpdateBackendSetRequest) (nlb.UpdateBackendSetResponse, error) {
	if deref(req.NetworkLoadBalancerId) == "" || deref(req.BackendSetName) == "" || deref(req.OpcRetryToken) == "" ||
		req.OpcRequestId != nil || sdkEncodingChanged() {
		return n.sdk.UpdateBackendSet(ctx, req)
	}
	httpResp, err := putJSON(ctx, n.sdk.BaseClient, req.UpdateBackendSetDetails.ValidateEnumValue, nlbUpdateBackendSetBodyOf(req.UpdateBackendSetDetails),
		"/networkLoadBalancers/"+*req.NetworkLoadBalancerId+"/backendSets/"+*req.BackendSetName, *req.OpcRetryToken, req.IfMatch,
		"networkLoadBalancer", "NetworkLoadBalancer", "UpdateBackendSet",
		"https://docs.oracle.com/iaas/api/#/en/networkloadbalancer/20200501/BackendSet/UpdateBackendSet")
	defer common.CloseBodyIfValid(httpResp)
	resp := nlb.UpdateBackendSetResponse{RawResponse: httpResp}
	err = completeResponse(httpResp, err, &resp, &resp.OpcRequestId)
	return resp, err
}

// sdkEncodingChanged reports whether the environment asks the SDK to encode requests
// differently from its default (path parameters escaped, or JSON strings escaped to ASCII);
// then the SDK's own marshaller sends the request, as it knows how.
func sdkEncodingChanged() bool {
	return common.IsEnvVarTrue(common.EncodePathParamsEnvVar) || common.IsEnvVarTrue(common.EscapeJSONToASCIIEnvVar)
}

// updateBackendSet sends req as the SDK's LoadBalancerClient.UpdateBackendSet would with our
// NoRetryPolicy, with the body encoded by encoding/json (see the top of this file).
func (l *LoadBalancerClient) updateBackendSet(ctx context.Context, req loadbalancer.UpdateBackendSetRequest) (loadbalancer.UpdateBackendSetResponse, error) {
	// The SDK refuses empty path parameters and a nil list of backends, and fills in a missing
	// retry token; leave those cases, headers ociclient never sets, and a changed encoding to it.
	if deref(req.LoadBalancerId) == "" || deref(req.BackendSetName) == "" || deref(req.OpcRetryToken) == "" ||
		req.Backends == nil || req.OpcRequestId != nil || sdkEncodingChanged() {
		return l.sdk.UpdateBackendSet(ctx, req)
	}
	httpResp, err := putJSON(ctx, l.sdk.BaseClient, req.UpdateBackendSetDetails.ValidateEnumValue, lbUpdateBackendSetBodyOf(req.UpdateBackendSetDetails),
		"/loadBalancers/"+*req.LoadBalancerId+"/backendSets/"+*req.BackendSetName, *req.OpcRetryToken, req.IfMatch,
		"loadBalancer", "LoadBalancer", "UpdateBackendSet", "")
	defer common.CloseBodyIfValid(httpResp)
	resp := loadbalancer.UpdateBackendSetResponse{RawResponse: httpResp}
	err = completeResponse(httpResp, err, &resp, &resp.OpcRequestId)
	return resp, err
}

// putJSON sends a PUT of details, encoded by encoding/json, to path as the SDK's generated
// operations do with our NoRetryPolicy: the details' enums checked first (validate, as the
// SDK's marshaller does), its default headers, a request ID, the retry token, the if-match
// ETag when ifMatch is not nil, and errors
// post-processed as the SDK does for the operation (service, serviceForErrors and link are the
// operation's own). The caller closes the response's body.
func putJSON(ctx context.Context, sdk common.BaseClient, validate func() (bool, error), details any, path, retryToken string,
	ifMatch *string, service, serviceForErrors, operation, link string) (*http.Response, error) {
	if _, err := validate(); err != nil {
		return nil, err
	}
	body, err := json.Marshal(details)
	if err != nil {
		return nil, fmt.Errorf("encoding the %s body: %w", operation, err)
	}
	httpReq := common.MakeDefaultHTTPRequest(http.MethodPut, path)
	// The SDK makes up a request ID when none is given, for OCI's support to find the call by.
	httpReq.Header.Set("opc-request-id", newOpcRequestID())
	httpReq.Header.Set("opc-retry-token", retryToken)
	if ifMatch != nil {
		httpReq.Header.Set("if-match", *ifMatch)
	}
	// common.Retry sends this on every operation; "false" because our policy makes one attempt.
	httpReq.Header.Set("opc-client-retries", "false")
	setJSONBody(&httpReq, body)
	httpResp, err := sdk.CallWithServiceAndOperationName(ctx, &httpReq, service, operation)
	if err != nil {
		return httpResp, common.PostProcessServiceError(err, serviceForErrors, operation, link)
	}
	return httpResp, nil
}

// completeResponse fills resp, an SDK response whose RawResponse is httpResp, as the SDK does
// after a call that returned err: on an error only the request ID OCI sent (into requestID),
// otherwise every header and body field.
func completeResponse[R any](httpResp *http.Response, err error, resp *R, requestID **string) error {
	if err != nil {
		if httpResp != nil {
			*requestID = common.String(httpResp.Header.Get("opc-request-id"))
		}
		return err
	}
	return common.UnmarshalResponse(httpResp, resp)
}

// newOpcRequestID returns a request ID of the SDK's form: 32 random hex digits.
func newOpcRequestID() string {
	var b [16]byte
	_, _ = crand.Read(b[:]) // crypto/rand.Read never fails (it crashes the program instead).
	return hex.EncodeToString(b[:])
}

// setJSONBody makes body the request's body as the SDK's marshaller does: length, content
// type, and a GetBody for redirects.
func setJSONBody(req *http.Request, body []byte) {
	req.ContentLength = int64(len(body))
	req.Header.Set("Content-Length", strconv.Itoa(len(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
}
