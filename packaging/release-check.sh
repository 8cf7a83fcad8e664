#!/usr/bin/env bash
# Checks a release built from the work tree (make release-check, run by CI):
#
#   1. make release (every platform) into a temporary directory
#   2. sha256sum -c sha256sums.txt, and every archive and package is listed
#   3. each archive holds one folder mintlify_exporter-<version>.<os>-<arch>/
#      with the binary (.exe on windows), LICENSE, NOTICE, README.md,
#      CHANGELOG.md (with a section for the version), docs/, dashboards/
#      (mintlify.json, alerts.yml, rules.yml) and licenses/;
#      the binaries are for their platform (file(1) when installed); in the
#      linux/amd64 one, every relative link of every Markdown file resolves
#      to a file inside the archive's folder
#   4. make release-image (when buildah is installed): the manifest list
#      holds linux/amd64 and linux/arm64, each image the release's binary
#   5. from the extracted linux/amd64 archive: --version prints the version;
#      --demo on 127.0.0.1 and a free port, until /metrics has
#      mintlify_page_views_total series (bounded by DEADLINE seconds); then
#      SIGTERM, and it must exit 0
#
# Needs go, nfpm (make installs it), zip, unzip, curl; file and buildah
# when installed. KEEP_TMP=1 keeps the temporary directory.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"

readonly DEADLINE=${DEADLINE:-300} # seconds from the demo's start to the page views
step=setup
tmp=""
pid=""
image="" # the images of make release-image, removed on exit
ctr=""

CHECK=release-check
# shellcheck source=e2e/lib.sh
. e2e/lib.sh
cleanup() {
  local rc=$?
  set +e
  stop_exporter "$pid" "$tmp/demo.log" "$rc"
  if [ -n "$image" ] && command -v buildah >/dev/null; then
    [ -n "$ctr" ] && { buildah umount "$ctr" >/dev/null 2>&1; buildah rm "$ctr" >/dev/null 2>&1; }
    buildah manifest rm "$image" >/dev/null 2>&1
    buildah rmi "$image-amd64" "$image-arm64" >/dev/null 2>&1
  fi
  if [ -n "$tmp" ] && [ -d "$tmp" ]; then
    if [ "${KEEP_TMP:-}" = 1 ]; then log "kept $tmp"; else rm -rf "$tmp"; fi
  fi
  [ "$rc" -eq 0 ] && log "PASSED in ${SECONDS}s"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for tool in curl unzip zip; do
  command -v "$tool" >/dev/null || fail "$tool is missing (apt-get install $tool)"
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mintlify-release-check.XXXXXX")
out="$tmp/release"

# ------------------------------------------------------------ 1. build
step="make release"
version=$(sh packaging/version.sh) || fail "packaging/version.sh failed"
[ "$version" = "$(tr -d '[:space:]' <VERSION)" ] || fail "packaging/version.sh printed '$version', VERSION holds $(cat VERSION)"
start=$SECONDS
make --no-print-directory release RELEASE_DIR="$out" RELEASE_VERSION="$version" >"$tmp/release.log" 2>&1 ||
  { tail -n 30 "$tmp/release.log" >&2; fail "make release failed"; }
log "make release $version: $((SECONDS - start))s"

# ------------------------------------------------------------ 2. checksums
step="checksums"
(cd "$out" && sha256sum -c --strict sha256sums.txt >/dev/null) || fail "sha256sum -c sha256sums.txt failed"
listed=$(awk '{print $2}' "$out/sha256sums.txt" | sort)
present=$(cd "$out" && ls -1 -- *.tar.gz *.zip *.deb *.rpm | sort)
[ "$listed" = "$present" ] || fail "sha256sums.txt lists $(echo $listed), the release holds $(echo $present)"

# ------------------------------------------------------------ 3. archives
step="archives"
platforms="linux/amd64 linux/arm64 linux/armv7 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"
[ "$(grep -c -E '\.(tar\.gz|zip)$' "$out/sha256sums.txt")" -eq 7 ] || fail "want 7 archives in sha256sums.txt"
for platform in $platforms; do
  os=${platform%/*} arch=${platform#*/}
  name="mintlify_exporter-$version.$os-$arch"
  exe="" ext=tar.gz
  [ "$os" = windows ] && exe=.exe ext=zip
  f="$out/$name.$ext"
  [ -f "$f" ] || fail "no $name.$ext"
  if [ "$ext" = zip ]; then
    entries=$(unzip -Z1 "$f")
  else
    entries=$(tar -tzf "$f")
  fi
  # One top folder, named after the archive.
  tops=$(printf '%s\n' "$entries" | cut -d/ -f1 | sort -u)
  [ "$tops" = "$name" ] || fail "$name.$ext: top-level entries are $(echo $tops), want $name/"
  for want in "mintlify_exporter$exe" LICENSE NOTICE README.md CHANGELOG.md docs/deployment.md docs/configuration.md \
    dashboards/mintlify.json dashboards/alerts.yml dashboards/rules.yml dashboards/mixin.libsonnet \
    licenses/github.com/prometheus/client_golang/LICENSE; do
    grep -qxF "$name/$want" <<<"$entries" || fail "$name.$ext lacks $name/$want"
  done
  if command -v file >/dev/null; then
    mkdir -p "$tmp/x/$os-$arch"
    if [ "$ext" = zip ]; then
      unzip -q -o "$f" "$name/mintlify_exporter$exe" -d "$tmp/x/$os-$arch"
    else
      tar -xzf "$f" -C "$tmp/x/$os-$arch" "$name/mintlify_exporter"
    fi
    desc=$(file -b "$tmp/x/$os-$arch/$name/mintlify_exporter$exe")
    case "$platform" in
    linux/amd64) want='ELF 64-bit.*x86-64.*statically linked' ;;
    linux/arm64) want='ELF 64-bit.*aarch64.*statically linked' ;;
    linux/armv7) want='ELF 32-bit.*ARM.*EABI5.*statically linked' ;;
    darwin/amd64) want='Mach-O 64-bit x86_64' ;;
    darwin/arm64) want='Mach-O 64-bit arm64' ;;
    windows/amd64) want='PE32\+ executable.*x86-64' ;;
    windows/arm64) want='PE32\+ executable.*Aarch64' ;;
    esac
    printf '%s\n' "$desc" | grep -Eq "$want" || fail "$platform binary is '$desc', want /$want/"
  fi
