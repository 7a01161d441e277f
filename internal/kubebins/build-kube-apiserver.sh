#!/usr/bin/env bash
# Builds kube-apiserver from source (no prebuilt binaries can be downloaded
# here) and caches it per version, so only the first run pays for the build.
#
# Usage: internal/kubebins/build-kube-apiserver.sh
#
# Progress goes to stderr; the last line of stdout is the absolute path of a
# runnable kube-apiserver whose --version matches go.mod. Safe to run many
# times and from several processes at once: builders serialise on a lock and
# the binary appears in the cache only by an atomic rename, so a reader never
# runs a half-written file.
#
# Environment:
#   XDG_CACHE_HOME  cache root (default: $HOME/.cache)
#   GOCACHE, GOFLAGS, GOPROXY ...  honoured as usual by the go command
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
pkg="k8s.io/kubernetes/cmd/kube-apiserver"

log() { printf 'build-kube-apiserver: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

command -v go >/dev/null 2>&1 || die "the go command is not on PATH"
command -v flock >/dev/null 2>&1 || die "flock (util-linux) is not on PATH"

cd "$script_dir"

# The version comes from go.mod, so bumping k8s.io/kubernetes there also
# moves the cache key and forces a fresh build.
version="$(go list -m -f '{{.Version}}' k8s.io/kubernetes)" ||
	die "cannot read the k8s.io/kubernetes version from $script_dir/go.mod"
[[ "$version" =~ ^v([0-9]+)\.([0-9]+)\.[0-9]+$ ]] ||
	die "unexpected k8s.io/kubernetes version '$version' in go.mod"
major="${BASH_REMATCH[1]}"
minor="${BASH_REMATCH[2]}"

cache_root="${XDG_CACHE_HOME:-${HOME:?HOME is not set}/.cache}"
out_dir="$cache_root/oci-ccm/kube-apiserver-$version"
bin="$out_dir/kube-apiserver"

# usable reports whether $1 runs and says it is the wanted version. A binary
# built without the version stamp reports v0.0.0-master and is rebuilt.
usable() {
	local got
	[[ -x "$1" ]] || return 1
	got="$("$1" --version 2>/dev/null)" || return 1
	[[ "$got" == "Kubernetes $version" ]]
}

if usable "$bin"; then
	log "using cached $bin ($version)"
	printf '%s\n' "$bin"
	exit 0
fi

mkdir -p "$out_dir"
exec 9>"$out_dir/.lock"
log "waiting for the build lock $out_dir/.lock"
flock 9

# Another process may have finished the build while this one waited.
if usable "$bin"; then
	log "using $bin ($version), built by another process"
	printf '%s\n' "$bin"
	exit 0
fi

# Holding the lock, no other build is running: partial outputs left by an
# interrupted build are garbage.
rm -f "$out_dir"/.kube-apiserver.*
tmp="$(mktemp "$out_dir/.kube-apiserver.XXXXXX")"
# Signals exit through the EXIT trap, which removes the partial output.
trap 'rm -f "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# -s -w drops the symbol table and DWARF (about a third of the size); the -X
# stamps make --version and the apiserver's compatibility version report the
# real release instead of v0.0.0-master. Only the link step sees ldflags, so
# these do not invalidate compiled packages in GOCACHE. -trimpath is left
# out on purpose: it changes every cache key and would force a full rebuild.
vpkg="k8s.io/component-base/version"
ldflags="-s -w"
ldflags+=" -X $vpkg.gitVersion=$version"
ldflags+=" -X $vpkg.gitMajor=$major"
ldflags+=" -X $vpkg.gitMinor=$minor"
ldflags+=" -X $vpkg.gitTreeState=clean"

log "building $pkg $version into $bin"
log "a cold build takes 11-20+ minutes on 2 cores; later builds reuse GOCACHE"
start=$SECONDS
go build -ldflags "$ldflags" -o "$tmp" "$pkg" ||
	die "go build of $pkg failed (see the messages above)"
chmod 0755 "$tmp"
usable "$tmp" || die "the freshly built binary does not report 'Kubernetes $version'"
mv -f "$tmp" "$bin"
trap - EXIT INT TERM
log "built $bin in $((SECONDS - start))s"
printf '%s\n' "$bin"
