#!/usr/bin/env bash
# End-to-end test of the container image: build it with buildah (`make
# image`), run it with podman in demo mode, then as an operator runs it:
# without --demo, with a key and a project id in the environment, against
# the simulated API on this host, with its state on a volume; restart it
# and check that the state saved it a request.
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
#   4. check the image's user, labels (the version is VERSION's), state
#      volume and --storage.path default
#   5. run it with podman --runtime runc, --demo, port published on
#      127.0.0.1; wait until /metrics through that port has page views of
#      the demo's docs project; check it runs as the non-root user; stop
#      it (SIGTERM), check it exited 0
#   6. start the simulated API (go run ./e2e/mockapi) on 127.0.0.1 with a
#      key made for the run (mint_ and 32 random hex digits) and a project
#      id of the API's shape
#   7. run the image without --demo: host network (the simulated API is
#      on the host's loopback), read-only root filesystem, every
#      capability dropped, no new privileges, a new named volume on
#      /var/lib/mintlify_exporter, MINTLIFY_API_KEY and MINTLIFY_PROJECT_ID
#      from the environment (never on a command line); wait for
#      mintlify_up{collector="pageviews"} 1; check the state file and its
#      ledger on the volume belong to 65532
#   8. stop and remove the container, run a new one on the same volume:
#      it serves the saved page views at once (mintlify_up 1, the same last
#      refresh time) and the simulated API counts no request more
#   9. stop it (SIGTERM), check it exited 0, remove the containers, the
#      volume and the image
#
# Environment: KEEP_IMAGE=1 keeps the image; KEEP_TMP=1 the temporary
# directory (containers.conf, container logs, scrapes); E2E_IMAGE=NAME
# checks an image already built instead of building one.
set -euo pipefail

cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"

readonly DEADLINE=240 # seconds for the runs, build excluded
readonly STATE_DIR=/var/lib/mintlify_exporter
step="setup"
tmp=""
ctr=""
vol=""
api_pid=""
image=${E2E_IMAGE:-"localhost/mintlify_exporter:e2e-$$"}

CHECK=e2e-image
# shellcheck source=e2e/lib.sh
. e2e/lib.sh

pod() { podman --runtime runc "$@"; }

# remove_ctr RC removes the current container, showing its log first when
# the check failed (RC is not 0).
remove_ctr() {
  local rc=$1
  [ -n "$ctr" ] || return 0
  if [ "$rc" -ne 0 ]; then
    log "---- container log ----"
    pod logs "$ctr" 2>&1 | tail -n 20 >&2
  fi
  pod rm -f -v -t 5 "$ctr" >/dev/null 2>&1
  ctr=""
}