done
log "7 archives hold their folder, binary, LICENSE, NOTICE, README.md, CHANGELOG.md, docs/, dashboards/ and licenses/"

# ------------------------------------------------------------ image
# make release-image: both architectures and the manifest list, each image
# holding the release's binary of its architecture. Needs buildah (CI
# installs it for make e2e-image); skipped with a message without it.
step="release-image"
if command -v buildah >/dev/null; then
  # Under a registry, as make's default RELEASE_IMAGE is (the published
  # name), with a tag of this check's own.
  image="ghcr.io/mintlify-exporter/mintlify_exporter:release-check-$$"
  make --no-print-directory release-image RELEASE_DIR="$out" RELEASE_IMAGE="$image" RELEASE_VERSION="$version" \
    >"$tmp/image.log" 2>&1 || { tail -n 20 "$tmp/image.log" >&2; fail "make release-image failed"; }
  platforms=$(buildah manifest inspect "$image" | python3 -c 'import json, sys; print(" ".join(sorted(m["platform"]["os"] + "/" + m["platform"]["architecture"] for m in json.load(sys.stdin)["manifests"])))') ||
    fail "buildah manifest inspect $image failed"
  [ "$platforms" = "linux/amd64 linux/arm64" ] || fail "the manifest list holds '$platforms', want linux/amd64 linux/arm64"
  for arch in amd64 arm64; do
    got=$(buildah inspect --type image --format '{{.OCIv1.OS}}/{{.OCIv1.Architecture}} {{.OCIv1.Config.User}} {{index .OCIv1.Config.Labels "org.opencontainers.image.version"}}' "$image-$arch")
    [ "$got" = "linux/$arch 65532:65532 $version" ] || fail "$image-$arch is '$got', want 'linux/$arch 65532:65532 $version'"
    ctr=$(buildah from --arch "$arch" "$image-$arch" 2>/dev/null) || fail "buildah from $image-$arch failed"
    mnt=$(buildah mount "$ctr") || fail "buildah mount failed"
    cmp -s "$mnt/bin/mintlify_exporter" "$out/bin/linux-$arch/mintlify_exporter" || fail "$image-$arch does not hold the release's linux/$arch binary"
    buildah umount "$ctr" >/dev/null
    buildah rm "$ctr" >/dev/null
    ctr=""
  done
  buildah manifest rm "$image" >/dev/null
  buildah rmi "$image-amd64" "$image-arm64" >/dev/null
  image=""
  log "release-image: linux/amd64 and linux/arm64 images of the release binaries, and their manifest list"
else
  log "SKIPPED make release-image: buildah is not installed"
fi

# ------------------------------------------------------------ 4. run
step="extract linux/amd64"
name="mintlify_exporter-$version.linux-amd64"
mkdir -p "$tmp/run"
tar -xzf "$out/$name.tar.gz" -C "$tmp/run" || fail "tar -x failed"
bin="$tmp/run/$name/mintlify_exporter"
[ -x "$bin" ] || fail "$bin is not executable"

# The documentation in the archive: each relative link of each Markdown
# file names a file inside the folder (anchors aside).
step="documentation links"
top="$tmp/run/$name"
nlinks=$(check_doc_links "$top" "the archive")
grep -qE "^## $(printf '%s' "$version" | sed 's/[.]/\\./g') / [0-9]{4}-[0-9]{2}-[0-9]{2}$" "$top/CHANGELOG.md" ||
  fail "the archive's CHANGELOG.md has no section for $version"
log "$nlinks relative links of the archive's documentation resolve inside it"

step="--version"
"$bin" --version >"$tmp/version.txt" 2>&1 || fail "--version exited $?"
grep -qE "^mintlify_exporter, version $(printf '%s' "$version" | sed 's/[.]/\\./g') \(branch: .*, revision: ([0-9a-f]{40}|unknown)\)$" "$tmp/version.txt" ||
  fail "--version printed '$(head -n 1 "$tmp/version.txt")', want version $version and the revision"

step="--demo"
port=$(free_port) || fail "no free port found"
STATE_DIRECTORY="$tmp/state" "$bin" --demo --web.listen-address="127.0.0.1:$port" \
  --mintlify.tracked-jobs-file="$tmp/jobs.txt" >"$tmp/demo.log" 2>&1 &
pid=$!
demo_start=$SECONDS
url="http://127.0.0.1:$port/metrics"
alive() { kill -0 "$pid" 2>/dev/null || fail "the exporter exited early"; }
wait_for_series "$url" "$tmp/metrics.txt" '^mintlify_page_views_total{path="/[^"]*",project="docs",traffic="human"} [0-9]' "$DEADLINE" alive
grep -q "^mintlify_exporter_build_info{.*version=\"$version\"" "$tmp/metrics.txt" ||
  fail "mintlify_exporter_build_info does not carry version $version"
log "scraped $(grep -c '^mintlify_page_views_total{' "$tmp/metrics.txt") mintlify_page_views_total series after $((SECONDS - demo_start))s"

step="stop"
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
pid=""
[ "$rc" -eq 0 ] || fail "the exporter exited $rc on SIGTERM, want 0"
