// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package instances

import (
	"errors"
	"fmt"
	"strings"
)

// ProviderIDPrefix is the scheme of the provider IDs this package writes to spec.providerID.
const ProviderIDPrefix = "oci://"

// ErrInvalidProviderID is wrapped by every error ParseProviderID returns, so callers can tell a
// malformed spec.providerID (a configuration problem that retrying will not fix) from an OCI error.
var ErrInvalidProviderID = errors.New("invalid providerID")

// ProviderID returns the provider ID for an instance OCID: "oci://<ocid>".
func ProviderID(instanceID string) string {
	return ProviderIDPrefix + instanceID
}

// ParseProviderID returns the instance OCID a Node's spec.providerID names. It accepts
// "oci://<instance OCID>" and, because older nodes and other tools write them, bare instance OCIDs.
// Anything else fails with an error that names the value and what is allowed.
func ParseProviderID(providerID string) (string, error) {
	id := strings.TrimPrefix(providerID, ProviderIDPrefix)
	if problem := instanceOCIDProblem(id); problem != "" {
		return "", fmt.Errorf("%w %q: %s; want %q or a bare instance OCID (ocid1.instance.<realm>.<region>.<unique id>)",
			ErrInvalidProviderID, providerID, problem, ProviderIDPrefix+"<instance OCID>")
	}
	return id, nil
}

// instanceOCIDProblem says what is wrong with id as an instance OCID, or "" if nothing is.
// OCIDs have the form ocid1.<resource type>.<realm>.[region][.future use].<unique id>; the region
// part may be empty for global resources, never for instances.
func instanceOCIDProblem(id string) string {
	if id == "" {
		return "it is empty"
	}
	for _, r := range id {
		if !isOCIDRune(r) {
			return fmt.Sprintf("%q is not allowed in an OCID", r)
		}
	}
	parts := strings.Split(id, ".")
	switch {
	case parts[0] != "ocid1":
		return `it does not start with "ocid1."`
	case len(parts) < 5:
		return "an OCID has at least five dot-separated parts"
	case parts[1] != "instance":
		return fmt.Sprintf("it is the OCID of a %q, not of an instance", parts[1])
	case parts[2] == "" || parts[3] == "" || parts[len(parts)-1] == "":
		return "its realm, region and unique ID must not be empty"
	}
	return ""
}

func isOCIDRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_'
}