cleanup() {
  local rc=$?
  set +e
  remove_ctr "$rc"
  [ -z "$vol" ] || pod volume rm -f "$vol" >/dev/null 2>&1
  stop_exporter "$api_pid" "$tmp/mockapi.log" "$rc"
  if [ -z "${E2E_IMAGE:-}" ] && [ "${KEEP_IMAGE:-}" != 1 ] && podman image exists "$image" 2>/dev/null; then
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
command -v go >/dev/null 2>&1 || fail "go is not installed"

# ---------------------------------------------------------------- 2. conf
step="containers.conf"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mintlify-e2e-image.XXXXXX")
printf '%s\n' '[containers]' 'default_ulimits = []' '' '[engine]' 'cgroup_manager = "cgroupfs"' >"$tmp/containers.conf"
export CONTAINERS_CONF="$tmp/containers.conf"

# ---------------------------------------------------------------- 3. build
step="make image"
if [ -n "${E2E_IMAGE:-}" ]; then
  pod image exists "$image" || fail "E2E_IMAGE=$image does not exist"
  log "checking the image $image, not building one"
else
  build_start=$SECONDS
  make image IMAGE="$image" || fail "make image failed"
  log "image $image built in $((SECONDS - build_start))s"
fi

# ---------------------------------------------------------------- 4. inspect
step="inspect image"
label() { pod image inspect --format "{{index .Labels \"org.opencontainers.image.$1\"}}" "$image"; }
user=$(pod image inspect --format '{{.Config.User}}' "$image")
[ "$user" = "65532:65532" ] || fail "image user is '$user', want 65532:65532"
lic=$(label licenses)
[ "$lic" = "Apache-2.0" ] || fail "org.opencontainers.image.licenses is '$lic', want Apache-2.0"
want_version=$(tr -d '[:space:]' <VERSION)
got_version=$(label version)
[ "$got_version" = "$want_version" ] || fail "org.opencontainers.image.version is '$got_version', want VERSION's $want_version"
volumes=$(pod image inspect --format '{{range $v, $_ := .Config.Volumes}}{{$v}} {{end}}' "$image")
[ "$volumes" = "$STATE_DIR " ] || fail "the image's volumes are '$volumes', want $STATE_DIR"
pod run --rm --network none "$image" --help >"$tmp/help.txt" 2>&1 || fail "--help failed in the image"
grep -qF -- "--storage.path=\"$STATE_DIR/state.json\"" "$tmp/help.txt" ||
  fail "--storage.path does not default to $STATE_DIR/state.json in the image: $(grep -F -- --storage.path "$tmp/help.txt")"

# ---------------------------------------------------------------- 5. demo
step="demo"
SECONDS=0 # the deadline counts from here
port=$(free_port) || fail "no free port found"
ctr=$(pod run -d --name "mintlify-e2e-demo-$$" -p "127.0.0.1:$port:10491" "$image" --demo) ||
  fail "podman run --demo failed"
log "demo container ${ctr:0:12} on http://127.0.0.1:$port/metrics"
alive() {
  local state
  state=$(pod inspect --format '{{.State.Status}}' "$ctr" 2>/dev/null || echo gone)
  [ "$state" = running ] || fail "container is $state"
}
wait_for_series "http://127.0.0.1:$port/metrics" "$tmp/demo.txt" '^mintlify_page_views{path="/[^"]*",project="docs",' \
  $((DEADLINE - SECONDS)) alive
grep -q '^mintlify_up{.*} 1$' "$tmp/demo.txt" || fail "mintlify_up is not 1"
log "demo: $(grep -c '^mintlify_page_views{' "$tmp/demo.txt") page-view series through the published port"

# check_user: the exporter in the current container runs as 65532.
check_user() {
  local pid uid
  pid=$(pod inspect --format '{{.State.Pid}}' "$ctr")
  uid=$(awk '/^Uid:/ {print $2}' "/proc/$pid/status")
  [ "$uid" = 65532 ] || fail "the exporter runs as uid $uid, want 65532"
}
check_user

# stop_ctr NAME: SIGTERM, exit status 0, the shutdown logged; keeps the log
# as NAME.log and removes the container.
stop_ctr() {
  local code
  pod stop -t 10 "$ctr" >/dev/null || fail "podman stop failed"
  code=$(pod inspect --format '{{.State.ExitCode}}' "$ctr")
  [ "$code" = 0 ] || fail "the exporter exited $code on SIGTERM, want 0"
  pod logs "$ctr" >"$tmp/$1.log" 2>&1
  grep -q 'msg="Shutting down"' "$tmp/$1.log" || fail "no shutdown message in the log"
  pod rm -v "$ctr" >/dev/null || fail "podman rm failed"
  ctr=""
}
stop_ctr demo

# ---------------------------------------------------------------- 6. API
# The simulated API, with a key and a project id shaped as the real ones.
# 2000 pages make a refresh 8 requests, so the budget of 90 an hour
# spaces refreshes over 5 minutes apart: far longer than a restart takes.
step="simulated API"
hex() { od -An -tx1 -N"$1" /dev/urandom | tr -d ' \n'; }
MINTLIFY_API_KEY="mint_$(hex 16)"
MINTLIFY_PROJECT_ID=$(hex 12)
export MINTLIFY_API_KEY MINTLIFY_PROJECT_ID
go build -o "$tmp/mockapi" ./e2e/mockapi || fail "go build ./e2e/mockapi failed"
api_port=$(free_port) || fail "no free port found"
api="http://127.0.0.1:$api_port"
"$tmp/mockapi" -listen "127.0.0.1:$api_port" -project "$MINTLIFY_PROJECT_ID" -paths 2000 2>"$tmp/mockapi.log" &
api_pid=$!
api_requests() { curl -fsS --max-time 10 "$api/-/requests"; }
for ((i = 0; i < 30; i++)); do
  api_requests >/dev/null 2>&1 && break
  kill -0 "$api_pid" 2>/dev/null || fail "the simulated API exited: $(cat "$tmp/mockapi.log")"
  sleep 1
done
[ "$(api_requests)" = 0 ] || fail "the simulated API does not answer at $api/-/requests"

# ---------------------------------------------------------------- 7. run
step="run with a key"
vol="mintlify-e2e-state-$$"
pod volume create "$vol" >/dev/null || fail "podman volume create failed"
port=$(free_port) || fail "no free port found"
url="http://127.0.0.1:$port/metrics"
pv="{collector=\"pageviews\",project=\"$MINTLIFY_PROJECT_ID\"}"
up="^mintlify_up$pv 1\$"
# run_exporter NAME: the image as an operator runs it, hardened, on the
# volume; the key and the project id pass by name, from the environment.
run_exporter() {
  ctr=$(pod run -d --name "mintlify-e2e-$1-$$" --network host \
    --read-only --cap-drop ALL --security-opt no-new-privileges \
    -v "$vol:$STATE_DIR" -e MINTLIFY_API_KEY -e MINTLIFY_PROJECT_ID \
    "$image" --mintlify.api-url="$api" --web.listen-address="127.0.0.1:$port") ||
    fail "podman run failed"
  log "container ${ctr:0:12} ($1) on $url"
}
# metric FILE SERIES prints the value of one series of a scrape.
metric() { awk -v s="$2" '$1 == s {print $2}' "$1"; }
run_exporter first
wait_for_series "$url" "$tmp/first.txt" "$up" $((DEADLINE - SECONDS)) alive
check_user
first_refresh=$(metric "$tmp/first.txt" "mintlify_last_refresh_success_timestamp_seconds$pv")
interval=$(metric "$tmp/first.txt" "mintlify_refresh_interval_seconds$pv")
used=$(metric "$tmp/first.txt" 'mintlify_analytics_budget_used_requests{key="default"}')
[ -n "$first_refresh" ] && [ -n "$interval" ] && [ -n "$used" ] ||
  fail "the scrape lacks the last refresh time, the refresh interval or the budget used"
series=$(grep -c '^mintlify_page_views_total{' "$tmp/first.txt" || true)
[ "$series" -gt 0 ] || fail "no mintlify_page_views_total series"
mnt=$(pod volume inspect --format '{{.Mountpoint}}' "$vol")
for f in state.json state.json.ledger; do
  owner=$(stat -c %u:%g "$mnt/$f" 2>/dev/null) || fail "no $f on the volume"
  [ "$owner" = 65532:65532 ] || fail "$f on the volume belongs to $owner, want 65532:65532"
done
if grep -rqF -- "$MINTLIFY_API_KEY" "$mnt"; then fail "the key is written on the volume"; fi
stop_ctr first
requests=$(api_requests) || fail "cannot read the simulated API's count"
log "first run: $series page-view series, $requests requests to the simulated API (budget used: $used), refresh interval ${interval}s; state on the volume $vol"

# ---------------------------------------------------------------- 8. restart
step="restart"
run_exporter restarted
wait_for_series "$url" "$tmp/restarted.txt" "$up" $((DEADLINE - SECONDS)) alive
# A second scrape, so that a refresh the first one started has ended.
sleep 2
curl -fsS --max-time 30 "$url" -o "$tmp/restarted.txt" || fail "cannot scrape the restarted exporter"
after=$(api_requests) || fail "cannot read the simulated API's count"
since=$(awk -v t="$first_refresh" -v now="$(date +%s)" 'BEGIN {printf "%d", now - t}')
# Past the interval a refresh is due and rightly spends requests: then
# this run cannot tell a kept state from a lost one.
[ "$since" -lt "${interval%.*}" ] ||
  fail "the restart came ${since}s after the first refresh, past the refresh interval of ${interval}s: too slow for this check to tell"
[ "$after" = "$requests" ] ||
  fail "the restart cost $((after - requests)) requests to the simulated API ($requests before, $after after): the state was not kept"
grep -q "$up" "$tmp/restarted.txt" || fail "mintlify_up is not 1 after the restart"
again=$(metric "$tmp/restarted.txt" "mintlify_last_refresh_success_timestamp_seconds$pv")
[ "$again" = "$first_refresh" ] || fail "the last refresh time is $again after the restart, want the first run's $first_refresh"
used_again=$(metric "$tmp/restarted.txt" 'mintlify_analytics_budget_used_requests{key="default"}')
[ "$used_again" = "$used" ] || fail "the budget used is $used_again after the restart, want the ledger's $used"
made=$(awk '/^mintlify_api_requests_total\{/ {n += $2} END {print n + 0}' "$tmp/restarted.txt")
[ "$made" = 0 ] || fail "the restarted exporter made $made API requests, want 0"
series_again=$(grep -c '^mintlify_page_views_total{' "$tmp/restarted.txt" || true)
[ "$series_again" = "$series" ] || fail "$series_again page-view series after the restart, want $series"
log "restart: $series_again page-view series from the volume, no request to the simulated API, budget used still $used_again"

# ---------------------------------------------------------------- 9. stop
step="stop"
stop_ctr restarted
