#!/usr/bin/env bash
# Prints the path of a PEM CA bundle for the container image on the last line of stdout
# (progress goes to stderr).
#
# Usage: internal/image/ensure-ca-bundle.sh
#
# Order of preference:
#   1. OCI_CCM_CA_BUNDLE, if it names a readable file;
#   2. Debian's /etc/ssl/certs/ca-certificates.crt;
#   3. as root with apt-get: install Debian's ca-certificates, then 2.
#
# The bundle is an input of the image: two machines with different ca-certificates versions
# build images with different digests. Pin it with OCI_CCM_CA_BUNDLE for builds that must agree
# across machines.
set -euo pipefail

log() { printf 'ensure-ca-bundle: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

bundle=/etc/ssl/certs/ca-certificates.crt

if [[ -n "${OCI_CCM_CA_BUNDLE:-}" ]]; then
	[[ -r "$OCI_CCM_CA_BUNDLE" ]] || die "OCI_CCM_CA_BUNDLE=$OCI_CCM_CA_BUNDLE is not a readable file"
	printf '%s\n' "$OCI_CCM_CA_BUNDLE"
	exit 0
fi

if [[ -s "$bundle" ]]; then
	printf '%s\n' "$bundle"
	exit 0
fi

if [[ "$(id -u)" != 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
	die "no $bundle; install a CA bundle (Debian/Ubuntu: apt-get install ca-certificates)" \
		"or set OCI_CCM_CA_BUNDLE to a PEM file"
fi

export DEBIAN_FRONTEND=noninteractive
candidate="$(apt-cache policy ca-certificates 2>/dev/null | awk '/Candidate:/ {print $2}')"
if [[ -z "$candidate" || "$candidate" == "(none)" ]]; then
	log "apt-get update (the package lists do not know ca-certificates)"
	apt-get update -qq >&2 || die "apt-get update failed"
fi
log "installing ca-certificates with apt-get"
apt-get install -y -qq --no-install-recommends ca-certificates >&2 ||
	die "apt-get install ca-certificates failed"
[[ -s "$bundle" ]] || die "ca-certificates is installed but $bundle is missing"
printf '%s\n' "$bundle"
