// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import (
	"fmt"
	"regexp"
	"strings"
)

// DefaultClusterName is the name k8s.io/cloud-provider gives --cluster-name when the flag is not
// set. Every cluster started without the flag has it, so it identifies none of them: two such
// clusters sharing a subnet would remove each other's security rules.
const DefaultClusterName = "kubernetes"

// ClusterNameFlag is the command-line flag that can carry the identity instead of clusterID.
const ClusterNameFlag = "--cluster-name"

// maxClusterIDLength keeps the identity readable in tags and rule descriptions ("oci-ccm
// cluster=<id>" must stay within OCI's 255 characters, with room to spare).
const maxClusterIDLength = 63

var clusterIDPattern = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`)

// clusterIDRule says what an identity may look like, for error messages.
const clusterIDRule = "must be 1-63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"

// uniqueHint says what an identity is for, for error messages.
const uniqueHint = "a name unique among the clusters sharing this tenancy's load balancer compartments and subnets (it marks the load balancers and security rules this cluster owns), e.g. prod-phx-1"

// ClusterIdentity returns the identity that marks this cluster's load balancers (ownership tags)
// and security rules (descriptions): clusterID when set, otherwise clusterName, the value of
// --cluster-name. It is the one source both take their identity from.
//
// It refuses, as a *ValidationError:
//   - no identity at all (both empty);
//   - the framework default "kubernetes", unless allowDefaultClusterName is true;
//   - clusterID and --cluster-name both set to different names (the flag's default
//     "kubernetes" counts as unset);
//   - a placeholder left in a shipped manifest ("<...>") or any other malformed name.
func (c *Config) ClusterIdentity(clusterName string) (string, error) {
	v := &validator{}
	id, field := c.ClusterID, "clusterID"
	switch {
	case id == "":
		id, field = clusterName, ClusterNameFlag
	case clusterName != "" && clusterName != DefaultClusterName && clusterName != id:
		v.add("clusterID", id, fmt.Sprintf("differs from %s=%q; set one of them, or both to the same name, so that load balancer tags and security rules carry one identity", ClusterNameFlag, clusterName))
		return "", &ValidationError{Errors: v.errs}
	}
	switch {
	case id == "":
		v.add("clusterID", "", "required: set clusterID in cloud-provider.yaml (or "+ClusterNameFlag+") to "+uniqueHint)
	default:
		checkClusterID(v, field, id, c.AllowDefaultClusterName)
	}
	if len(v.errs) > 0 {
		return "", &ValidationError{Errors: v.errs}
	}
	return id, nil
}

// validateClusterID checks clusterID when it is set. Whether some identity is set at all is
// ClusterIdentity's question: it may come from --cluster-name, which Validate cannot see.
func (c *Config) validateClusterID(v *validator) {
	if c.ClusterID != "" {
		checkClusterID(v, "clusterID", c.ClusterID, c.AllowDefaultClusterName)
	}
}

func checkClusterID(v *validator, field, id string, allowDefault bool) {
	switch {
	case strings.ContainsAny(id, "<>"):
		v.add(field, id, "is a placeholder; replace it with "+uniqueHint)
	case len(id) > maxClusterIDLength || !clusterIDPattern.MatchString(id):
		v.add(field, id, clusterIDRule+"; it should be "+uniqueHint)
	case id == DefaultClusterName && !allowDefault:
		v.add(field, id, "is the framework's default cluster name and identifies no cluster: two clusters left at the default remove each other's security rules. Set "+uniqueHint+
			"; or, for a cluster already running under this name that shares nothing with another, set allowDefaultClusterName: true")
	}
}
