// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package webhook is a validating admission webhook for Services of type LoadBalancer: it runs
// the same pure validation as a reconcile (lb.Desired) when a Service is written, so a bad
// annotation is refused at `kubectl apply` time with the annotation, the value and what is
// allowed, instead of surfacing later as a Warning Event.
//
// The webhook is meant to be registered with failurePolicy Ignore: it only moves an error
// earlier, and an outage of it must never block Service writes (ccm/docs/webhook.md).
package webhook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb"
)

// Path is where the handler is served; the ValidatingWebhookConfiguration's clientConfig points
// at it.
const Path = "/validate-service"

// maxBody bounds an AdmissionReview: kube-apiserver refuses objects over 3 MiB, and a review
// holds the new and the old object.
const maxBody = 7 << 20

// Handler serves admission.k8s.io/v1 AdmissionReview requests for Services.
type Handler struct {
	// Config is the parsed cloud-provider.yaml the CCM runs with. Its defaults (subnets,
	// security-list mode, source CIDRs) take part in validation exactly as in a reconcile; nil is
	// an empty configuration, without default subnets.
	Config *config.Config
	// Logger receives one line per refused Service and per malformed request.
	Logger klog.Logger
}

// ServeHTTP decodes an AdmissionReview, reviews its request and answers with the verdict. A
// request that is not an AdmissionReview gets 400; the API server then applies the
// configuration's failurePolicy.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "only POST is served", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		http.Error(w, "reading the request: "+err.Error(), http.StatusBadRequest)
		return
	}
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &review); err != nil {
		h.Logger.Info("Malformed admission request", "err", err)
		http.Error(w, "not an AdmissionReview: "+err.Error(), http.StatusBadRequest)
		return
	}
	if review.Request == nil {
		http.Error(w, "AdmissionReview has no request", http.StatusBadRequest)
		return
	}
	resp := Review(h.Config, review.Request)
	if !resp.Allowed {
		h.Logger.Info("Refused a Service with invalid settings", "service", klog.KRef(review.Request.Namespace, review.Request.Name),
			"operation", review.Request.Operation, "reason", resp.Result.Message)
	}
	out := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: admissionv1.SchemeGroupVersion.String(), Kind: "AdmissionReview"},
		Response: resp,
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(out); err != nil {
		h.Logger.Info("Cannot write the admission response", "err", err)
	}
}

// Review decides one admission request. It allows everything it is not responsible for: other
// resources, DELETE, Services that are not of type LoadBalancer or that have a
// spec.loadBalancerClass (another controller's), and Services being deleted. Otherwise it runs
// lb.Desired with no Nodes (zero backends is valid) and a Secret lookup that finds every Secret:
// whether a referenced Secret exists is not checked at admission, since Secrets are often
// created after the Service (the reconcile reports a missing one).
//
// On UPDATE only problems the old object did not have refuse the request, so that a Service
// which became invalid while the webhook was down can still be changed in other ways: the
// service controller must be able to remove its finalizer, and a user to fix one problem at a
// time.
func Review(cfg *config.Config, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	allow := &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return allow
	}
	if req.Kind.Kind != "Service" || req.Kind.Group != "" || req.SubResource != "" {
		return allow
	}
	var svc v1.Service
	if err := json.Unmarshal(req.Object.Raw, &svc); err != nil {
		return &admissionv1.AdmissionResponse{UID: req.UID, Allowed: false, Result: &metav1.Status{
			Status: metav1.StatusFailure, Code: http.StatusBadRequest, Reason: metav1.StatusReasonBadRequest,
			Message: "the object is not a Service: " + err.Error(),
		}}
	}
	if svc.DeletionTimestamp != nil {
		return allow
	}
	problems := validate(cfg, &svc)
	if len(problems) > 0 && req.Operation == admissionv1.Update && len(req.OldObject.Raw) > 0 {
		var old v1.Service
		if err := json.Unmarshal(req.OldObject.Raw, &old); err == nil {
			problems = newProblems(problems, validate(cfg, &old))
		}
	}
	if len(problems) == 0 {
		return allow
	}
	return deny(req, &svc, problems)
}

// validate returns the problems lb.Desired finds in svc (none for a Service oci-ccm does not
// manage). Errors that are not validation problems are not the user's to fix at admission and
// let the Service through.
func validate(cfg *config.Config, svc *v1.Service) []*lb.Problem {
	if !lb.Manages(svc) {
		return nil
	}
	_, err := lb.Desired(svc, nil, cfg, lb.Known{Secrets: anySecret(svc)})
	var verr *lb.ValidationError
	if errors.As(err, &verr) {
		return verr.Problems
	}
	return nil
}

// anySecret finds every Secret svc references, with placeholder material in every key a Secret
// may need: whether a Secret exists is not checked at admission.
func anySecret(svc *v1.Service) lb.Secrets {
	found := lb.Secrets{}
	for _, ref := range lb.RequiredSecrets(svc) {
		found[ref] = lb.TLSSecret{
			Certificate: "placeholder certificate: existence is not checked at admission",
			Key:         "placeholder key",
			CA:          "placeholder CA",
		}
	}
	return found
}

// newProblems returns the problems of now that were not in before, compared by what they say.
func newProblems(now, before []*lb.Problem) []*lb.Problem {
	seen := make(map[string]bool, len(before))
	for _, p := range before {
		seen[p.Error()] = true
	}
	var out []*lb.Problem
	for _, p := range now {
		if !seen[p.Error()] {
			out = append(out, p)
		}
	}
	return out
}

// deny refuses the request with every problem in the message, as lb.ValidationError words it
// (annotation, value, what is allowed), and one cause per problem for clients that read them.
func deny(req *admissionv1.AdmissionRequest, svc *v1.Service, problems []*lb.Problem) *admissionv1.AdmissionResponse {
	name := svc.Name
	if name == "" {
		name = req.Name
	}
	namespace := svc.Namespace
	if namespace == "" {
		namespace = req.Namespace
	}
	verr := &lb.ValidationError{Service: namespace + "/" + name, Problems: problems}
	causes := make([]metav1.StatusCause, len(problems))
	for i, p := range problems {
		field := p.Field
		if !strings.HasPrefix(field, "spec.") && strings.Contains(field, "/") { // an annotation key
			field = fmt.Sprintf("metadata.annotations[%s]", p.Field)
		}
		causes[i] = metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Field: field, Message: p.Error()}
	}
	return &admissionv1.AdmissionResponse{UID: req.UID, Allowed: false, Result: &metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusUnprocessableEntity,
		Reason:  metav1.StatusReasonInvalid,
		Message: verr.Error(),
		Details: &metav1.StatusDetails{Name: name, Kind: "Service", Causes: causes},
	}}
}
