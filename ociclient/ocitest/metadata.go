// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/oracle/oci-go-sdk/v65/core"
)

// metadataStore holds the emulated instance metadata service state. Guarded by Server.mu.
type metadataStore struct {
	self string // OCID of the instance the metadata service describes
}

func newMetadataStore() *metadataStore { return &metadataStore{} }

// The metadata service is not an OCI API: it takes a fixed bearer token instead of a signature,
// and these operation names are ocitest's own.
func (s *Server) registerMetadata() {
	s.handleAuth("GetInstanceMetadata", ClassRead, authBearerOracle, "GET /opc/v2/instance/{$}", s.getInstanceMetadata)
	s.handleAuth("GetInstanceMetadata", ClassRead, authBearerOracle, "GET /opc/v2/instance/{field...}", s.getInstanceMetadata)
	s.handleAuth("ListInstanceMetadataVnics", ClassRead, authBearerOracle, "GET /opc/v2/vnics/{$}", s.listInstanceMetadataVnics)
}

// SetSelf makes the metadata service (GET /opc/v2/instance/) describe an instance, as if the
// caller ran on it. It reports whether the instance exists.
func (s *Server) SetSelf(instanceID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.compute.instances.get(instanceID); !ok {
		return false
	}
	s.meta.self = instanceID
	return true
}

// instanceMetadata is the document GET /opc/v2/instance/ serves.
type instanceMetadata struct {
	ID                  string                            `json:"id"`
	DisplayName         string                            `json:"displayName"`
	Hostname            string                            `json:"hostname"`
	CompartmentID       string                            `json:"compartmentId"`
	AvailabilityDomain  string                            `json:"availabilityDomain"`
	FaultDomain         string                            `json:"faultDomain"`
	Region              string                            `json:"region"`
	CanonicalRegionName string                            `json:"canonicalRegionName"`
	Shape               string                            `json:"shape"`
	State               string                            `json:"state"`
	TimeCreated         int64                             `json:"timeCreated"`
	FreeformTags        map[string]string                 `json:"freeformTags,omitempty"`
	DefinedTags         map[string]map[string]interface{} `json:"definedTags,omitempty"`
	RegionInfo          regionInfo                        `json:"regionInfo"`
}

type regionInfo struct {
	RealmKey             string `json:"realmKey"`
	RealmDomainComponent string `json:"realmDomainComponent"`
	RegionKey            string `json:"regionKey"`
	RegionIdentifier     string `json:"regionIdentifier"`
}

// metadataVnic is one entry of GET /opc/v2/vnics/.
type metadataVnic struct {
	VnicID          string `json:"vnicId"`
	PrivateIP       string `json:"privateIp"`
	VlanTag         int    `json:"vlanTag"`
	MacAddr         string `json:"macAddr"`
	VirtualRouterIP string `json:"virtualRouterIp"`
	SubnetCidrBlock string `json:"subnetCidrBlock"`
	NicIndex        int    `json:"nicIndex"`
}

