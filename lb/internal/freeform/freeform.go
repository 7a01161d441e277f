// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package freeform reads and writes the freeform tags oci-ccm keeps on a load balancer: the
// ownership tags (model.Owner) and the lists it records as its own on a load balancer shared with
// others (the NSGs it attached, the rule sets it manages). The engine (package lb) decides and
// plans with them; each product (lb/oci/...) reads an observed load balancer's owner with them and
// tags what it creates, so both sides read and write the same tags.
package freeform

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/oci-ccm/oci-ccm/lb/model"
)

// The prefixes of the tags that record what oci-ccm manages on a load balancer, one value a tag
// (prefix + "1", "2", ...).
const (
	// NSGPrefix starts the freeform tags that record the NSGs oci-ccm attached.
	NSGPrefix = "oci-ccm-nsg-"
	// RuleSetPrefix starts the freeform tags that record the rule sets oci-ccm manages.
	RuleSetPrefix = "oci-ccm-rule-set-"
)

// Owner reads the ownership tags; ok is false when the load balancer carries none.
func Owner(tags map[string]string) (model.Owner, bool) {
	if tags[model.TagManagedBy] != model.ManagedByValue {
		return model.Owner{}, false
	}
	return model.Owner{Cluster: tags[model.TagCluster], Service: tags[model.TagService], UID: tags[model.TagServiceUID]}, true
}

// WithOwner returns the freeform tags a load balancer should carry: its current tags with
// the ownership tags set. ok is false when nothing changes.
func WithOwner(current map[string]string, o model.Owner) (map[string]string, bool) {
	out := maps.Clone(current)
	if out == nil {
		out = map[string]string{}
	}
	changed := false
	for k, v := range o.Tags() {
		if out[k] != v {
			out[k] = v
			changed = true
		}
	}
	return out, changed
}

// WithNSGs returns tags recording nsgs as the NSGs oci-ccm attached, and whether that differs
// from what tags recorded.
func WithNSGs(tags map[string]string, nsgs []string) (map[string]string, bool) {
	return RecordAs(tags, NSGPrefix, nsgs)
}

// WithRuleSets returns tags recording names as the rule sets oci-ccm manages, and whether
// that differs from what tags recorded.
func WithRuleSets(tags map[string]string, names []string) (map[string]string, bool) {
	return RecordAs(tags, RuleSetPrefix, names)
}

// Recorded returns the values of the freeform tags whose keys start with prefix, sorted, each
// once: what oci-ccm recorded as its own on a load balancer shared with others (the NSGs it
// attached, the rule sets it manages), one value a tag, as values are limited to 256 characters.
func Recorded(tags map[string]string, prefix string) []string {
	var out []string
	for k, v := range tags {
		if strings.HasPrefix(k, prefix) && v != "" {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// RecordAs returns tags with those under prefix replaced by one per value, sorted (prefix + "1",
// "2", ...), and whether that differs from tags.
func RecordAs(tags map[string]string, prefix string, values []string) (map[string]string, bool) {
	out := maps.Clone(tags)
	if out == nil {
		out = map[string]string{}
	}
	maps.DeleteFunc(out, func(k, _ string) bool { return strings.HasPrefix(k, prefix) })
	for i, v := range slices.Sorted(slices.Values(values)) {
		out[prefix+strconv.Itoa(i+1)] = v
	}
	return out, !maps.Equal(out, tags) && !(len(out) == 0 && len(tags) == 0)
}
