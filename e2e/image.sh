#!/usr/bin/env bash
# End-to-end test of the container image: build it with buildah (`make
# image`), run it with podman in demo mode, scrape /metrics through the
# published port, stop it.
#
#   bash e2e/image.sh          (or: make e2e-image)
#
# Steps (each failure names its step):
#   1. install buildah, podman, runc, curl with apt-get if missing
#      (non-interactive; needs root or sudo)
#   2. write a containers.conf in a temporary directory: the cgroupfs
#      cgroup manager and no default ulimits, so podman works in a plain
#      VM or container without systemd
#   3. make image (FROM scratch: no registry is contacted)
#   4. check the image's user and labels
#   5. run it with podman --runtime runc, --demo, port published on
#      127.0.0.1; wait until /metrics through that port has page views of
#      the demo's docs project
#   6. check the exporter runs as the image's non-root user
#   7. stop the container (SIGTERM), check it exited 0, remove it and the
#      image
#
# Environment: KEEP_IMAGE=1 keeps the image; KEEP_TMP=1 the temporary
# directory (containers.conf, container log).
set -euo pipefail

cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"

readonly DEADLINE=120 # seconds for start to stop, build excluded
step="setup"
tmp=""
ctr=""
image="localhost/mintlify_exporter:e2e-$$"

CHECK=e2e-image
# shellcheck source=e2e/lib.sh
. e2e/lib.sh

cleanup() {
  local rc=$?
  set +e
  if [ -n "$ctr" ]; then
    if [ "$rc" -ne 0 ]; then
      log "---- container log ----"
      podman logs "$ctr" 2>&1 | tail -n 20 >&2
    fi
    podman --runtime runc rm -f -t 5 "$ctr" >/dev/null 2>&1
  fi
  if [ "${KEEP_IMAGE:-}" != 1 ] && podman image exists "$image" 2>/dev/null; then
    podman rmi "$image" >/dev/null 2>&1
  fi
  if [ -n "$tmp" ] && [ -d "$tmp" ]; then
    if [ "${KEEP_TMP:-}" = 1 ]; then log "kept $tmp"; else rm -rf "$tmp"; fi
  fi
  if [ "$rc" -eq 0 ]; then log "PASSED in ${SECONDS}s after the image was built"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- 1. tools
step="install"
need=()
for tool in buildah podman runc curl; do
  command -v "$tool" >/dev/null 2>&1 || need+=("$tool")
done
apt_install "${need[@]}"

# ---------------------------------------------------------------- 2. conf
step="containers.conf"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mintlify-e2e-image.XXXXXX")
cat >"$tmp/containers.conf" <<'EOF'
[containers]
default_ulimits = []

[engine]
cgroup_manager = "cgroupfs"
EOF
export CONTAINERS_CONF="$tmp/containers.conf"
pod() { podman --runtime runc "$@"; }

# ---------------------------------------------------------------- 3. build
step="make image"
build_start=$SECONDS
make image IMAGE="$image" || fail "make image failed"
log "image $image built in $((SECONDS - build_start))s"

# ---------------------------------------------------------------- 4. inspect
step="inspect image"
user=$(pod image inspect --format '{{.Config.User}}' "$image")
[ "$user" = "65532:65532" ] || fail "image user is '$user', want 65532:65532"
lic=$(pod image inspect --format '{{index .Labels "org.opencontainers.image.licenses"}}' "$image")
[ "$lic" = "Apache-2.0" ] || fail "org.opencontainers.image.licenses is '$lic', want Apache-2.0"

# ---------------------------------------------------------------- 5. run
step="run"
SECONDS=0 # the deadline counts from here
port=$(free_port) || fail "no free port found"
ctr=$(pod run -d --name "mintlify-e2e-image-$$" -p "127.0.0.1:$port:10491" "$image" --demo) ||
  fail "podman run failed"
url="http://127.0.0.1:$port/metrics"
log "container ${ctr:0:12} on $url"

step="scrape"
series='^mintlify_page_views{path="/[^"]*",project="docs",'
alive() {
  local state
  state=$(pod inspect --format '{{.State.Status}}' "$ctr" 2>/dev/null || echo gone)
  [ "$state" = running ] || fail "container is $state"
}
wait_for_series "$url" "$tmp/metrics.txt" "$series" $((DEADLINE - SECONDS)) alive
grep -q '^mintlify_up{.*} 1$' "$tmp/metrics.txt" || fail "mintlify_up is not 1"
log "scraped $(grep -c '^mintlify_page_views{' "$tmp/metrics.txt") page-view series"

# ---------------------------------------------------------------- 6. user
step="user"
pid=$(pod inspect --format '{{.State.Pid}}' "$ctr")
uid=$(awk '/^Uid:/ {print $2}' "/proc/$pid/status")
[ "$uid" = 65532 ] || fail "the exporter runs as uid $uid, want 65532"

# ---------------------------------------------------------------- 7. stop
step="stop"
pod stop -t 10 "$ctr" >/dev/null || fail "podman stop failed"
code=$(pod inspect --format '{{.State.ExitCode}}' "$ctr")
[ "$code" = 0 ] || fail "the exporter exited $code on SIGTERM, want 0"
pod logs "$ctr" 2>&1 | grep -q 'msg="Shutting down"' || fail "no shutdown message in the log"
pod rm "$ctr" >/dev/null || fail "podman rm failed"
ctr=""
