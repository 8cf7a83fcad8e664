#!/usr/bin/env bash
# Prints the CHANGELOG.md section of a version, without its heading: the
# text of the GitHub release the release workflow makes
# (.github/workflows/release.yml). Fails when CHANGELOG.md has no section
# "## VERSION / YYYY-MM-DD" or the section is empty.
#
#   bash packaging/changelog-section.sh 0.1.0
set -euo pipefail
cd "$(dirname "$0")/.."

version=${1:?usage: changelog-section.sh VERSION}
changelog=${CHANGELOG:-CHANGELOG.md}
section=$(awk -v v="$version" '
  /^## / { if (found) exit; if ($2 == v && $3 == "/" && $4 ~ /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]$/ && NF == 4) { found = 1; next } }
  found { print }
' "$changelog")
# Without the blank lines around it.
section=$(printf '%s\n' "$section" | sed -e '/./,$!d')
if [ -z "$section" ]; then
  echo "changelog-section.sh: $changelog has no section '## $version / YYYY-MM-DD' with text" >&2
  exit 1
fi
printf '%s\n' "$section"
