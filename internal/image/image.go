// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const (
	// binaryPath is where the CCM binary lives in the image; examples/deploy and the chart run it
	// by this path.
	binaryPath = "/oci-cloud-controller-manager"
	// caPath is the file Go's crypto/x509 reads first on Linux (and Debian's location).
	caPath = "/etc/ssl/certs/ca-certificates.crt"
	// nonrootID is the user and group the image runs as (distroless's "nonroot" number, so
	// PodSecurity "restricted" and runAsNonRoot accept it without a runAsUser).
	nonrootID = 65532
)

// Inputs is everything the image is made of. Equal Inputs give byte-identical images: no clock,
// no file modes, owners or times of the build machine reach the image.
type Inputs struct {
	// Binary is the path of the static CCM binary (CGO_ENABLED=0).
	Binary string
	// CABundle is the path of a PEM bundle of CA certificates for the OCI API's TLS.
	CABundle string
	// Created stamps the image config and every file in the layers.
	Created time.Time
	// Arch is the binary's GOARCH.
	Arch string
	// Version labels the image (org.opencontainers.image.version).
	Version string
	// Source labels the image (org.opencontainers.image.source).
	Source string
}

// file is one entry of a layer.
type file struct {
	name     string // absolute path in the image
	mode     int64  // permission bits (with tar's type taken from dir)
	dir      bool
	uid, gid int
	data     []byte
}

// Build assembles the image from scratch: one layer with the files every process needs
// (/etc/passwd, /etc/group, the CA bundle, /tmp, the user's home), one with the binary, so a new
// binary reuses the first layer. There is no shell and no package manager.
func Build(in Inputs) (v1.Image, error) {
	bin, err := os.ReadFile(in.Binary)
	if err != nil {
		return nil, fmt.Errorf("read the binary: %w", err)
	}
	ca, err := os.ReadFile(in.CABundle)
	if err != nil {
		return nil, fmt.Errorf("read the CA bundle: %w", err)
	}
	if !bytes.Contains(ca, []byte("-----BEGIN CERTIFICATE-----")) {
		return nil, fmt.Errorf("CA bundle %s holds no PEM certificate", in.CABundle)
	}
	if in.Arch == "" {
		return nil, fmt.Errorf("the binary's architecture (GOARCH) is required")
	}
	created := in.Created.UTC()

	base, err := layer(created, []file{
		{name: "/etc", mode: 0o755, dir: true},
		{name: "/etc/group", mode: 0o644, data: []byte("root:x:0:\nnonroot:x:65532:\n")},
		{name: "/etc/passwd", mode: 0o644, data: []byte(
			"root:x:0:0:root:/root:/sbin/nologin\n" +
				"nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")},
		{name: "/etc/ssl", mode: 0o755, dir: true},
		{name: "/etc/ssl/certs", mode: 0o755, dir: true},
		{name: caPath, mode: 0o644, data: ca},
		{name: "/home", mode: 0o755, dir: true},
		{name: "/home/nonroot", mode: 0o700, dir: true, uid: nonrootID, gid: nonrootID},
		{name: "/tmp", mode: 0o1777, dir: true},
	})
	if err != nil {
		return nil, err
	}
	binLayer, err := layer(created, []file{{name: binaryPath, mode: 0o755, data: bin}})
	if err != nil {
		return nil, err
	}

	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.AppendLayers(img, base, binLayer)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Created = v1.Time{Time: created}
	cf.Author = "oci-ccm"
	cf.OS = "linux"
	cf.Architecture = in.Arch
	cf.History = nil // AppendLayers adds entries with the clock's time
	cf.Config = v1.Config{
		User:       fmt.Sprintf("%d:%d", nonrootID, nonrootID),
		Entrypoint: []string{binaryPath},
		WorkingDir: "/",
		Env:        []string{"SSL_CERT_FILE=" + caPath},
		Labels: map[string]string{
			"org.opencontainers.image.title":    "oci-cloud-controller-manager",
			"org.opencontainers.image.version":  in.Version,
			"org.opencontainers.image.source":   in.Source,
			"org.opencontainers.image.licenses": "Apache-2.0",
		},
	}
	return mutate.ConfigFile(img, cf)
}

// layer writes files (parents first: the order is by path) as one gzip layer, with every time
// set to created and owners numeric only, so equal files give an equal digest.
func layer(created time.Time, files []file) (v1.Layer, error) {
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		h := &tar.Header{
			Name:    path.Clean(f.name)[1:], // relative, as image layers carry them
			Mode:    f.mode,
			Uid:     f.uid,
			Gid:     f.gid,
			ModTime: created,
			Format:  tar.FormatPAX,
		}
		if f.dir {
			h.Typeflag = tar.TypeDir
			h.Name += "/"
		} else {
			h.Typeflag = tar.TypeReg
			h.Size = int64(len(f.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("layer entry %s: %w", f.name, err)
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, fmt.Errorf("layer entry %s: %w", f.name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithMediaType(types.OCILayer), tarball.WithCompressedCaching)
}