func (s *Server) getInstanceMetadata(w http.ResponseWriter, r *http.Request) {
	var inst core.Instance
	var hostname string
	ok := underLock(s, func() (ok bool) {
		if inst, ok = s.compute.instances.get(s.meta.self); ok {
			hostname = s.hostnameLocked(inst)
		}
		return ok
	})
	if !ok {
		writeError(w, r, http.StatusNotFound, "NotFound", "ocitest: no instance is marked as self (SetSelf)")
		return
	}
	doc := instanceMetadata{
		ID:                  deref(inst.Id),
		DisplayName:         deref(inst.DisplayName),
		Hostname:            hostname,
		CompartmentID:       deref(inst.CompartmentId),
		AvailabilityDomain:  deref(inst.AvailabilityDomain),
		FaultDomain:         deref(inst.FaultDomain),
		Region:              shortRegion(s.opts.Region),
		CanonicalRegionName: s.opts.Region,
		Shape:               deref(inst.Shape),
		State:               string(inst.LifecycleState),
		FreeformTags:        inst.FreeformTags,
		DefinedTags:         inst.DefinedTags,
		RegionInfo: regionInfo{
			RealmKey: "oc1", RealmDomainComponent: "oraclecloud.com",
			RegionKey: regionKey(s.opts.Region), RegionIdentifier: s.opts.Region,
		},
	}
	if inst.TimeCreated != nil {
		doc.TimeCreated = inst.TimeCreated.UnixMilli()
	}
	field := strings.Trim(r.PathValue("field"), "/")
	if field == "" {
		writeJSON(w, r, http.StatusOK, doc)
		return
	}
	// A leaf, e.g. /opc/v2/instance/region or /opc/v2/instance/regionInfo/regionKey: strings
	// come back as plain text, objects as JSON, as the real service answers.
	var v any // the document as generic JSON, to walk by field name
	b, _ := json.Marshal(doc)
	_ = json.Unmarshal(b, &v)
	for _, part := range strings.Split(field, "/") {
		m, isObj := v.(map[string]any)
		if !isObj {
			v = nil
			break
		}
		v = m[part]
	}
	switch leaf := v.(type) {
	case nil:
		writeError(w, r, http.StatusNotFound, "NotFound", "no metadata field "+field)
	case string:
		setCommonHeaders(w, r)
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte(leaf))
	default:
		writeJSON(w, r, http.StatusOK, leaf)
	}
}

func (s *Server) listInstanceMetadataVnics(w http.ResponseWriter, r *http.Request) {
	var ok bool
	out := underLock(s, func() (out []metadataVnic) {
		if _, ok = s.compute.instances.get(s.meta.self); !ok {
			return nil
		}
		for _, att := range s.compute.attachments.filter(func(a core.VnicAttachment) bool { return deref(a.InstanceId) == s.meta.self }) {
			vnic, found := s.vcn.vnics.get(deref(att.VnicId))
			if !found {
				continue
			}
			sub, _ := s.vcn.subnets.get(deref(vnic.SubnetId))
			out = append(out, metadataVnic{
				VnicID: deref(vnic.Id), PrivateIP: deref(vnic.PrivateIp), MacAddr: deref(vnic.MacAddress),
				VirtualRouterIP: deref(sub.VirtualRouterIp), SubnetCidrBlock: deref(sub.CidrBlock),
				NicIndex: deref(att.NicIndex), VlanTag: deref(att.VlanTag),
			})
		}
		return out
	})
	if !ok {
		writeError(w, r, http.StatusNotFound, "NotFound", "ocitest: no instance is marked as self (SetSelf)")
		return
	}
	writeJSON(w, r, http.StatusOK, out)
}

// regionKey is the region's three-letter key (OCI's published table, for common regions), or
// the upper-cased name for regions not listed.
func regionKey(region string) string {
	switch region {
	case "us-phoenix-1":
		return "PHX"
	case "us-ashburn-1":
		return "IAD"
	case "us-sanjose-1":
		return "SJC"
	case "us-chicago-1":
		return "ORD"
	case "ca-toronto-1":
		return "YYZ"
	case "ca-montreal-1":
		return "YUL"
	case "eu-frankfurt-1":
		return "FRA"
	case "eu-amsterdam-1":
		return "AMS"
	case "eu-zurich-1":
		return "ZRH"
	case "eu-paris-1":
		return "CDG"
	case "uk-london-1":
		return "LHR"
	case "ap-tokyo-1":
		return "NRT"
	case "ap-osaka-1":
		return "KIX"
	case "ap-seoul-1":
		return "ICN"
	case "ap-sydney-1":
		return "SYD"
	case "ap-mumbai-1":
		return "BOM"
	case "ap-singapore-1":
		return "SIN"
	case "sa-saopaulo-1":
		return "GRU"
	default:
		return strings.ToUpper(region)
	}
}

// shortRegion is the region as Instance.region and the metadata "region" field give it: the
// lower-case key for Phoenix and Ashburn, the full name elsewhere, as OCI documents.
func shortRegion(region string) string {
	if region == "us-phoenix-1" || region == "us-ashburn-1" {
		return strings.ToLower(regionKey(region))
	}
	return region
}
