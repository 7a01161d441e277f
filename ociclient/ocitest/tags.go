// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
)

// Defined tags come from tag namespaces and their key definitions, which "must be set up in your
// tenancy before you can apply them to resources" (the SDK's doc comment of identity.Tag). A
// create or update carrying definedTags that name a namespace or key the tenancy does not have
// is refused: 400 RelatedResourceNotAuthorizedOrNotFound, "The following tag namespaces / keys
// are not authorized or not found: TagNamespace X does not exists.", as users report OCI
// answering for VCNs, instances and OKE clusters (hashicorp/terraform#20375 and #32357,
// oracle-terraform-modules/terraform-oci-oke#562). Namespace and key names compare without case
// (the SDK's doc comments of CreateTagNamespace and CreateTag: "Names are case insensitive").
// Seed namespaces with Tenancy.TagNamespaces or Server.AddTagNamespace.

// tagStore holds the tenancy's tag namespaces: lower-case namespace → lower-case key → the
// key's name as defined. Guarded by Server.mu.
type tagStore map[string]map[string]string

// AddTagNamespace defines a tag namespace (if it is new) with the given keys, so definedTags may
// name them. It panics on a name with a space or a period, which OCI does not allow.
func (s *Server) AddTagNamespace(namespace string, keys ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.addTagNamespaceLocked(namespace, keys); err != nil {
		panic("ocitest: AddTagNamespace: " + err.Error())
	}
}

func (s *Server) addTagNamespaceLocked(namespace string, keys []string) error {
	if err := checkTagName("namespace", namespace); err != nil {
		return err
	}
	for _, k := range keys {
		if err := checkTagName("key", k); err != nil {
			return err
		}
	}
	ns := strings.ToLower(namespace)
	if s.tags[ns] == nil {
		s.tags[ns] = map[string]string{}
	}
	for _, k := range keys {
		s.tags[ns][strings.ToLower(k)] = k
	}
	return nil
}

// checkTagName refuses what CreateTagNamespace and CreateTag refuse: an empty name, or one with a
// space or a period.
func checkTagName(what, name string) error {
	if name == "" || strings.ContainsAny(name, " .") {
		return fmt.Errorf("tag %s %q: names are not empty and hold no space or period", what, name)
	}
	return nil
}

// checkDefinedTagsLocked refuses definedTags naming a namespace or key the tenancy does not
// define, naming the first such in sorted order. Caller holds s.mu.
func (s *Server) checkDefinedTagsLocked(defined map[string]map[string]any) error {
	for _, ns := range slices.Sorted(maps.Keys(defined)) {
		keys, ok := s.tags[strings.ToLower(ns)]
		if !ok {
			return tagsNotFound(fmt.Sprintf("TagNamespace %s does not exists.", ns))
		}
		for _, k := range slices.Sorted(maps.Keys(defined[ns])) {
			if _, ok := keys[strings.ToLower(k)]; !ok {
				// Wording assumed, after the namespace's.
				return tagsNotFound(fmt.Sprintf("TagDefinition %s in TagNamespace %s does not exists.", k, ns))
			}
		}
	}
	return nil
}

func tagsNotFound(what string) error {
	return &lbError{http.StatusBadRequest, codeRelatedNotFound,
		"The following tag namespaces / keys are not authorized or not found: " + what}
}
