#!/usr/bin/env bash
# Runs shellcheck on every shell script in the repository: tracked files named *.sh or starting
# with a sh/bash shebang. Installs Debian's shellcheck when it is missing and this runs as root
# with apt-get (as .ci/run does), the way internal/kubebins/ensure-etcd.sh installs etcd.
#
# Usage: internal/lint/shellcheck.sh   (from anywhere inside the repository)
set -euo pipefail

log() { printf 'shellcheck.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

cd "$(git rev-parse --show-toplevel)"

if ! command -v shellcheck >/dev/null 2>&1; then
	if [[ "$(id -u)" != 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
		die "shellcheck is not on PATH; install it (Debian/Ubuntu: apt-get install shellcheck)"
	fi
	export DEBIAN_FRONTEND=noninteractive
	candidate="$(apt-cache policy shellcheck 2>/dev/null | awk '/Candidate:/ {print $2}')"
	if [[ -z "$candidate" || "$candidate" == "(none)" ]]; then
		log "apt-get update (the package lists do not know shellcheck)"
		apt-get update -qq >&2 || die "apt-get update failed"
	fi
	log "installing shellcheck with apt-get"
	apt-get install -y -qq --no-install-recommends shellcheck >&2 || die "apt-get install shellcheck failed"
fi

scripts=()
while IFS= read -r -d '' f; do
	[[ -f "$f" ]] || continue # deleted in the work tree
	if [[ "$f" == *.sh ]] || head -n 1 "$f" | grep -qE '^#!.*(/|env )(ba)?sh\b'; then
		scripts+=("$f")
	fi
done < <(git ls-files -z)

if [[ ${#scripts[@]} -eq 0 ]]; then
	die "no shell scripts found; is this the repository?"
fi
log "$(shellcheck --version | awk '/^version:/ {print $2}'): ${scripts[*]}"
shellcheck --external-sources "${scripts[@]}"
