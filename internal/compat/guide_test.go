// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestPreSwitchCheckFindsExactlyTheRefusedKeys runs the generated check's patterns (fixed strings
// for annotations, one extended regexp for config keys) over the lines `kubectl get -o yaml` and
// a cloud-provider.yaml would hold for every upstream key: a line is found exactly when oci-ccm
// refuses its key.
func TestPreSwitchCheckFindsExactlyTheRefusedKeys(t *testing.T) {
	var anns, keys []Row
	for _, a := range upstreamAnnotations {
		r, err := classifyAnnotation(a)
		if err != nil {
			t.Fatal(err)
		}
		anns = append(anns, r)
	}
	for _, k := range upstreamConfigKeys {
		r, err := classifyConfigKey(k)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, r)
	}
	check := preSwitchCheck(anns, keys)

	var fixed []string
	for _, m := range regexp.MustCompile(`-e '([^']+)'`).FindAllStringSubmatch(check, -1) {
		fixed = append(fixed, m[1])
	}
	for i, r := range anns {
		line := "    " + r.Key + ": " + upstreamAnnotations[i].Value
		found := false
		for _, f := range fixed {
			found = found || strings.Contains(line, f)
		}
		if found != (r.Status == Refused) {
			t.Errorf("annotation %s (%s): the check finds it = %v", r.Key, r.Status, found)
		}
	}

	m := regexp.MustCompile(`(?m)^  '(\^.*:)'$`).FindStringSubmatch(check)
	var config *regexp.Regexp
	if m != nil {
		// grep -E's [[:space:]] is Go's [[:space:]] too.
		config = regexp.MustCompile(m[1])
	}
	for _, r := range keys {
		line := strings.Repeat("  ", strings.Count(r.Key, ".")) + lastSegment(r.Key) + ": x"
		found := config != nil && config.MatchString(line)
		if found != (r.Status == Refused) {
			t.Errorf("config key %s (%s): the check finds it = %v", r.Key, r.Status, found)
		}
	}
}
