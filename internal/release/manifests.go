// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// exampleImage is the image name examples/deploy's manifests use, followed by a tag there.
const exampleImage = "ghcr.io/oci-ccm/oci-cloud-controller-manager"

// exampleRef matches exampleImage with its tag (up to a space, quote, comma or backquote), in
// the image field and in comments alike.
var exampleRef = regexp.MustCompile(regexp.QuoteMeta(exampleImage) + ":[^\\s\"',`]+")

// imageField matches a container's image field.
var imageField = regexp.MustCompile(`(?m)^\s*(- )?image:\s`)

// RenderManifests copies the manifests named from srcDir to outDir with every mention of the
// example image and its tag replaced by pinned (name:version@sha256:...). Every manifest that
// has an image field must name the example image there, so that none keeps running another
// image unnoticed.
func RenderManifests(srcDir, outDir, pinned string, names ...string) error {
	for _, name := range names {
		src := filepath.Join(srcDir, name)
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		out := exampleRef.ReplaceAllLiteralString(string(data), pinned)
		if fields, pinnedFields := len(imageField.FindAllString(out, -1)), strings.Count(out, "image: "+pinned); fields != pinnedFields {
			return fmt.Errorf("%s: %d image fields, %d of them name %s:<tag>", src, fields, pinnedFields, exampleImage)
		}
		if err := os.WriteFile(filepath.Join(outDir, name), []byte(out), 0o644); err != nil {
			return err
		}
	}
	return nil
}
