// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"bufio"
	"bytes"
	"debug/elf"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// What `make release-test` built: the multi-arch image's record (bin/release-work/image.json)
// and the release directory (bin/release). The TestRelease tests fail without them, as the
// image tests do; `make image-test` leaves them out (-skip '^TestRelease').
const (
	envReleaseRecord = "OCI_CCM_RELEASE_RECORD"
	envReleaseDir    = "OCI_CCM_RELEASE_DIR"
)

// released reads the record of the multi-arch image `make release` built, and the release
// directory.
func released(t *testing.T) (Record, string) {
	t.Helper()
	path, dir := os.Getenv(envReleaseRecord), os.Getenv(envReleaseDir)
	if path == "" || dir == "" {
		t.Fatalf("%s and %s are not set; run `make release-test`, which releases and sets them", envReleaseRecord, envReleaseDir)
	}
	r := readRecord(t, path)
	if len(r.Platforms) == 0 {
		t.Fatalf("%s records no platforms: not a multi-arch build", path)
	}
	return r, dir
}

// releasePlatforms are the platforms a release holds, in the index's order.
var releasePlatforms = []v1.Platform{{OS: "linux", Architecture: "amd64"}, {OS: "linux", Architecture: "arm64"}}

// elfMachines is the ELF machine of each release architecture's binary.
var elfMachines = map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}

// TestReleaseIndexListsExactlyLinuxAmd64AndArm64: the layout holds one entry, the image index,
// named by the release's tag; the index lists one image per platform, each image's config
// saying the same platform and version.
func TestReleaseIndexListsExactlyLinuxAmd64AndArm64(t *testing.T) {
	r, _ := released(t)
	tag := r.Ref[strings.LastIndex(r.Ref, ":")+1:]
	if tag != r.Version {
		t.Errorf("tag %q, want the version %q", tag, r.Version)
	}
	top, d := tagged(t, r.Layout, tag)
	if m, err := top.IndexManifest(); err != nil {
		t.Fatal(err)
	} else if len(m.Manifests) != 1 {
		t.Fatalf("the layout's index.json holds %d entries, want the image index alone", len(m.Manifests))
	}
	if d.MediaType != types.OCIImageIndex || d.Digest.String() != r.Digest || d.Annotations["io.containerd.image.name"] != r.Ref {
		t.Errorf("layout entry %s %s named %q, want %s %s named %q", d.MediaType, d.Digest, d.Annotations["io.containerd.image.name"],
			types.OCIImageIndex, r.Digest, r.Ref)
	}
	idx, err := top.ImageIndex(d.Digest)
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	var platforms []v1.Platform
	for i, e := range m.Manifests {
		if e.Platform == nil {
			t.Fatalf("index entry %d (%s) names no platform", i, e.Digest)
		}
		platforms = append(platforms, *e.Platform)
		if e.MediaType != types.OCIManifestSchema1 {
			t.Errorf("%s: media type %s, want %s", e.Platform, e.MediaType, types.OCIManifestSchema1)
		}
		img, err := idx.Image(e.Digest)
		if err != nil {
			t.Fatal(err)
		}
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		if cf.OS != e.Platform.OS || cf.Architecture != e.Platform.Architecture || cf.Config.Labels["org.opencontainers.image.version"] != r.Version {
			t.Errorf("%s: config says %s/%s version %q", e.Platform, cf.OS, cf.Architecture, cf.Config.Labels["org.opencontainers.image.version"])
		}
		if i < len(r.Platforms) && (r.Platforms[i].Arch != e.Platform.Architecture || r.Platforms[i].Digest != e.Digest.String()) {
			t.Errorf("index entry %d is %s %s, the build recorded %+v", i, e.Platform, e.Digest, r.Platforms[i])
		}
	}
	if diff := cmp.Diff(releasePlatforms, platforms); diff != "" {
		t.Errorf("index platforms (-want +got):\n%s", diff)
	}
}

// TestReleaseBinariesAreBuiltForTheirPlatform: each image's binary is a static ELF for its
// architecture (x86-64, AArch64), the one recorded; the host's runs and prints the version.
func TestReleaseBinariesAreBuiltForTheirPlatform(t *testing.T) {
	r, _ := released(t)
	top, d := tagged(t, r.Layout, r.Version)
	idx, err := top.ImageIndex(d.Digest)
	if err != nil {
		t.Fatal(err)
	}
	ran := false
	for _, p := range r.Platforms {
		img, err := idx.Image(v1.Hash{Algorithm: "sha256", Hex: strings.TrimPrefix(p.Digest, "sha256:")})
		if err != nil {
			t.Fatalf("%s: %v", p.Arch, err)
		}
		root := t.TempDir()
		extract(t, img, root, r.Created)
		bin := filepath.Join(root, "oci-cloud-controller-manager")
		f, err := elf.Open(bin)
		if err != nil {
			t.Fatalf("%s: %v", p.Arch, err)
		}
		want, ok := elfMachines[p.Arch]
		if !ok || f.Machine != want || f.Class != elf.ELFCLASS64 {
			t.Errorf("%s: the binary is a %s %s ELF, want %s", p.Arch, f.Class, f.Machine, want)
		}
		for _, prog := range f.Progs {
			if prog.Type == elf.PT_INTERP {
				t.Errorf("%s: the binary asks for a dynamic loader; want it static (CGO_ENABLED=0)", p.Arch)
			}
		}
		f.Close()
		if got, want := fileSHA(t, bin), fileSHA(t, p.Binary); got != want {
			t.Errorf("%s: the image's binary is not %s", p.Arch, p.Binary)
		}
		if p.Arch == runtime.GOARCH {
			ran = true
			out, err := exec.CommandContext(t.Context(), bin, "--version").CombinedOutput()
			if err != nil || !strings.Contains(string(out), r.Version) {
				t.Errorf("%s --version: %v: %s, want %s", p.Arch, err, out, r.Version)
			}
		}
	}
	if !ran && elfMachines[runtime.GOARCH] != 0 {
		t.Errorf("no image for the host's %s", runtime.GOARCH)
	}
}

