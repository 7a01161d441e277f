// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"errors"
	"fmt"

	"github.com/oci-ccm/oci-ccm/lb/internal/text"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// maxFailureEcho bounds one failed change's error in a Summary: OCI's reason comes last, after
// the work request's identifiers.
const maxFailureEcho = 400

// Summary is a one-line account of a reconcile for a Kubernetes Event on the Service, so that
// `kubectl describe service` shows what was done to its load balancer:
//
//	load balancer "default-web": + listener TCP-8080; ~ backend set TCP-80: +1 backend
//
// With err nil it lists plan's changes; when err is (or wraps) an *applyError it says what was
// applied, what failed and why, and what was not attempted. It returns "" when there is nothing
// to report: an empty plan, or an error that is not an *applyError (nothing was applied; the
// error itself is reported by the caller). Changes that do not fit in text.MaxSummary end
// the text as "… and N more". Private keys never appear.
func Summary(plan *model.Plan, err error) string {
	var aerr *applyError
	if err != nil {
		if !errors.As(err, &aerr) {
			return ""
		}
		var parts []string
		for _, c := range aerr.Completed {
			parts = append(parts, "applied "+c.Summary())
		}
		for _, f := range aerr.Failed {
			parts = append(parts, fmt.Sprintf("FAILED %s (%s)", f.Change.Summary(), text.Cut(f.Err.Error(), maxFailureEcho)))
		}
		for _, c := range aerr.Skipped {
			parts = append(parts, "not attempted "+c.Summary())
		}
		return text.Fit(fmt.Sprintf("load balancer %s: %d of %d change(s) failed: ", aerr.LoadBalancerID,
			len(aerr.Failed), len(parts)), parts)
	}
	return plan.Summary()
}
