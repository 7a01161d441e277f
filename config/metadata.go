// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// DefaultMetadataBaseURL is the link-local address of the OCI instance metadata service.
const DefaultMetadataBaseURL = "http://169.254.169.254"

// maxMetadataBytes bounds the instance document read; real ones are a few kilobytes.
const maxMetadataBytes = 1 << 20

// InstanceMetadata is the part of the instance metadata document (GET /opc/v2/instance/) that
// oci-ccm uses. The JSON names are the service's. The "metadata" map is left out on purpose: it
// carries user_data and SSH keys, which have no business in a config loader.
type InstanceMetadata struct {
	ID                 string `json:"id"`
	DisplayName        string `json:"displayName"`
	Hostname           string `json:"hostname,omitempty"`
	CompartmentID      string `json:"compartmentId"`
	AvailabilityDomain string `json:"availabilityDomain"`
	FaultDomain        string `json:"faultDomain,omitempty"`
	// Region may be a short region key such as "phx"; prefer CanonicalRegionName.
	Region string `json:"region"`
	// CanonicalRegionName is the full region name, such as "us-phoenix-1".
	CanonicalRegionName string                    `json:"canonicalRegionName,omitempty"`
	RegionInfo          *RegionInfo               `json:"regionInfo,omitempty"`
	Shape               string                    `json:"shape,omitempty"`
	State               string                    `json:"state,omitempty"`
	Image               string                    `json:"image,omitempty"`
	TimeCreated         int64                     `json:"timeCreated,omitempty"`
	FreeformTags        map[string]string         `json:"freeformTags,omitempty"`
	DefinedTags         map[string]map[string]any `json:"definedTags,omitempty"`
}

// RegionInfo describes the instance's region and realm.
type RegionInfo struct {
	RealmKey             string `json:"realmKey"`
	RealmDomainComponent string `json:"realmDomainComponent"`
	RegionKey            string `json:"regionKey"`
	RegionIdentifier     string `json:"regionIdentifier"`
}

// RegionName returns the canonical region name when the service gave one, else the region
// field as given (possibly a short key, which the SDK also accepts).
func (m InstanceMetadata) RegionName() string {
	if m.CanonicalRegionName != "" {
		return m.CanonicalRegionName
	}
	return m.Region
}

// InstanceMetadataSource returns the metadata of the instance the process runs on.
// MetadataClient implements it, and Open reads the region and compartment through it; tests and
// embedders may supply their own.
type InstanceMetadataSource interface {
	Instance(ctx context.Context) (InstanceMetadata, error)
}

// MetadataClient reads the OCI instance metadata service (v2).
type MetadataClient struct {
	// BaseURL is the service's base URL without a path; empty means DefaultMetadataBaseURL.
	// Tests point it at an httptest server.
	BaseURL string
	// HTTPClient sends the request; nil means a client that ignores proxy environment
	// variables, because a proxy cannot reach a link-local address. Bound the time with ctx.
	HTTPClient *http.Client
}

var _ InstanceMetadataSource = (*MetadataClient)(nil)

// MetadataStatusError is returned when the metadata service answers with a status other than
// 200 OK.
type MetadataStatusError struct {
	// URL is the URL requested.
	URL string
	// StatusCode is the HTTP status received.
	StatusCode int
}

// Error names the URL and status.
func (e *MetadataStatusError) Error() string {
	return fmt.Sprintf("instance metadata %s: HTTP %d %s", e.URL, e.StatusCode, http.StatusText(e.StatusCode))
}

// Instance fetches GET {BaseURL}/opc/v2/instance/ with the "Authorization: Bearer Oracle" header
// the v2 endpoint requires. It makes one attempt; the caller owns retries and the deadline.
func (m *MetadataClient) Instance(ctx context.Context) (InstanceMetadata, error) {
	base := m.BaseURL
	if base == "" {
		base = DefaultMetadataBaseURL
	}
	url := strings.TrimSuffix(base, "/") + "/opc/v2/instance/"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return InstanceMetadata{}, fmt.Errorf("instance metadata: %w", err)
	}
	req.Header.Set("Authorization", "Bearer Oracle")
	req.Header.Set("Accept", "application/json")

	client := m.HTTPClient
	if client == nil {
		// One request at startup: no proxy (it cannot reach link-local) and no idle connection left behind.
		client = &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	}
	resp, err := client.Do(req)
	if err != nil {
		return InstanceMetadata{}, fmt.Errorf("instance metadata: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxMetadataBytes)) // reuse the connection
		return InstanceMetadata{}, &MetadataStatusError{URL: url, StatusCode: resp.StatusCode}
	}
	var md InstanceMetadata
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxMetadataBytes)).Decode(&md); err != nil {
		return InstanceMetadata{}, fmt.Errorf("instance metadata %s: decode: %w", url, err)
	}
	return md, nil
}

// ErrIncompleteMetadata is returned, wrapped, by Open when the file leaves out the region or
// the compartment and the instance metadata lacks it too.
var ErrIncompleteMetadata = errors.New("instance metadata lacks a needed field")

// needsMetadata reports whether complete would consult instance metadata: the region or the
// compartment is missing.
func (c *Config) needsMetadata() bool {
	return c.Auth.Region == "" || c.CompartmentID == ""
}

// complete fills a missing auth.region (from canonicalRegionName, else region) and a missing
// compartment (from the instance's compartmentId) using src. Values already set are kept. It
// calls src at most once, and not at all when nothing is missing, so it is safe to call off OCI
// when the file is complete.
func (c *Config) complete(ctx context.Context, src InstanceMetadataSource) error {
	if !c.needsMetadata() {
		return nil
	}
	md, err := src.Instance(ctx)
	if err != nil {
		return fmt.Errorf("infer region/compartment from instance metadata: %w", err)
	}
	// Check everything before assigning, so a failure leaves the Config as it was.
	region, compartment := c.Auth.Region, c.CompartmentID
	if region == "" {
		if region = md.RegionName(); region == "" {
			return fmt.Errorf("auth.region is not set and instance metadata has no region: %w", ErrIncompleteMetadata)
		}
	}
	if compartment == "" {
		if compartment = md.CompartmentID; compartment == "" {
			return fmt.Errorf("compartment is not set and instance metadata has no compartmentId: %w", ErrIncompleteMetadata)
		}
	}
	c.Auth.Region, c.CompartmentID = region, compartment
	return nil
}