// TestReleaseRebuildGivesTheSameDigest builds the index again from the recorded binaries and CA
// bundle, copied with other file times and modes and given in the other order, and expects the
// digests and the layout's index.json `make release` wrote.
func TestReleaseRebuildGivesTheSameDigest(t *testing.T) {
	r, _ := released(t)
	dir := t.TempDir()
	in := r.Inputs
	in.CABundle = copyFile(t, r.CABundle, filepath.Join(dir, "ca.crt"), 0o600)
	var platforms []Platform
	for _, p := range slices.Backward(r.Platforms) {
		platforms = append(platforms, Platform{Arch: p.Arch, Binary: copyFile(t, p.Binary, filepath.Join(dir, p.Arch), 0o700)})
	}
	digest, got, err := runIndex(in, platforms, r.Ref, filepath.Join(dir, "layout"), "")
	if err != nil {
		t.Fatal(err)
	}
	if digest.String() != r.Digest {
		t.Errorf("rebuild digest %s, `make release` built %s", digest, r.Digest)
	}
	for i := range got {
		got[i].Binary = r.Platforms[i].Binary
	}
	if diff := cmp.Diff(r.Platforms, got); diff != "" {
		t.Errorf("rebuilt platforms (-make release +rebuild):\n%s", diff)
	}
	sameLayoutFiles(t, r.Layout, filepath.Join(dir, "layout"), "make release")
}

// imageLine matches a container's image field and captures its value.
var imageLine = regexp.MustCompile(`(?m)^\s*(?:- )?image:\s*(\S+)\s*$`)

// TestReleaseManifestsPinTheIndexDigest: the released daemonset runs the image by the index's
// digest (with the version's tag), and no released manifest names the image otherwise.
func TestReleaseManifestsPinTheIndexDigest(t *testing.T) {
	r, dir := released(t)
	repo := r.Ref[:strings.LastIndex(r.Ref, ":")]
	pinned := r.Ref + "@" + r.Digest
	daemonset, err := os.ReadFile(filepath.Join(dir, "daemonset.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	images := imageLine.FindAllStringSubmatch(string(daemonset), -1)
	if len(images) == 0 {
		t.Fatal("the released daemonset.yaml has no image field")
	}
	for _, m := range images {
		if m[1] != pinned {
			t.Errorf("daemonset.yaml runs %s, want %s", m[1], pinned)
		}
	}
	for _, name := range []string{"daemonset.yaml", "rbac.yaml"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if n, pins := strings.Count(string(data), repo), strings.Count(string(data), pinned); n != pins {
			t.Errorf("%s names %s %d times, pinned only %d times", name, repo, n, pins)
		}
	}
}

// TestReleaseChecksumsCoverEveryArtifact: SHA256SUMS lists every file of the release, the
// layout's blobs included, with its SHA-256; the artifacts are all there; the IAM policy is the
// one README.md shows.
func TestReleaseChecksumsCoverEveryArtifact(t *testing.T) {
	r, dir := released(t)
	sums, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{}
	for line := range strings.Lines(string(sums)) {
		sum, name, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "  ")
		if !ok || len(sum) != 64 {
			t.Fatalf("SHA256SUMS line %q is not \"<sha256>  <file>\"", line)
		}
		listed[name] = sum
	}
	var files []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if rel == "SHA256SUMS" || err != nil {
			return err
		}
		files = append(files, filepath.ToSlash(rel))
		if got := fileSHA(t, p); listed[filepath.ToSlash(rel)] != got {
			t.Errorf("%s: sha256 %s, SHA256SUMS says %q", rel, got, listed[filepath.ToSlash(rel)])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(listed) {
		t.Errorf("SHA256SUMS lists %d files, the release holds %d: %v", len(listed), len(files), files)
	}
	chart := "oci-ccm-" + strings.TrimPrefix(r.Version, "v") + ".tgz"
	for _, want := range []string{"daemonset.yaml", "rbac.yaml", "backendsetbinding-crd.yaml", chart, "iam-policy.txt", "image/index.json", "image/oci-layout",
		"image/blobs/sha256/" + strings.TrimPrefix(r.Digest, "sha256:")} {
		if _, ok := listed[want]; !ok {
			t.Errorf("SHA256SUMS does not list %s", want)
		}
	}

	policy, err := os.ReadFile(filepath.Join(dir, "iam-policy.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if want := readmePolicy(t); len(want) == 0 || string(policy) != strings.Join(want, "\n")+"\n" {
		t.Errorf("iam-policy.txt is not the tutorial's IAM policy %q:\n%s", want, policy)
	}
}

// readmePolicy returns the statements of the IAM policy the tutorial (ccm/docs/tutorial.md) shows,
// generated there from the one the tests prove.
func readmePolicy(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("../../ccm/docs/tutorial.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, _ := bytes.Cut(data, []byte("<!-- BEGIN GENERATED IAM POLICY"))
	block, _, _ = bytes.Cut(block, []byte("<!-- END GENERATED IAM POLICY"))
	var statements []string
	sc := bufio.NewScanner(bytes.NewReader(block))
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "Allow ") {
			statements = append(statements, line)
		}
	}
	return statements
}
