// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package kube

import (
	"context"
	"fmt"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

func TestServiceAccountTokensKeepsATokenForHalfItsLifetime(t *testing.T) {
	client := fake.NewClientset()
	minted := 0
	now := time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)
	var asked []int64
	client.PrependReactor("create", "serviceaccounts", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "token" {
			return false, nil, nil
		}
		tr := a.(k8stesting.CreateAction).GetObject().(*authenticationv1.TokenRequest).DeepCopy()
		minted++
		asked = append(asked, *tr.Spec.ExpirationSeconds)
		tr.Status = authenticationv1.TokenRequestStatus{Token: fmt.Sprint("token-", minted),
			ExpirationTimestamp: metav1.NewTime(now.Add(time.Duration(*tr.Spec.ExpirationSeconds) * time.Second))}
		return true, tr, nil
	})
	tokens := NewServiceAccountTokens(func() kubernetes.Interface { return client })
	tokens.now = func() time.Time { return now }
	get := func(ns, name string) string {
		t.Helper()
		tok, err := tokens.Token(context.Background(), ns, name)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	if a, b := get("team", "lb"), get("team", "lb"); a != "token-1" || b != "token-1" {
		t.Errorf("tokens %q, %q; want the first kept", a, b)
	}
	if c := get("other", "lb"); c != "token-2" {
		t.Errorf("another account's token %q, want its own", c)
	}
	now = now.Add(TokenLifetime/2 + time.Second)
	if d := get("team", "lb"); d != "token-3" {
		t.Errorf("token past half its lifetime %q, want a new one", d)
	}
	if minted != 3 || asked[0] != int64(TokenLifetime/time.Second) {
		t.Errorf("minted %d tokens asking %v s, want 3 asking %d s", minted, asked, int64(TokenLifetime/time.Second))
	}
}

func TestServiceAccountTokensWithoutAClientIsAnError(t *testing.T) {
	tokens := NewServiceAccountTokens(func() kubernetes.Interface { return nil })
	if _, err := tokens.Token(context.Background(), "ns", "sa"); err == nil {
		t.Error("Token without a client succeeded")
	}
}
