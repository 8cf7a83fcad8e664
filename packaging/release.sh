#!/usr/bin/env bash
# Builds a release into $OUT (make release; .build/release by default):
#
#   mintlify_exporter-<version>.<os>-<arch>.tar.gz   (.zip for windows), each
#       holding the folder mintlify_exporter-<version>.<os>-<arch>/ with the
#       binary, LICENSE, NOTICE, README.md, CHANGELOG.md, docs/, the
#       dashboard, alerting and recording rules (dashboards/mintlify.json,
#       alerts.yml, rules.yml) and every other file the documentation links
#       to (docs_files), and licenses/ (the license and NOTICE files of
#       every Go module built into the binary)
#   mintlify-exporter_<debversion>_<arch>.deb and
#   mintlify-exporter-<rpmversion>.<arch>.rpm        for each linux architecture,
#       with the same documentation and dashboards/ under
#       /usr/share/doc/mintlify-exporter/ and the man page made from
#       --help-man
#   sha256sums.txt                                   of all of them (sha256sum -c)
#   bin/<os>-<arch>/                                 the binaries and their licenses/
#                                                    (for make release-image)
#
# make passes GO, VERSION (packaging/version.sh) and LDFLAGS (make build's,
# with that version). PLATFORMS limits the platforms (os/arch; linux/armv7
# builds GOARCH=arm GOARM=7). Archive entries are sorted, owned by root and
# dated from the commit (SOURCE_DATE_EPOCH); the binaries still carry the
# build date and user, as make build's do.
set -euo pipefail
cd "$(dirname "$0")/.."

: "${GO:=go}" "${VERSION:?set VERSION}" "${LDFLAGS:?set LDFLAGS}"
OUT=${OUT:-.build/release}
PLATFORMS=${PLATFORMS:-linux/amd64 linux/arm64 linux/armv7 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}
NFPM=${NFPM:-nfpm}
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}

log() { printf 'release: %s\n' "$*" >&2; }
die() {
  log "$*"
  exit 1
}

for tool in tar gzip sha256sum; do
  command -v "$tool" >/dev/null || die "$tool is missing"
done
case " $PLATFORMS " in
*" windows/"*) command -v zip >/dev/null || die "zip is missing (apt-get install zip): the windows archives are zip files" ;;
esac
case " $PLATFORMS " in
*" linux/"*)
  command -v "$NFPM" >/dev/null ||
    die "$NFPM is missing: go install github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2 (make release installs it)"
  ;;
esac

case "$OUT" in
"" | / | . | .. | "$HOME") die "refusing to empty OUT=$OUT" ;;
esac
rm -rf "$OUT"
mkdir -p "$OUT/bin" "$OUT/stage"
log "version $VERSION into $OUT"

# licenses DIR GOOS GOARCH: the license and NOTICE files of every module
# built into the binary for that platform, one folder per module.
licenses() {
  local dest=$1 mod dir f found
  mkdir -p "$dest"
  GOOS=$2 GOARCH=$3 "$GO" list -deps -f '{{with .Module}}{{if .Version}}{{.Path}} {{.Dir}}{{end}}{{end}}' . | sort -u |
    while read -r mod dir; do
      mkdir -p "$dest/$mod"
      found=""
      for f in "$dir"/LICENSE* "$dir"/COPYING* "$dir"/NOTICE*; do
        [ -f "$f" ] && install -m 0644 "$f" "$dest/$mod/" && found=1
      done
      [ -n "$found" ] || die "no license file in $mod ($dir)"
    done
}

