// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"fmt"
	"net/http"
)

// A request whose body names another resource (the subnets and network security groups of a
// load balancer, its reserved IPs, the VCN of a new network security group) is refused when that
// resource does not exist: 400 RelatedResourceNotAuthorizedOrNotFound, the code OCI's API errors
// reference gives for "a resource specified in the body of the request was not found, or you do
// not have authorization to access that resource", and one of the codes the SDK retries inside
// an eventual-consistency window (oci-go-sdk v65, oci.go and common/eventual_consistency.go).
// The IAM check answers the same for a named resource the policy does not allow (iam_ops.go), so
// a client cannot tell "missing" from "not allowed" here either. The message's wording is
// assumed.

// codeRelatedNotFound is OCI's code for a named resource that is missing or not allowed.
const codeRelatedNotFound = "RelatedResourceNotAuthorizedOrNotFound"

// relatedNotFound is the answer for a named resource that is missing or not allowed.
func relatedNotFound(what, id string) error {
	return &lbError{http.StatusBadRequest, codeRelatedNotFound,
		fmt.Sprintf("Authorization failed or the related resource was not found: %s %s", what, id)}
}

// checkRelatedLocked refuses subnets, network security groups and reserved IPs (public, private
// and IPv6, see AddIPv6) the VCN API does not know. Caller holds s.mu.
func (s *Server) checkRelatedLocked(subnets, nsgs, reserved []string) error {
	for _, id := range subnets {
		if _, ok := s.vcn.subnets.get(id); !ok {
			return relatedNotFound("subnet", id)
		}
	}
	for _, id := range nsgs {
		if _, ok := s.vcn.nsgs.get(id); !ok {
			return relatedNotFound("network security group", id)
		}
	}
	for _, id := range reserved {
		_, public := s.vcn.publicIPs.get(id)
		_, private := s.vcn.privateIPs.get(id)
		_, v6 := s.vcn.ipv6s.get(id)
		if !public && !private && !v6 {
			return relatedNotFound("reserved IP", id)
		}
	}
	return nil
}
