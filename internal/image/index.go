// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"fmt"
	"slices"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// Platform is one architecture of a multi-arch image (make release): the static binary built
// for it and, once built, the digest of its image.
type Platform struct {
	// Arch is the binary's GOARCH (the OS is always linux).
	Arch string
	// Binary is the path of the binary.
	Binary string
	// Digest is the image's manifest digest, set by BuildIndex.
	Digest string `json:",omitempty"`
}

// parsePlatform reads the -platform flag's ARCH=BINARY.
func parsePlatform(s string) (Platform, error) {
	arch, bin, ok := strings.Cut(s, "=")
	if !ok || arch == "" || bin == "" {
		return Platform{}, fmt.Errorf("-platform %q: want ARCH=BINARY, such as arm64=bin/linux-arm64/oci-cloud-controller-manager", s)
	}
	return Platform{Arch: arch, Binary: bin}, nil
}

// BuildIndex builds one image per platform with Build, from in with the platform's binary and
// architecture, and an OCI image index of them whose entries name their platform (linux/ARCH).
// The entries are in the order of the architectures' names, so the order of the platforms
// given does not change the digest. It returns the platforms with their images' digests.
func BuildIndex(in Inputs, platforms []Platform) (v1.ImageIndex, []Platform, error) {
	if len(platforms) == 0 {
		return nil, nil, fmt.Errorf("no platform to build")
	}
	platforms = slices.Clone(platforms)
	slices.SortFunc(platforms, func(a, b Platform) int { return strings.Compare(a.Arch, b.Arch) })
	var adds []mutate.IndexAddendum
	for i, p := range platforms {
		if i > 0 && platforms[i-1].Arch == p.Arch {
			return nil, nil, fmt.Errorf("architecture %s given twice", p.Arch)
		}
		pin := in
		pin.Binary, pin.Arch = p.Binary, p.Arch
		img, err := Build(pin)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", p.Arch, err)
		}
		digest, err := img.Digest()
		if err != nil {
			return nil, nil, err
		}
		platforms[i].Digest = digest.String()
		adds = append(adds, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: p.Arch}},
		})
	}
	return mutate.AppendManifests(empty.Index, adds...), platforms, nil
}