# docs_files prints the documentation an archive and a package hold, by
# its path in the repository: README.md, CHANGELOG.md, docs/*.md, the
# dashboard and the rules, and every file they link to, and those files'
# links in turn, so that every relative link of the documentation resolves
# inside it (make release-check and make package-test check it). A link
# must name a file of the repository.
docs_files() {
  local -A seen=()
  local todo=(README.md CHANGELOG.md docs/*.md dashboards/mintlify.json dashboards/alerts.yml dashboards/rules.yml dashboards/mixin.libsonnet) f link target
  while [ ${#todo[@]} -gt 0 ]; do
    f=${todo[0]}
    todo=("${todo[@]:1}")
    [ -z "${seen[$f]:-}" ] || continue
    seen[$f]=1
    printf '%s\n' "$f"
    case "$f" in *.md) ;; *) continue ;; esac
    while IFS= read -r link; do
      link=${link%%#*}
      case "$link" in "" | *:*) continue ;; esac
      target=$(realpath -m --relative-to=. "$(dirname "$f")/$link")
      case "$target" in ../* | /*) die "$f links to $link, outside the repository" ;; esac
      [ -f "$target" ] || die "$f links to $link, which is not a file of the repository"
      todo+=("$target")
    done < <(grep -oE '\]\([^) ]+\)' "$f" | sed -E 's/^\]\(//; s/\)$//')
  done
}
docs_files >"$OUT/stage/docs.txt" || exit 1
mapfile -t docs < <(LC_ALL=C sort "$OUT/stage/docs.txt")
log "documentation in each archive: ${docs[*]}"

# archive NAME: NAME.tar.gz or NAME.zip of stage/NAME, reproducibly.
archive() {
  local name=$1 os=$2
  find "$OUT/stage/$name" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
  if [ "$os" = windows ]; then
    (cd "$OUT/stage" && find "$name" -print | LC_ALL=C sort | TZ=UTC zip -q -X -@ "../$name.zip")
  else
    tar -C "$OUT/stage" --sort=name --owner=0 --group=0 --numeric-owner \
      --mtime="@$SOURCE_DATE_EPOCH" --format=gnu -cf - "$name" | gzip -n -9 >"$OUT/$name.tar.gz"
  fi
}

# The packages' versions (packaging/pkgversion.sh): nfpm's and the deb's,
# for its changelog.
read -r nfpmversion debversion _ < <(bash packaging/pkgversion.sh "$VERSION") ||
  die "no package version for $VERSION"
maintainer=$(sed -n 's/^maintainer: //p' packaging/nfpm.yaml)
mkdir -p "$OUT/stage"
{
  printf 'mintlify-exporter (%s) unstable; urgency=medium\n\n' "$debversion"
  printf '  * Release %s, built from commit %s.\n' "$VERSION" "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  printf '    Changes: https://github.com/mintlify-exporter/mintlify_exporter/commits\n\n'
  printf ' -- %s  %s\n' "$maintainer" "$(LC_ALL=C date -u -R -d "@$SOURCE_DATE_EPOCH")"
} | gzip -n -9 >"$OUT/stage/changelog.Debian.gz"

# The packages' documentation: the archives' (docs_files) but LICENSE,
# which the deb has as copyright and the rpm in /usr/share/licenses; a
# link to it goes to those.
mkdir -p "$OUT/stage/doc"
install -m 0644 NOTICE "$OUT/stage/doc/"
for f in "${docs[@]}"; do
  [ "$f" = LICENSE ] || install -D -m 0644 "$f" "$OUT/stage/doc/$f"
done

# The man page, from --help-man of a binary of this machine, with a title
# line (kingpin's holds the whole --version) and a NAME line lintian and
# whatis read.
log "man page"
"$GO" build -trimpath -ldflags "$LDFLAGS" -o "$OUT/stage/host/mintlify_exporter" . || die "go build for the man page failed"
"$OUT/stage/host/mintlify_exporter" --help-man >"$OUT/stage/man.1" || die "--help-man failed"
# Each command's own page follows as a section, its headings as subsections.
for cmd in jobs backfill receiver; do
  upper=$(echo "$cmd" | tr '[:lower:]' '[:upper:]')
  printf '.SH "%s COMMAND"\n' "$upper" >>"$OUT/stage/man.1"
  "$OUT/stage/host/mintlify_exporter" "$cmd" --help-man | sed -n '/^\.SH "SYNOPSIS"/,$p' | sed 's/^\.SH /.SS /' >>"$OUT/stage/man.1" ||
    die "$cmd --help-man failed"
done
summary=$(sed -n 's/^ *summary: //p' packaging/nfpm.yaml)
awk -v ver="$VERSION" -v date="$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)" -v summary="$summary" '
  NR == 1 { printf ".TH MINTLIFY_EXPORTER 1 \"%s\" \"mintlify_exporter %s\" \"User Commands\"\n", date, ver; head = 1; next }
  head && /^\.SH "NAME"/ { print; getline; print "mintlify_exporter \\- " summary; head = 0; next }
  head { next }
  { print }
' "$OUT/stage/man.1" | gzip -n -9 >"$OUT/stage/mintlify_exporter.1.gz"
zcat "$OUT/stage/mintlify_exporter.1.gz" | grep -q '^mintlify_exporter \\- [A-Z]' || die "the man page has no NAME line"

# The packaged units, generated from deploy/systemd's.
for fmt in deb rpm; do
  mkdir -p "$OUT/stage/units/$fmt"
  for unit in mintlify_exporter mintlify_exporter-receiver; do
    "$GO" run ./packaging/gen -unit "deploy/systemd/$unit.service" -format "$fmt" -out "$OUT/stage/units/$fmt/$unit.service" ||
      die "generating the $fmt unit $unit failed"
  done
done

for platform in $PLATFORMS; do
  os=${platform%/*}
  arch=${platform#*/}
  goarch=$arch goarm=""
  if [ "$arch" = armv7 ]; then goarch=arm goarm=7; fi
  exe=""
  [ "$os" = windows ] && exe=.exe
  bindir="$OUT/bin/$os-$arch"
  log "build $os/$arch"
  mkdir -p "$bindir"
  CGO_ENABLED=0 GOOS=$os GOARCH=$goarch GOARM=$goarm \
    "$GO" build -trimpath -ldflags "$LDFLAGS" -o "$bindir/mintlify_exporter$exe" . ||
    die "go build for $os/$arch failed"

  name="mintlify_exporter-$VERSION.$os-$arch"
  dir="$OUT/stage/$name"
  mkdir -p "$dir"
  install -m 0755 "$bindir/mintlify_exporter$exe" "$dir/"
  install -m 0644 LICENSE NOTICE "$dir/"
  for f in "${docs[@]}"; do
    install -D -m 0644 "$f" "$dir/$f"
  done
  licenses "$dir/licenses" "$os" "$goarch"
  cp -R "$dir/licenses" "$bindir/"
  archive "$name" "$os"

  if [ "$os" = linux ]; then
    # nfpm's architecture names: arm7 becomes armhf (deb) and armv7hl (rpm).
    nfpm_arch=$goarch
    [ "$arch" = armv7 ] && nfpm_arch=arm7
    pkg="$OUT/stage/pkg-$arch"
    mkdir -p "$pkg/deb" "$pkg/rpm"
    cp "$dir/mintlify_exporter" "$pkg/"
    cp -R "$dir/licenses" "$pkg/"
    cp "$OUT/stage/changelog.Debian.gz" "$OUT/stage/mintlify_exporter.1.gz" "$pkg/"
    cp -R "$OUT/stage/doc" "$pkg/doc"
    for fmt in deb rpm; do
      cp "$OUT/stage/units/$fmt/mintlify_exporter.service" "$OUT/stage/units/$fmt/mintlify_exporter-receiver.service" "$pkg/$fmt/"
      NFPM_ARCH=$nfpm_arch NFPM_VERSION=$nfpmversion NFPM_STAGE=$pkg \
        "$NFPM" package --config packaging/nfpm.yaml --packager "$fmt" --target "$OUT/" >&2 ||
        die "nfpm $fmt for $os/$arch failed"
    done
  fi
done

rm -rf "$OUT/stage"
(
  cd "$OUT"
  shopt -s nullglob
  files=(*.tar.gz *.zip *.deb *.rpm)
  [ ${#files[@]} -gt 0 ] || die "nothing was built"
  sha256sum "${files[@]}" >sha256sums.txt
)
log "done: $(wc -l <"$OUT/sha256sums.txt") files in $OUT, listed in $OUT/sha256sums.txt"
