// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package iampolicy_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oci-ccm/oci-ccm/internal/iampolicy"
)

func TestParseTakesTheFirstCodeBlockOfTheIAMSection(t *testing.T) {
	tests := []struct {
		name, doc string
		want      []string
		wantErr   bool
	}{
		{"statements", "# x\n```\nnot this\n```\n## IAM policy\n\ntext\n\n```\nAllow a\n\n  Allow b  \n```\n```\nnot this\n```\n",
			[]string{"Allow a", "Allow b"}, false},
		{"no section", "# x\n```\nAllow a\n```\n", nil, true},
		{"section without block", "## IAM policy\ntext\n## Next\n```\nAllow a\n```\n", nil, true},
		{"unclosed block", "## IAM policy\n```\nAllow a\n", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := iampolicy.Parse([]byte(tt.doc))
			if tt.wantErr != errors.Is(err, iampolicy.ErrNoPolicy) {
				t.Fatalf("err = %v, want ErrNoPolicy: %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("statements (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSubstituteFillsBothPlaceholders(t *testing.T) {
	got := iampolicy.Substitute([]string{"Allow dynamic-group <dg> to use vnics in compartment <c>"}, "ccm", "prod")
	if diff := cmp.Diff([]string{"Allow dynamic-group ccm to use vnics in compartment prod"}, got); diff != "" {
		t.Error(diff)
	}
}
