// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// envRecord names the record `make image` wrote (bin/image/record.json); `make image-test` sets it.
const envRecord = "OCI_CCM_IMAGE_RECORD"

// built reads the record of the image `make image` built. Without it the test fails (it never
// skips): an image that was not built is not a tested image.
func built(t *testing.T) Record {
	t.Helper()
	path := os.Getenv(envRecord)
	if path == "" {
		t.Fatalf("%s is not set; run `make image-test`, which builds the image and sets it", envRecord)
	}
	return readRecord(t, path)
}

// readRecord reads a Record the image command wrote.
func readRecord(t *testing.T, path string) Record {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r
}

// imageFromLayout returns the image in the layout whose index entry carries tag.
func imageFromLayout(t *testing.T, dir, tag string) v1.Image {
	t.Helper()
	idx, d := tagged(t, dir, tag)
	img, err := idx.Image(d.Digest)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// tagged returns the layout's index and its entry that carries tag.
func tagged(t *testing.T, dir, tag string) (v1.ImageIndex, v1.Descriptor) {
	t.Helper()
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range m.Manifests {
		if d.Annotations["org.opencontainers.image.ref.name"] == tag {
			return idx, d
		}
	}
	t.Fatalf("layout %s has no entry tagged %q: %+v", dir, tag, m.Manifests)
	return nil, v1.Descriptor{}
}

// entry is a file of the image's flattened filesystem as the test compares it.
type entry struct {
	Name     string
	Type     byte
	Mode     int64
	UID, GID int
}

// TestImageRunsTheBinaryAsNonRootWithoutAShell unpacks the image `make image` wrote as an OCI
// layout and checks what a container runtime would see: the config, the exact file list (no
// shell, nothing else), every file time fixed, and the binary answering --version and --help.
func TestImageRunsTheBinaryAsNonRootWithoutAShell(t *testing.T) {
	r := built(t)
	tag := r.Ref[strings.LastIndex(r.Ref, ":")+1:]
	img := imageFromLayout(t, r.Layout, tag)

	digest, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if digest.String() != r.Digest {
		t.Errorf("layout holds %s, the build reported %s", digest, r.Digest)
	}

	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(v1.Config{
		User:       "65532:65532",
		Entrypoint: []string{"/oci-cloud-controller-manager"},
		WorkingDir: "/",
		Env:        []string{"SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"},
		Labels: map[string]string{
			"org.opencontainers.image.title":    "oci-cloud-controller-manager",
			"org.opencontainers.image.version":  r.Version,
			"org.opencontainers.image.source":   r.Source,
			"org.opencontainers.image.licenses": "Apache-2.0",
		},
	}, cf.Config); diff != "" {
		t.Errorf("image config (-want +got):\n%s", diff)
	}
	if cf.OS != "linux" || cf.Architecture != r.Arch || !cf.Created.Time.Equal(r.Created) {
		t.Errorf("platform %s/%s created %v, want linux/%s created %v", cf.OS, cf.Architecture, cf.Created, r.Arch, r.Created)
	}

	root := t.TempDir()
	got := extract(t, img, root, r.Created)
	// Extract walks the layers top down and cleans names; the layers' own order is covered by
	// the digest comparison in TestRebuildGivesTheSameDigest.
	slices.SortFunc(got, func(a, b entry) int { return strings.Compare(a.Name, b.Name) })
	want := []entry{
		{"etc", tar.TypeDir, 0o755, 0, 0},
		{"etc/group", tar.TypeReg, 0o644, 0, 0},
		{"etc/passwd", tar.TypeReg, 0o644, 0, 0},
		{"etc/ssl", tar.TypeDir, 0o755, 0, 0},
		{"etc/ssl/certs", tar.TypeDir, 0o755, 0, 0},
		{"etc/ssl/certs/ca-certificates.crt", tar.TypeReg, 0o644, 0, 0},
		{"home", tar.TypeDir, 0o755, 0, 0},
		{"home/nonroot", tar.TypeDir, 0o700, 65532, 65532},
		{"oci-cloud-controller-manager", tar.TypeReg, 0o755, 0, 0},
		{"tmp", tar.TypeDir, 0o1777, 0, 0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("image filesystem (-want +got):\n%s", diff)
	}
	passwd, err := os.ReadFile(filepath.Join(root, "etc", "passwd"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(passwd), "nonroot:x:65532:65532:") {
		t.Errorf("/etc/passwd has no nonroot user 65532:\n%s", passwd)
	}
	ca, err := os.ReadFile(filepath.Join(root, "etc", "ssl", "certs", "ca-certificates.crt"))
	if err != nil {
		t.Fatal(err)
	}
	if wantCA, err := os.ReadFile(r.CABundle); err != nil || string(ca) != string(wantCA) {
		t.Errorf("the image's CA bundle is not %s (read error: %v)", r.CABundle, err)
	}

	bin := filepath.Join(root, "oci-cloud-controller-manager")
	for _, c := range []struct {
		arg, want string
	}{
		{"--version", r.Version},
		{"--help", "--cloud-provider"},
	} {
		out, err := exec.CommandContext(t.Context(), bin, c.arg).CombinedOutput()
		if err != nil {
			t.Errorf("%s %s: %v\n%s", bin, c.arg, err, out)
			continue
		}
		if !strings.Contains(string(out), c.want) {
			t.Errorf("%s %s does not print %q:\n%.2000s", bin, c.arg, c.want, out)
		}
	}
}

// commandFlag matches a flag of a container command in a manifest: "  - --name=value" or
// "  - --name".
var commandFlag = regexp.MustCompile(`(?m)^\s+- (--[a-z0-9-]+)(=|$)`)

// TestManifestsPassOnlyFlagsTheBinaryKnows: every flag that examples/deploy/daemonset.yaml and
// the chart (as rendered in its golden files, webhook included) put on the command line is one
// the image's binary lists in --help. A renamed or missing flag would stop the pod at start.
func TestManifestsPassOnlyFlagsTheBinaryKnows(t *testing.T) {
	r := built(t)
	img := imageFromLayout(t, r.Layout, r.Ref[strings.LastIndex(r.Ref, ":")+1:])
	root := t.TempDir()
	extract(t, img, root, r.Created)
	help, err := exec.CommandContext(t.Context(), filepath.Join(root, "oci-cloud-controller-manager"), "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("--help: %v\n%s", err, help)
	}
	manifests, err := filepath.Glob("../../examples/helm/test/testdata/*.golden.yaml")
	if err != nil || len(manifests) == 0 {
		t.Fatalf("no chart golden files found (%v)", err)
	}
	manifests = append(manifests, "../../examples/deploy/daemonset.yaml")
	checked := 0
	for _, m := range manifests {
		data, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, match := range commandFlag.FindAllStringSubmatch(string(data), -1) {
			checked++
			flag := match[1]
			if !strings.Contains(string(help), flag+" ") && !strings.Contains(string(help), flag+"\n") {
				t.Errorf("%s passes %s, which the binary's --help does not list", m, flag)
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d flags found in %v; the pattern no longer matches the manifests", checked, manifests)
	}
}

// extract writes the image's flattened filesystem under root and returns its entries in order,
// failing on any entry whose time is not created.
func extract(t *testing.T, img v1.Image, root string, created time.Time) []entry {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	var out []entry
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, entry{h.Name, h.Typeflag, h.Mode, h.Uid, h.Gid})
		if !h.ModTime.Equal(created) {
			t.Errorf("%s: time %v, want the fixed %v", h.Name, h.ModTime, created)
		}
		dst := filepath.Join(root, filepath.FromSlash(h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(dst, 0o755); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode).Perm())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(f, tr); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
		default:
			t.Errorf("%s: unexpected entry type %q", h.Name, h.Typeflag)
		}
	}
	return out
}

// TestRebuildGivesTheSameDigest builds the image again from the same binary and CA bundle,
// copied with other file times and modes (a fresh checkout's), and expects the digest and the
// tarball bytes `make image` produced.
func TestRebuildGivesTheSameDigest(t *testing.T) {
	r := built(t)
	dir := t.TempDir()
	in := r.Inputs
	in.Binary = copyFile(t, r.Binary, filepath.Join(dir, "bin"), 0o700)
	in.CABundle = copyFile(t, r.CABundle, filepath.Join(dir, "ca.crt"), 0o600)

	tarPath := filepath.Join(dir, "image.tar")
	digest, err := run(in, r.Ref, filepath.Join(dir, "layout"), tarPath)
	if err != nil {
		t.Fatal(err)
	}
	if digest.String() != r.Digest {
		t.Errorf("rebuild digest %s, `make image` built %s", digest, r.Digest)
	}
	if r.Tarball != "" {
		if got, want := fileSHA(t, tarPath), fileSHA(t, r.Tarball); got != want {
			t.Errorf("rebuilt tarball sha256 %s, `make image` wrote %s", got, want)
		}
	}
	sameLayoutFiles(t, r.Layout, filepath.Join(dir, "layout"), "make image")

	// A different creation time is a different input: the digest must follow it, or the
	// comparison above proves nothing.
	in.Created = in.Created.Add(time.Second)
	other, err := run(in, r.Ref, filepath.Join(dir, "layout2"), "")
	if err != nil {
		t.Fatal(err)
	}
	if other.String() == r.Digest {
		t.Errorf("a build one second later has the same digest %s", other)
	}
}

// sameLayoutFiles compares the index.json and oci-layout of a rebuilt layout with those built
// by what (make image, make release).
func sameLayoutFiles(t *testing.T, built, rebuilt, what string) {
	t.Helper()
	for _, f := range []string{"index.json", "oci-layout"} {
		got, err1 := os.ReadFile(filepath.Join(rebuilt, f))
		want, err2 := os.ReadFile(filepath.Join(built, f))
		if err := errors.Join(err1, err2); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("layout %s differs (-%s +rebuild):\n%s", f, what, diff)
		}
	}
}

// copyFile copies src to dst with mode and a file time an hour from now.
func copyFile(t *testing.T, src, dst string, mode os.FileMode) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, mode); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(dst, later, later); err != nil {
		t.Fatal(err)
	}
	return dst
}

func fileSHA(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(fmt.Errorf("%s: %w", path, err))
	}
	return hex.EncodeToString(h.Sum(nil))
}
