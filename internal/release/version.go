// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// ErrVersion is returned for a VERSION that is not a release version.
var ErrVersion = errors.New("not a release version")

// releaseVersion is a semantic version (semver.org 2.0.0) with a leading "v" and without build
// metadata: numbers without leading zeros; pre-release identifiers that are alphanumeric (with
// hyphens) or numbers without leading zeros. "+" is left out because an image tag cannot
// carry it.
var releaseVersion = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)` +
	`(-(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(\.(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*)?$`)

// CheckVersion returns nil for a release version vMAJOR.MINOR.PATCH[-PRERELEASE], and otherwise
// an error saying what is allowed.
func CheckVersion(v string) error {
	if releaseVersion.MatchString(v) {
		return nil
	}
	return fmt.Errorf("VERSION %q is %w: want a semantic version tag vMAJOR.MINOR.PATCH with an "+
		"optional pre-release, such as v1.2.3 or v1.2.3-rc.1 (numbers without leading zeros, "+
		"no build metadata \"+...\")", v, ErrVersion)
}

// chartVersion is the chart's version for release version v: the same without its "v", as
// Helm's charts are versioned.
func chartVersion(v string) string { return strings.TrimPrefix(v, "v") }
