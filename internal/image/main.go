// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Command image builds the oci-cloud-controller-manager container image without a container
// daemon or a registry: from scratch, a static binary, a CA bundle and a non-root user, written
// as an OCI image layout (a directory) and a tarball that `docker load`, `crane push` and
// `skopeo copy docker-archive:` accept. `make image` runs it; see README.md beside it.
//
// With -platform ARCH=BINARY, once per architecture (`make release`), it builds one such image
// per binary and an OCI image index of them, written as an OCI image layout only (a
// docker-archive tarball holds one platform).
//
// It is a module of its own so that go-containerregistry never enters the main module's go.mod.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func main() {
	var in Inputs
	var created int64
	var ref, layoutDir, tarPath, record string
	var platforms []Platform
	flag.StringVar(&in.Binary, "binary", "", "the static CCM binary (required, or -platform)")
	flag.StringVar(&in.CABundle, "ca-bundle", "/etc/ssl/certs/ca-certificates.crt", "PEM CA bundle to put at "+caPath)
	flag.Int64Var(&created, "created", 0, "image creation time and file times, in Unix seconds (SOURCE_DATE_EPOCH)")
	flag.StringVar(&in.Arch, "arch", "", "the binary's GOARCH (required with -binary)")
	flag.Func("platform", "ARCH=BINARY: build a multi-arch image index, one image per -platform (instead of -binary and -arch)", func(s string) error {
		p, err := parsePlatform(s)
		if err != nil {
			return err
		}
		platforms = append(platforms, p)
		return nil
	})
	flag.StringVar(&in.Version, "version", "", "version label")
	flag.StringVar(&in.Source, "source", "https://github.com/oci-ccm/oci-ccm", "source label")
	flag.StringVar(&ref, "ref", "", "the image's name, e.g. ghcr.io/oci-ccm/oci-cloud-controller-manager:v1.2.3 (required)")
	flag.StringVar(&layoutDir, "layout", "", "write an OCI image layout to this directory (replaced)")
	flag.StringVar(&tarPath, "tarball", "", "write a docker-archive tarball to this file")
	flag.StringVar(&record, "record", "", "write the inputs and the digest as JSON to this file (for the image test)")
	flag.Parse()
	in.Created = time.Unix(created, 0)

	var digest v1.Hash
	var err error
	if len(platforms) > 0 {
		digest, platforms, err = runIndex(in, platforms, ref, layoutDir, tarPath)
	} else {
		digest, err = run(in, ref, layoutDir, tarPath)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
	if record != "" {
		r := Record{Inputs: in, Ref: ref, Layout: layoutDir, Tarball: tarPath, Digest: digest.String(), Platforms: platforms}
		if err := writeRecord(record, r); err != nil {
			fmt.Fprintln(os.Stderr, "image:", err)
			os.Exit(1)
		}
	}
	fmt.Printf("%s@%s\n", ref, digest)
}

// Record is what a build was made of and what it gave: the image test rebuilds from it and
// expects the same digest.
type Record struct {
	Inputs
	Ref     string
	Layout  string
	Tarball string
	// Digest is the image's manifest digest, or the index's for a multi-arch build.
	Digest string
	// Platforms are a multi-arch build's images (Inputs.Binary and Arch are then empty).
	Platforms []Platform `json:",omitempty"`
}

func writeRecord(path string, r Record) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// run builds the image and writes it where asked; it returns the manifest digest.
func run(in Inputs, ref, layoutDir, tarPath string) (v1.Hash, error) {
	if in.Binary == "" || ref == "" || (layoutDir == "" && tarPath == "") {
		return v1.Hash{}, fmt.Errorf("-binary, -ref and one of -layout or -tarball are required")
	}
	tag, err := parseRef(ref)
	if err != nil {
		return v1.Hash{}, err
	}
	img, err := Build(in)
	if err != nil {
		return v1.Hash{}, err
	}
	if layoutDir != "" {
		if err := writeLayout(layoutDir, tag, func(p layout.Path, o layout.Option) error { return p.AppendImage(img, o) }); err != nil {
			return v1.Hash{}, err
		}
	}
	if tarPath != "" {
		if err := tarball.WriteToFile(tarPath, tag, img); err != nil {
			return v1.Hash{}, fmt.Errorf("write %s: %w", tarPath, err)
		}
	}
	return img.Digest()
}

// runIndex builds the multi-arch image of platforms (see BuildIndex) and writes it as an OCI
// image layout; it returns the index's digest and the platforms with their images' digests.
func runIndex(in Inputs, platforms []Platform, ref, layoutDir, tarPath string) (v1.Hash, []Platform, error) {
	if in.Binary != "" || in.Arch != "" {
		return v1.Hash{}, nil, fmt.Errorf("-platform builds an image per architecture: give no -binary or -arch")
	}
	if ref == "" || layoutDir == "" || tarPath != "" {
		return v1.Hash{}, nil, fmt.Errorf("-platform needs -ref and -layout, and takes no -tarball (a docker-archive holds one platform)")
	}
	tag, err := parseRef(ref)
	if err != nil {
		return v1.Hash{}, nil, err
	}
	idx, platforms, err := BuildIndex(in, platforms)
	if err != nil {
		return v1.Hash{}, nil, err
	}
	if err := writeLayout(layoutDir, tag, func(p layout.Path, o layout.Option) error { return p.AppendIndex(idx, o) }); err != nil {
		return v1.Hash{}, nil, err
	}
	digest, err := idx.Digest()
	return digest, platforms, err
}

func parseRef(ref string) (name.Tag, error) {
	tag, err := name.NewTag(ref, name.StrictValidation)
	if err != nil {
		return name.Tag{}, fmt.Errorf("-ref %q: %w", ref, err)
	}
	return tag, nil
}

// writeLayout replaces dir with an OCI image layout holding one image or image index, which
// add appends with the option given: the index entry's annotations name it (what `skopeo copy
// oci:DIR:TAG` and crane look for).
func writeLayout(dir string, tag name.Tag, add func(layout.Path, layout.Option) error) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("write layout %s: %w", dir, err)
	}
	err = add(p, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": tag.TagStr(),
		"io.containerd.image.name":          tag.Name(),
	}))
	if err != nil {
		return fmt.Errorf("write layout %s: %w", dir, err)
	}
	return nil
}
