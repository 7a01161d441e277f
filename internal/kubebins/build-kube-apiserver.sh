#!/usr/bin/env bash
# Builds kube-apiserver (or kubectl) from source (no prebuilt binaries can be
# downloaded here) and caches it per version, so only the first run pays for
# the build.
#
# Usage: [KUBE_VERSION=1.36] internal/kubebins/build-kube-apiserver.sh [kubectl]
#
# Progress goes to stderr; the last line of stdout is the absolute path of a
# runnable kube-apiserver (kubectl with the argument kubectl: the tutorial's
# test runs the commands the tutorial gives) whose version matches the go.mod
# it was built from. Safe to run many times and from several processes at once: builders
# serialise on a lock and the binary appears in the cache only by an atomic
# rename, so a reader never runs a half-written file.
#
# Environment:
#   KUBE_VERSION    Kubernetes minor to build, as 1.36 or v1.36 (v1.36.3, the
#                   exact pinned version, is accepted too). Unset or empty:
#                   the default, the version in this directory's go.mod. Any
#                   other minor is the nested module v<minor>/ here; one with
#                   no such module is an error that lists those available.
#   XDG_CACHE_HOME  cache root (default: $HOME/.cache)
#   GOCACHE, GOFLAGS, GOPROXY ...  honoured as usual by the go command
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cmd="${1:-kube-apiserver}"
case "$cmd" in
kube-apiserver | kubectl) ;;
*) printf 'build-kube-apiserver: error: %s is not kube-apiserver or kubectl\n' "$cmd" >&2; exit 1 ;;
esac
pkg="k8s.io/kubernetes/cmd/$cmd"

log() { printf 'build-kube-apiserver: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

command -v go >/dev/null 2>&1 || die "the go command is not on PATH"
command -v flock >/dev/null 2>&1 || die "flock (util-linux) is not on PATH"

# pinned prints the k8s.io/kubernetes version required by the go.mod in
# directory $1 (a plain read, no go command: it only names the choices).
pinned() {
	awk '$1 == "require" && $2 == "k8s.io/kubernetes" {print $3; exit}' "$1/go.mod"
}

# minor_of prints MAJOR.MINOR of a version vMAJOR.MINOR.PATCH.
minor_of() {
	[[ "$1" =~ ^v([0-9]+\.[0-9]+)\. ]] && printf '%s\n' "${BASH_REMATCH[1]}"
}

# available prints the versions there are modules for, one a line, newest
# (the default) first.
available() {
	local d
	printf 'v%s (default, %s)\n' "$(minor_of "$(pinned "$script_dir")")" "$(pinned "$script_dir")"
	for d in "$script_dir"/v*/; do
		[[ -f "$d/go.mod" ]] || continue
		printf 'v%s (%s)\n' "$(basename "$d" | sed 's/^v//')" "$(pinned "$d")"
	done | sort -rV
}

# The module to build from: this directory (the default), or v<minor>/.
mod_dir="$script_dir"
want="${KUBE_VERSION:-}"
want="${want#v}"
if [[ -n "$want" ]]; then
	[[ "$want" =~ ^([0-9]+\.[0-9]+)(\.[0-9]+)?$ ]] ||
		die "KUBE_VERSION='$KUBE_VERSION' is not a Kubernetes minor such as 1.36 or v1.36"
	want_minor="${BASH_REMATCH[1]}"
	if [[ "$want_minor" != "$(minor_of "$(pinned "$script_dir")")" ]]; then
		mod_dir="$script_dir/v$want_minor"
	fi
	if [[ ! -f "$mod_dir/go.mod" ]]; then
		die "no module for Kubernetes v$want_minor (KUBE_VERSION=$KUBE_VERSION); available:
$(available | sed 's/^/  /')
(a minor is a nested module internal/kubebins/v<minor>/; see internal/kubebins/README.md)"
	fi
fi

cd "$mod_dir"

# The version comes from go.mod, so bumping k8s.io/kubernetes there also
# moves the cache key and forces a fresh build.
version="$(go list -m -f '{{.Version}}' k8s.io/kubernetes)" ||
	die "cannot read the k8s.io/kubernetes version from $mod_dir/go.mod"
[[ "$version" =~ ^v([0-9]+)\.([0-9]+)\.[0-9]+$ ]] ||
	die "unexpected k8s.io/kubernetes version '$version' in $mod_dir/go.mod"
major="${BASH_REMATCH[1]}"
minor="${BASH_REMATCH[2]}"
if [[ "$want" =~ \.[0-9]+\.[0-9]+$ && "v$want" != "$version" ]]; then
	die "KUBE_VERSION=$KUBE_VERSION: the module for v$major.$minor pins $version; use KUBE_VERSION=$major.$minor"
fi

cache_root="${XDG_CACHE_HOME:-${HOME:?HOME is not set}/.cache}"
out_dir="$cache_root/oci-ccm/kube-apiserver-$version" # kubectl is cached beside it
bin="$out_dir/$cmd"

# usable reports whether $1 runs and says it is the wanted version. A binary
# built without the version stamp reports v0.0.0-master and is rebuilt.
usable() {
	local got
	[[ -x "$1" ]] || return 1
	if [[ "$cmd" == kubectl ]]; then
		got="$("$1" version --client 2>/dev/null)" || return 1
		[[ "${got%%$'\n'*}" == "Client Version: $version" ]]
		return
	fi
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
rm -f "$out_dir"/."$cmd".*
tmp="$(mktemp "$out_dir/.$cmd.XXXXXX")"
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
usable "$tmp" || die "the freshly built $cmd does not report version $version"
mv -f "$tmp" "$bin"
trap - EXIT INT TERM
log "built $bin in $((SECONDS - start))s"
printf '%s\n' "$bin"
