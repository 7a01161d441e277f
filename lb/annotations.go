// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
)

// The annotations are named in package annotation; this file reads their values. Every parse
// failure is a *Problem naming the annotation, the value and what is allowed.

// errNotSet is returned by the getters below when the Service does not carry the annotation.
var errNotSet = errors.New("annotation not set")

// annotationValue returns the annotation's raw value, or errNotSet.
func annotationValue(a annotation.Name, annotations map[string]string) (string, error) {
	v, ok := a.Value(annotations)
	if !ok {
		return "", errNotSet
	}
	return v, nil
}

// annotationBool parses the annotation as a boolean ("true", "false", "1", "0", …), or returns
// errNotSet.
func annotationBool(a annotation.Name, annotations map[string]string) (bool, error) {
	v, err := annotationValue(a, annotations)
	if err != nil {
		return false, err
	}
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		return false, &Problem{Field: a.String(), Value: v, Allowed: "true or false"}
	}
	return b, nil
}

// annotationStrings splits the annotation at commas, trimming spaces and dropping empty items,
// or returns errNotSet. An annotation that is present but empty yields an empty, non-nil slice.
func annotationStrings(a annotation.Name, annotations map[string]string) ([]string, error) {
	v, err := annotationValue(a, annotations)
	if err != nil {
		return nil, err
	}
	out := []string{}
	for item := range strings.SplitSeq(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out, nil
}

// problemf builds the Problem for a bad annotation value.
func problemf(a annotation.Name, value, allowedFormat string, args ...any) *Problem {
	return &Problem{Field: a.String(), Value: value, Allowed: fmt.Sprintf(allowedFormat, args...)}
}

// nlbAnnotations lists the network load balancer annotations, in documentation order.
func nlbAnnotations() []annotation.Name {
	var out []annotation.Name
	for _, a := range annotation.All() {
		if strings.HasPrefix(string(a), nlbAnnotationPrefix) {
			out = append(out, a)
		}
	}
	return out
}
