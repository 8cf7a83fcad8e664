#!/bin/sh
# Prints the version of a release (make release): the git tag without its
# leading v (1.2.0), with the commits since it as git describe counts them
# (1.2.0-3-gabc1234); without a tag, a snapshot: 0.0.0-SNAPSHOT-<commit>.
# -dirty is added when the work tree has changes.
set -eu
if v=$(git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null); then
  echo "${v#v}"
elif c=$(git rev-parse --short HEAD 2>/dev/null); then
  dirty=""
  git diff --quiet HEAD -- 2>/dev/null || dirty="-dirty"
  echo "0.0.0-SNAPSHOT-$c$dirty"
else
  echo "0.0.0-SNAPSHOT-unknown"
fi
