#!/bin/sh
# Prints the version of every artifact of the project: the first line of
# the VERSION file at the repository's root, a semantic version (1.2.0,
# 1.3.0-rc.1). make build, make image, make release, the packages and the
# Helm chart take it (TestVersionsAgree); the commit is not part of it,
# it goes into the binary as the revision (--version).
set -eu
cd "$(dirname "$0")/.."
[ -f VERSION ] || { echo "packaging/version.sh: no VERSION file" >&2; exit 1; }
v=$(head -n 1 VERSION | tr -d '[:space:]')
if ! printf '%s\n' "$v" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$'; then
  echo "packaging/version.sh: VERSION holds '$v', not a version such as 1.2.0 or 1.3.0-rc.1" >&2
  exit 1
fi
echo "$v"
