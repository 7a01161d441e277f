#!/usr/bin/env bash
# Makes an etcd binary available for the real-cluster tests and prints its
# absolute path on the last line of stdout (progress goes to stderr).
#
# Usage: internal/kubebins/ensure-etcd.sh
#
# Order of preference:
#   1. OCI_CCM_ETCD, if it names an executable file;
#   2. etcd on PATH;
#   3. as root with apt-get: install Debian's etcd-server (/usr/bin/etcd).
#
# The tests start etcd themselves on free loopback ports with a throw-away
# data dir, so the packaged service is never wanted: during the install a
# policy-rc.d that refuses every start is put in place (unless the system
# already has one), so neither systemd nor sysvinit starts an etcd on 2379.
#
# Never name variables in this script ETCD_*: etcd reads every such
# environment variable as configuration.
set -euo pipefail

log() { printf 'ensure-etcd: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# runs reports whether $1 is an etcd that starts at all.
runs() { "$1" --version >/dev/null 2>&1; }

found() {
	log "using $1 ($("$1" --version 2>/dev/null | head -n 1))"
	printf '%s\n' "$1"
	exit 0
}

if [[ -n "${OCI_CCM_ETCD:-}" ]]; then
	[[ -x "$OCI_CCM_ETCD" ]] || die "OCI_CCM_ETCD=$OCI_CCM_ETCD is not an executable file"
	runs "$OCI_CCM_ETCD" || die "OCI_CCM_ETCD=$OCI_CCM_ETCD does not run (--version failed)"
	found "$(cd "$(dirname "$OCI_CCM_ETCD")" && pwd)/$(basename "$OCI_CCM_ETCD")"
fi

if path="$(command -v etcd 2>/dev/null)" && runs "$path"; then
	found "$path"
fi

if [[ "$(id -u)" != 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
	die "no etcd on PATH; install one (Debian/Ubuntu: apt-get install etcd-server)" \
		"or set OCI_CCM_ETCD to its path"
fi

export DEBIAN_FRONTEND=noninteractive

# Refresh the package lists only when they do not know etcd-server yet: an
# update is slow and needs the network, an install from known lists may not.
candidate="$(apt-cache policy etcd-server 2>/dev/null | awk '/Candidate:/ {print $2}')"
if [[ -z "$candidate" || "$candidate" == "(none)" ]]; then
	log "apt-get update (the package lists do not know etcd-server)"
	apt-get update -qq >&2 || die "apt-get update failed"
fi

policy=/usr/sbin/policy-rc.d
if [[ ! -e "$policy" ]]; then
	# Exit status 101 means "action forbidden" to invoke-rc.d and
	# deb-systemd-invoke, which the package's maintainer scripts use.
	printf '#!/bin/sh\n# Temporary, written by ensure-etcd.sh.\nexit 101\n' >"$policy"
	chmod 0755 "$policy"
	trap 'rm -f "$policy"' EXIT
fi

log "installing etcd-server with apt-get (services are not started)"
apt-get install -y -qq --no-install-recommends etcd-server >&2 ||
	die "apt-get install etcd-server failed"

path="$(command -v etcd 2>/dev/null)" || die "etcd-server is installed but etcd is not on PATH"
runs "$path" || die "$path does not run (--version failed)"
found "$path"
