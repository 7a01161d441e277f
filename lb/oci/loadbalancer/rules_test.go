// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package loadbalancer

import (
	"testing"

	lbapi "github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/lb/internal/ruletext"
)

// Rule texts as a desired Spec holds them (ruletext.Canonical of the annotation's items) go back to
// the SDK's rules intact: each its own rule type, unset fields left unset.
func TestRuleTextsGoBackToTheSDKsRulesIntact(t *testing.T) {
	var texts []string
	for _, item := range []string{
		`{"action":"REDIRECT","conditions":[{"attributeName":"PATH","attributeValue":"/old","operator":"PREFIX_MATCH"}],"redirectUri":{"path":"/new"}}`,
		`{"action":"EXTEND_HTTP_REQUEST_HEADER_VALUE","header":"x","prefix":"p"}`,
	} {
		text, err := ruletext.Canonical([]byte(item))
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, text)
	}
	items, err := ruleItems(texts)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := items[0].(lbapi.RedirectRule); !ok || *r.RedirectUri.Path != "/new" {
		t.Errorf("first rule back from text: %#v", items[0])
	}
	if r, ok := items[1].(lbapi.ExtendHttpRequestHeaderValueRule); !ok || *r.Prefix != "p" || r.Suffix != nil {
		t.Errorf("second rule back from text: %#v", items[1])
	}
}
