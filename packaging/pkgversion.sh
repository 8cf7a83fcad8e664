#!/usr/bin/env bash
# pkgversion.sh VERSION prints the versions the packages of a release get,
# as three words: the version handed to nfpm (semver), the deb's version
# and the rpm's version-release.
#
#   1.2.0                          nfpm 1.2.0                 deb 1.2.0-1                  rpm 1.2.0-1
#   1.3.0-rc.1                     nfpm 1.3.0-rc.1            deb 1.3.0~rc.1-1             rpm 1.3.0~rc.1-1
#   1.2.0-3-gabc1234 (after a tag) nfpm 1.2.0+3.gabc1234      deb 1.2.0+3.gabc1234-1       rpm 1.2.0+3.gabc1234-1
#   0.0.0-SNAPSHOT-abc1234         nfpm 0.0.0-SNAPSHOT-abc1234 deb 0.0.0~SNAPSHOT-abc1234-1 rpm 0.0.0~SNAPSHOT_abc1234-1
#
# A pre-release (after -) sorts before its version, as dpkg and rpm read ~;
# commits after a tag are build metadata (after +) and sort after it.
set -euo pipefail
v=${1:?usage: pkgversion.sh VERSION}
if [[ $v =~ ^(.+)-([0-9]+)-g([0-9a-f]+)(-dirty)?$ ]]; then
  v="${BASH_REMATCH[1]}+${BASH_REMATCH[2]}.g${BASH_REMATCH[3]}${BASH_REMATCH[4]:+.dirty}"
fi
[[ $v =~ ^([0-9]+\.[0-9]+\.[0-9]+)(-([0-9A-Za-z.-]+))?(\+([0-9A-Za-z.-]+))?$ ]] ||
  { echo "pkgversion.sh: $v is not a semantic version" >&2; exit 1; }
base=${BASH_REMATCH[1]} pre=${BASH_REMATCH[3]} meta=${BASH_REMATCH[5]}
deb=$base rpm=$base
if [ -n "$pre" ]; then
  deb+="~$pre"
  rpm+="~${pre//-/_}"
fi
if [ -n "$meta" ]; then
  deb+="+$meta"
  rpm+="+$meta"
fi
echo "$v $deb-1 $rpm-1"
