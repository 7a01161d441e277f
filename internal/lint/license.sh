#!/usr/bin/env bash
# Checks (or adds) the license header on every tracked Go file:
#
#   // SPDX-License-Identifier: Apache-2.0
#   // Copyright <year> The oci-ccm Authors.
#
# The header is the file's first two lines, followed by a blank line, so it never becomes a
# package's doc comment and a //go:build line may follow it.
#
# Usage: internal/lint/license.sh check   # list the files without it and fail (make lint)
#        internal/lint/license.sh fix     # add it where missing (make license)
set -euo pipefail

spdx='// SPDX-License-Identifier: Apache-2.0'
copyright="// Copyright $(date -u +%Y) The oci-ccm Authors."

mode="${1:-}"
[[ "$mode" == check || "$mode" == fix ]] || { echo "usage: $0 check|fix" >&2; exit 2; }
cd "$(git rev-parse --show-toplevel)"

# has_header: line 1 is the SPDX line and line 2 a copyright line.
has_header() {
	local first second
	{ IFS= read -r first || true; IFS= read -r second || true; } <"$1"
	[[ "$first" == "$spdx" && "$second" == "// Copyright "* ]]
}

missing=()
while IFS= read -r -d '' f; do
	[[ -f "$f" ]] || continue # deleted in the work tree
	has_header "$f" || missing+=("$f")
done < <(git ls-files -z -- '*.go')

if [[ "$mode" == check ]]; then
	if [[ ${#missing[@]} -gt 0 ]]; then
		printf 'license header missing (run make license): %s\n' "${missing[@]}" >&2
		exit 1
	fi
	exit 0
fi

for f in "${missing[@]}"; do
	tmp="$(mktemp "$f.XXXXXX")"
	{ printf '%s\n%s\n\n' "$spdx" "$copyright"; cat "$f"; } >"$tmp"
	chmod --reference="$f" "$tmp"
	mv "$tmp" "$f"
	echo "license header added: $f"
done
