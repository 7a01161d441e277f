// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"slices"
	"time"
)

// Eventual consistency, as ocitest models it. Both lags are on by default and run on the
// server's clock (Options.Now), so a test with a Clock can jump past them.
//
// IAM policies: a policy loaded with SetPolicy (or the admin API) takes full effect
// Options.PolicyDelay later. Until then a call is allowed only if the new policy and the one
// before it both allow it: what the new policy grants is still refused, with the 404
// NotAuthorizedOrNotFound the old policy gives, while what it withdraws is refused at once (the
// harder of the two ways OCI may behave). OCI's SDK documents "New policies take effect
// typically within 10 seconds" (identity/identity_client.go, CreatePolicy and UpdatePolicy), and
// after every identity write retries NotAuthorizedOrNotFound and the other codes of
// common/eventual_consistency.go for a window of 240 seconds. "No policy" is ocitest's switch for
// not modelling IAM: a first SetPolicy after it, and SetPolicy() back to it, apply at once.
// Seeding (Seed, Tenancy.Policy) is the tenancy as it was before the test: at once too.
//
// Listings: a load balancer, network load balancer or network security group created through
// the API, and a certificate added by CreateCertificate, is left out of its List… for
// Options.ListingLag after it was created (Get finds it at once). OCI documents no such lag for
// these services; it is assumed, to make sure that a caller never takes a listing's silence
// about something it has just created for proof that it does not exist.

// NoLag, as Options.PolicyDelay or Options.ListingLag, turns that lag off: policies apply the
// moment they are set, listings show what was created a moment ago. It is kinder than OCI; a
// test that uses it should say why.
const NoLag time.Duration = -1

// Defaults of Options.PolicyDelay and Options.ListingLag.
const (
	// DefaultPolicyDelay is how long a policy change takes to apply: OCI's "typically within
	// 10 seconds" (doc comments of CreatePolicy and UpdatePolicy in the SDK's identity package).
	DefaultPolicyDelay = 10 * time.Second
	// DefaultListingLag is how long a new resource is missing from listings (assumed: OCI
	// documents none).
	DefaultListingLag = 2 * time.Second
)

// consistency holds the state of both lags; guarded by Server.mu.
type consistency struct {
	policyDelay time.Duration // <= 0: none
	listingLag  time.Duration // <= 0: none

	// replaced are the policies SetPolicy replaced less than policyDelay ago, each with the
	// time its replacement takes full effect: until then a call must pass it too.
	replaced []replacedPolicy

	created map[string]time.Time // listing key → when it was created, by the server's clock
}

type replacedPolicy struct {
	p     *policy
	until time.Time
}

func newConsistency(opts Options) *consistency {
	orDefault := func(d, def time.Duration) time.Duration {
		if d == 0 {
			return def
		}
		return max(d, 0)
	}
	return &consistency{
		policyDelay: orDefault(opts.PolicyDelay, DefaultPolicyDelay),
		listingLag:  orDefault(opts.ListingLag, DefaultListingLag),
		created:     map[string]time.Time{},
	}
}

// policyChangedLocked records that SetPolicy replaced the policy before with after at now.
func (c *consistency) policyChangedLocked(before, after *policy, now time.Time) {
	switch {
	case c.policyDelay <= 0 || after == nil:
		c.replaced = nil // no lag, or IAM no longer modelled
	case before != nil:
		c.replaced = append(c.replaced, replacedPolicy{p: before, until: now.Add(c.policyDelay)})
	}
}

// propagatingLocked reports whether a policy change has not yet taken effect for v on t in
// compartment at now: a replaced policy whose replacement is still propagating refuses it.
func (c *consistency) propagatingLocked(now time.Time, v verb, t, compartment string) bool {
	c.replaced = slices.DeleteFunc(c.replaced, func(r replacedPolicy) bool { return !now.Before(r.until) })
	for _, r := range c.replaced {
		if !r.p.allows(v, t, compartment) {
			return true
		}
	}
	return false
}

// Listing keys, one namespace per kind of listing.
func lagKeyCertificate(lbID, name string) string { return lbID + "/certificates/" + name }

// createdLocked records that the resource listed under key was created at now.
func (c *consistency) createdLocked(key string, now time.Time) {
	if c.listingLag <= 0 {
		return
	}
	if len(c.created) >= 256 {
		for k, at := range c.created {
			if !now.Before(at.Add(c.listingLag)) {
				delete(c.created, k)
			}
		}
	}
	c.created[key] = now
}

// listedLocked reports whether a listing at now shows the resource under key.
func (c *consistency) listedLocked(key string, now time.Time) bool {
	at, ok := c.created[key]
	if !ok {
		return true
	}
	if !now.Before(at.Add(c.listingLag)) {
		delete(c.created, key)
		return true
	}
	return false
}
