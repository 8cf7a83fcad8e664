#!/usr/bin/env bash
# End-to-end test: the exporter in --demo mode, Prometheus scraping it with
# dashboards/alerts.yml loaded, and Alertmanager receiving the alerts, all
# on 127.0.0.1 at free ports, in a temporary directory.
#
#   bash e2e/run.sh          (or: make e2e)
#
# Steps (each failure names its step):
#   1. install prometheus, prometheus-alertmanager, jq, curl with apt-get if
#      missing (non-interactive; needs root or sudo)
#   2. build the exporter
#   3. start the exporter (--demo), Alertmanager and Prometheus
#   4. wait until Prometheus has scraped mintlify_up == 1
#   6. check that Prometheus evaluates every rule of alerts.yml without an
#      error on the real series
#   7. make the demo job job_demo_new fail (POST /-/demo/fail-job) and wait
#      for MintlifyAgentJobFailed for it in Alertmanager
#  7b. the README's first query, sum by (project, traffic)
#      (increase(mintlify_site_page_views_total[1h])), is above zero for
#      the demo's docs within 5 minutes of the exporter's start: the
#      simulated site keeps being read
#  7c. every query of dashboards/mintlify.json (panel targets, annotations,
#      variable selectors) has data, and never NaN, within 10 minutes of
#      the exporter's start, but those e2e/panels.sh lists as empty on the
#      demo with their reason (e2e/panels.sh)
#   8. backfill 8 days (across a month boundary) from the demo's simulated
#      API, make blocks with promtool, move them into Prometheus' data
#      directory, and check that increase(...[1d]) at past days is the
#      API's count of the day and that the history and the live scrapes
#      are one series
#   9. a second exporter (not --demo, so it keeps a state file) and a
#      backfill share one --storage.path and one key of a small budget
#      on the demo's simulated API: the backfill, needing more than the
#      budget, waits for it and is interrupted (resumably); together they
#      made no more than the budget, and neither got a 429
#  10. the demo's loop, which ran beside steps 4 to 9: the receiver
#      (started in step 3 as `make demo` starts it, with
#      dashboards/demo/routes.yml, against the demo's simulated API) got
#      MintlifyDemoUnansweredShareHigh (dashboards/demo/alerts.yml) through
#      Alertmanager (dashboards/alertmanager.yml's demo route) and acted
#      once; the job it created is tracked, its pull request shows on the
#      exporter's /metrics and in the audit log; after the merge the
#      share falls below the alert's threshold and stays there, the alert
#      resolves, having fired once over the whole run (its ALERTS history),
#      and still exactly one action was taken
#  11. stop everything it started, by PID, and check nothing is left
#
# Environment: KEEP_TMP=1 keeps the temporary directory (logs, TSDB);
# DASHBOARD=file tests another dashboard JSON than dashboards/mintlify.json.
# Needs: go, python3 or bash /dev/tcp for port probing.
set -euo pipefail

cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"

readonly DEADLINE=1500 # seconds for the whole run, install excluded: a bound on a hang, never reached by a passing run (step 7c may take until 10 minutes after the start; the loop of step 10 until about 20)
dashboard=${DASHBOARD:-dashboards/mintlify.json}
step="setup"
pids=()
tmp=""

CHECK=e2e
# shellcheck source=e2e/lib.sh
. e2e/lib.sh

show_logs() {
  [ -n "$tmp" ] && [ -d "$tmp" ] || return 0
  for f in exporter receiver alertmanager prometheus exporter2 backfill2; do
    if [ -s "$tmp/$f.log" ]; then
      log "---- last lines of $f.log ----"
      tail -n 20 "$tmp/$f.log" >&2 || true
    fi
  done
}

cleanup() {
  local rc=$?
  set +e
  if [ "$rc" -ne 0 ]; then show_logs; fi
  local pid i
  for pid in "${pids[@]}"; do
    kill -TERM "$pid" 2>/dev/null
  done
  for pid in "${pids[@]}"; do
    for ((i = 0; i < 50; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
    if kill -0 "$pid" 2>/dev/null; then
      log "process $pid did not stop on SIGTERM; sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null
    fi
    wait "$pid" 2>/dev/null
  done
  # Nothing started from the temporary directory may survive.
  local left=""
  for pid in "${pids[@]}"; do
    kill -0 "$pid" 2>/dev/null && left="$left $pid"
  done
  if [ -n "$tmp" ]; then
    local p
    # The directory goes through the environment, so awk's own command
    # line does not match.
    for p in $(ps -eo pid=,args= 2>/dev/null | E2E_DIR="$tmp" awk 'index($0, ENVIRON["E2E_DIR"]) {print $1}'); do
      [ "$p" = "$$" ] || [ "$p" = "$BASHPID" ] || left="$left $p"
    done
  fi
  if [ -n "$left" ]; then
    log "FAILED in step 'cleanup': processes still running:$left"
    rc=1
  fi
  if [ -n "$tmp" ] && [ -d "$tmp" ]; then
    if [ "${KEEP_TMP:-}" = 1 ]; then
      log "kept $tmp"
    else
      rm -rf "$tmp"
    fi
  fi
  if [ "$rc" -eq 0 ]; then log "PASSED in ${SECONDS}s"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

time_left() { [ "$SECONDS" -lt "$DEADLINE" ]; }

# ---------------------------------------------------------------- 1. tools
step="install"
am_bin() { command -v prometheus-alertmanager || command -v alertmanager || true; }
need=()
command -v promtool >/dev/null 2>&1 || need+=(prometheus)
command -v prometheus >/dev/null 2>&1 || need+=(prometheus)
[ -n "$(am_bin)" ] || need+=(prometheus-alertmanager)
command -v jq >/dev/null 2>&1 || need+=(jq)
command -v curl >/dev/null 2>&1 || need+=(curl)
if [ ${#need[@]} -gt 0 ]; then
  # shellcheck disable=SC2207
  need=($(printf '%s\n' "${need[@]}" | sort -u))
  apt_install "${need[@]}"
fi
AM=$(am_bin)
[ -n "$AM" ] || fail "no alertmanager binary after installing prometheus-alertmanager"
command -v go >/dev/null 2>&1 || fail "go is not installed"
SECONDS=0 # the deadline counts from here, without the install

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mintlify-e2e.XXXXXX")

# ---------------------------------------------------------------- ports
step="ports"
ports=()
while [ ${#ports[@]} -lt 5 ]; do
  p=$(free_port) || fail "no free port found"
  case " ${ports[*]} " in *" $p "*) continue ;; esac
  ports+=("$p")
done
exp_port=${ports[0]}
am_port=${ports[1]}
prom_port=${ports[2]}
exp2_addr="127.0.0.1:${ports[3]}"
recv_addr="127.0.0.1:${ports[4]}"
exp_addr="127.0.0.1:$exp_port"
am_url="http://127.0.0.1:$am_port"
prom_url="http://127.0.0.1:$prom_port"
log "exporter $exp_addr, receiver $recv_addr, alertmanager $am_url, prometheus $prom_url, tmp $tmp"

# ---------------------------------------------------------------- 2. build
step="build"
go build -o "$tmp/mintlify_exporter" . || fail "go build failed"

# ---------------------------------------------------------------- 3. start
step="start exporter"
"$tmp/mintlify_exporter" --demo --web.listen-address="$exp_addr" --mintlify.tracked-jobs-file="$tmp/jobs.txt" >"$tmp/exporter.log" 2>&1 &
pids+=($!)
exp_started=$SECONDS
exp_epoch=$(date -u +%s)

step="start receiver"
# As `make demo` starts it (Makefile), on the test's ports and files.
echo mint-demo-receiver-token >"$tmp/receiver.token"
MINTLIFY_API_KEY=mint_demo_public_key "$tmp/mintlify_exporter" receiver --web.listen-address="$recv_addr" \
  --config.file=dashboards/demo/routes.yml --receiver.act --mintlify.api-url="http://$exp_addr/-/demo/api" \
  --storage.path="$tmp/receiver-state.json" --receiver.bearer-token-file="$tmp/receiver.token" \
  --receiver.tracked-jobs-file="$tmp/jobs.txt" --receiver.follow-interval=10s >"$tmp/receiver.log" 2>&1 &
pids+=($!)

step="start alertmanager"
mkdir -p "$tmp/alertmanager"
# dashboards/alertmanager.yml (its demo route to the receiver included)
# with the receiver's port and shorter waits.
sed -e "s|group_wait: 30s|group_wait: 1s|" -e "s|group_wait: 10s|group_wait: 1s|" \
  -e "s|group_interval: 5m|group_interval: 5s|" -e "s|repeat_interval: 4h|repeat_interval: 1h|" \
  -e "s|http://127.0.0.1:10492/webhook|http://$recv_addr/webhook|" \
  dashboards/alertmanager.yml >"$tmp/alertmanager.yml"
for want in "group_wait: 1s" "group_interval: 5s" "http://$recv_addr/webhook"; do
  grep -qF -- "$want" "$tmp/alertmanager.yml" || fail "dashboards/alertmanager.yml changed shape: could not substitute $want"
done
"$AM" --config.file="$tmp/alertmanager.yml" --storage.path="$tmp/alertmanager" \
  --web.listen-address="127.0.0.1:$am_port" --cluster.listen-address= >"$tmp/alertmanager.log" 2>&1 &
pids+=($!)

step="start prometheus"
# dashboards/prometheus.yml with the ports and shorter intervals.
cp dashboards/alerts.yml "$tmp/alerts.yml"
mkdir -p "$tmp/demo"
cp dashboards/demo/alerts.yml "$tmp/demo/alerts.yml"
# The recording rules every 5s instead of 5m, so the dashboard's queries of
# them have data within the run.
sed -e "s|interval: 5m|interval: 5s|" dashboards/rules.yml >"$tmp/rules.yml"
grep -q "interval: 5s" "$tmp/rules.yml" || fail "dashboards/rules.yml changed shape: could not shorten its interval"
sed -e "s|'127.0.0.1:10491'|'$exp_addr'|" \
  -e "s|'127.0.0.1:10492'|'$recv_addr'|" \
  -e "s|- 127.0.0.1:9093|- 127.0.0.1:$am_port|" \
  -e "s|scrape_interval: 60s|scrape_interval: 5s|" \
  -e "s|scrape_timeout: 30s|scrape_timeout: 4s|" \
  -e "s|evaluation_interval: 1m|evaluation_interval: 5s|" \
  dashboards/prometheus.yml >"$tmp/prometheus.yml"
for want in "'$exp_addr'" "'$recv_addr'" "127.0.0.1:$am_port" "scrape_interval: 5s" "scrape_timeout: 4s" "evaluation_interval: 5s"; do
  grep -qF -- "$want" "$tmp/prometheus.yml" || fail "dashboards/prometheus.yml changed shape: could not substitute $want"
done
promtool check config "$tmp/prometheus.yml" >"$tmp/promtool.log" 2>&1 || { cat "$tmp/promtool.log" >&2; fail "promtool check config failed"; }
mkdir -p "$tmp/prometheus"
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/prometheus" \
  --storage.tsdb.retention.time=400d --web.listen-address="127.0.0.1:$prom_port" >"$tmp/prometheus.log" 2>&1 &
pids+=($!)

# wait_for DESCRIPTION TRIES COMMAND...: run COMMAND once a second until it
# succeeds, at most TRIES times and within the deadline.
wait_for() {
  local what=$1 tries=$2 i
  shift 2
  for ((i = 0; i < tries; i++)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    for pid in "${pids[@]}"; do
      kill -0 "$pid" 2>/dev/null || fail "a process died while waiting for $what (pid $pid)"
    done
    time_left || fail "deadline of ${DEADLINE}s passed while waiting for $what"
    sleep 1
  done
  fail "timed out after ${tries} tries waiting for $what"
}

step="wait for services"
wait_for "the exporter" 30 curl -fsS "http://$exp_addr/-/healthy"
wait_for "the receiver" 30 curl -fsS "http://$recv_addr/-/healthy"
wait_for "alertmanager" 30 curl -fsS "$am_url/-/ready"
wait_for "prometheus" 60 curl -fsS "$prom_url/-/ready"

# promql EXPR: prints the API's JSON answer of an instant query.
promql() { curl -fsS --max-time 10 "$prom_url/api/v1/query" --data-urlencode "query=$1"; }
# nonempty EXPR: succeeds when the query returns at least one series.
nonempty() { promql "$1" | jq -e '.status == "success" and (.data.result | length > 0)' >/dev/null; }

# ---------------------------------------------------------------- 4. first scrape
step="wait for mintlify_up"
wait_for 'mintlify_up{job="mintlify"} == 1 in Prometheus' 90 nonempty 'mintlify_up{job="mintlify"} == 1'
log "Prometheus has scraped mintlify_up == 1 after ${SECONDS}s"

# ---------------------------------------------------------------- 6. rules
# Every rule of alerts.yml is loaded and evaluates on the real series
# without an error (a many-to-many match, say, only shows on real data).
step="alert rules"
want_rules=$(grep -hE '^[[:space:]]*- alert:' dashboards/alerts.yml dashboards/demo/alerts.yml | awk '{print $3}' | sort)
[ -n "$want_rules" ] || fail "no alerts found in dashboards/alerts.yml"
rules_json() { curl -fsS --max-time 10 "$prom_url/api/v1/rules?type=alert"; }
rules_evaluated() {
  rules_json | jq -e '[.data.groups[].rules[]] | length > 0 and all(.health != "unknown")' >/dev/null
}
wait_for "Prometheus to evaluate every alerting rule" 60 rules_evaluated
rules=$(rules_json) || fail "cannot read Prometheus' rules"
have_rules=$(jq -r '.data.groups[].rules[].name' <<<"$rules" | sort)
[ "$have_rules" = "$want_rules" ] ||
  fail "Prometheus loaded the alerts [$(tr '\n' ' ' <<<"$have_rules")], dashboards/alerts.yml and demo/alerts.yml have [$(tr '\n' ' ' <<<"$want_rules")]"
bad=$(jq -r '.data.groups[].rules[] | select(.health != "ok") | "\(.name): \(.health) \(.lastError // "")"' <<<"$rules")
[ -z "$bad" ] || fail "alerting rules fail to evaluate: $bad"
log "all $(wc -l <<<"$want_rules") alerting rules evaluate without errors"
want_records=$(grep -E '^[[:space:]]*- record:' dashboards/rules.yml | awk '{print $3}' | sort)
[ -n "$want_records" ] || fail "no recording rules found in dashboards/rules.yml"
records_json() { curl -fsS --max-time 10 "$prom_url/api/v1/rules?type=record"; }
records_evaluated() {
  records_json | jq -e '[.data.groups[].rules[]] | length > 0 and all(.health == "ok")' >/dev/null
}
wait_for "Prometheus to evaluate every recording rule" 60 records_evaluated
have_records=$(records_json | jq -r '.data.groups[].rules[].name' | sort)
[ "$have_records" = "$want_records" ] ||
  fail "Prometheus loaded the recording rules [$(tr '\n' ' ' <<<"$have_records")], dashboards/rules.yml has [$(tr '\n' ' ' <<<"$want_records")]"
log "all $(wc -l <<<"$want_records") recording rules evaluate without errors"

# ---------------------------------------------------------------- 7. alert
step="agent job alert"
am_alert_count() {
  curl -fsS --max-time 10 "$am_url/api/v2/alerts?active=true" |
    jq -e --arg job "$1" '[.[] | select(.labels.alertname == "MintlifyAgentJobFailed" and .labels.job_id == $job)] | length'
}
am_has_alert() { [ "$(am_alert_count "$1")" -gt 0 ]; }
# The already failed demo job proves the path Prometheus -> Alertmanager.
wait_for 'MintlifyAgentJobFailed for job_demo_failed in Alertmanager' 60 am_has_alert job_demo_failed
# Not yet for job_demo_new, which is still active.
n=$(am_alert_count job_demo_new) || fail "cannot query Alertmanager"
[ "$n" -eq 0 ] || fail "MintlifyAgentJobFailed for job_demo_new fired before the job failed"
nonempty 'mintlify_agent_job_status{job="mintlify", job_id="job_demo_new", status="active"} == 1' ||
  fail "job_demo_new is not active in Prometheus (the demo completes it 2 minutes after start; ${SECONDS}s have passed)"
answer=$(curl -sS --max-time 10 -X POST "http://$exp_addr/-/demo/fail-job?project=blog&job=job_demo_new" -w '\n%{http_code}') ||
  fail "POST /-/demo/fail-job failed"
code=${answer##*$'\n'}
[ "$code" = 200 ] || fail "POST /-/demo/fail-job answered $code: ${answer%$'\n'*}"
log "job_demo_new failed on demand after ${SECONDS}s; waiting for the alert"
wait_for 'MintlifyAgentJobFailed for job_demo_new in Alertmanager' 180 am_has_alert job_demo_new
alert=$(curl -fsS "$am_url/api/v2/alerts?active=true" | jq -c '[.[] | select(.labels.alertname == "MintlifyAgentJobFailed" and .labels.job_id == "job_demo_new")][0]')
jq -e '.labels.project == "blog" and .labels.severity != null and (.annotations.runbook_url | test("#runbook-mintlifyagentjobfailed$"))' <<<"$alert" >/dev/null ||
  fail "unexpected alert: $alert"
log "MintlifyAgentJobFailed for job_demo_new is in Alertmanager after ${SECONDS}s: $(jq -r .annotations.summary <<<"$alert")"

# ---------------------------------------------------------------- 7b. README query
# The README's first query, as written, moves within minutes: the demo's
# simulated site keeps being read, and the demo refreshes its page views
# every two minutes or so.
step="README query"
readme_query='sum by (project, traffic) (increase(mintlify_site_page_views_total[1h]))'
grep -qF -- "$readme_query" README.md || fail "README.md no longer holds the query $readme_query"
readme_moves() {
  promql "$readme_query" |
    jq -e '[.data.result[] | select(.metric.project == "docs" and .metric.traffic == "human") | .value[1] | tonumber] | length == 1 and .[0] > 0' >/dev/null
}
left=$((exp_started + 300 - SECONDS))
[ "$left" -gt 0 ] || left=1
wait_for "the README query above 0 for project docs within 5 minutes of the exporter's start" "$left" readme_moves
log "the README query is above 0 for docs $((SECONDS - exp_started))s after the exporter started: $(promql "$readme_query" | jq -c '[.data.result[] | {p: .metric.project, t: .metric.traffic, v: .value[1]}]')"

# ---------------------------------------------------------------- 7c. panels
# Every panel shows data within 10 minutes of the exporter's start, and
# never NaN (e2e/panels.sh); it stops as soon as every one has.
step="dashboard panels"
path=$(promql 'topk(1, mintlify_page_views_total{job="mintlify", project="docs"})' | jq -r '.data.result[0].metric.path // empty')
[ -n "$path" ] || fail "no mintlify_page_views_total path for project docs to use as \$path"
log "using \$path=$path"
panels_from=$(($(date +%s) - SECONDS + exp_started))
PROM_URL=$prom_url INSTANCE=$exp_addr PANEL_PATH=$path FROM=$panels_from UNTIL=$((panels_from + 600)) \
  DASHBOARD=$dashboard TMP=$tmp bash e2e/panels.sh || fail "a dashboard panel shows no data or NaN (above)"
log "every panel has data $((SECONDS - exp_started))s after the exporter started"

# ---------------------------------------------------------------- 8. backfill
step="backfill"
demo_api="http://$exp_addr/-/demo/api"
# Eight days across the 1st of this month (where the month-to-date counters
# restart). The demo exporter keeps no ledger to share; its simulated
# organization allows 1,000 requests an hour, of which the demo spends at
# most 600, so this backfill and step 9 fit beside it.
month_start=$(date -u +%Y-%m-01)
from=$(date -u -d "$month_start - 4 days" +%F)
to=$(date -u -d "$month_start + 3 days" +%F)
yesterday=$(date -u -d yesterday +%F)
if [[ "$to" > "$yesterday" ]]; then to=$yesterday; fi
MINTLIFY_API_KEY=mint_demo_public_key "$tmp/mintlify_exporter" backfill \
  --mintlify.api-url="$demo_api" --project docs \
  --from "$from" --to "$to" --site-only --label job=mintlify --label instance="$exp_addr" \
  --storage.path= --yes --output "$tmp/history.om" 2>"$tmp/backfill.log" ||
  { cat "$tmp/backfill.log" >&2; fail "backfill failed"; }
promtool tsdb create-blocks-from openmetrics "$tmp/history.om" "$tmp/blocks" >"$tmp/blocks.log" 2>&1 ||
  { cat "$tmp/blocks.log" >&2; fail "promtool tsdb create-blocks-from openmetrics failed"; }
mv "$tmp"/blocks/* "$tmp/prometheus/"
# promql_at EXPR UNIXTIME: an instant query at a past time.
promql_at() { curl -fsS --max-time 10 "$prom_url/api/v1/query" --data-urlencode "query=$1" --data-urlencode "time=$2"; }
human='mintlify_site_page_views_total{job="mintlify",instance="'"$exp_addr"'",project="docs",traffic="human"}'
past=$(date -u -d "$to 00:00" +%s)
has_history() { promql_at "$human" "$past" | jq -e '.data.result | length == 1' >/dev/null; }
# Prometheus takes in new blocks at its next reload (about a minute).
wait_for "Prometheus to load the backfilled blocks" 150 has_history
checked=""
for day in "$(date -u -d "$from + 1 day" +%F)" "$month_start" "$to"; do
  if [[ "$day" > "$to" || " $checked " == *" $day "* ]]; then continue; fi
  checked="$checked $day"
  next=$(date -u -d "$day + 1 day" +%F)
  end=$(date -u -d "$next 00:00" +%s)
  want=$(curl -fsS --max-time 10 -H "Authorization: Bearer mint_demo_public_key" \
    "$demo_api/v1/analytics/docs/views?dateFrom=$day&dateTo=$next&limit=1&offset=0" | jq -r '.totals.human') ||
    fail "cannot ask the demo API for $day"
  got=$(promql_at "increase(${human}[1d])" "$end" | jq -r '.data.result[0].value[1] // "none"')
  jq -en --arg got "$got" --arg want "$want" '($got | tonumber? // -1) as $g | ($want | tonumber) as $w | (($g - $w) | fabs) <= 1e-6 * ($w + 1)' >/dev/null ||
    fail "increase() over $day is $got in Prometheus, the API counted $want"
done
# History and live scrapes are one series: one series holds both.
series=$(promql "count_over_time(${human}[50d])" | jq -r '.data.result | length')
samples=$(promql "count_over_time(${human}[50d])" | jq -r '.data.result[0].value[1] // 0')
[ "$series" = 1 ] && [ "${samples%.*}" -gt 7 ] ||
  fail "backfilled and live samples are not one series: $series series, $samples samples"
log "backfill of $from to $to loaded: increase() matches the API on$checked, one series of $samples samples"

# ---------------------------------------------------------------- 9. shared budget
# The demo keeps no state file, so a second exporter, reading the demo's
# simulated API like any other, shares its state file with a backfill.
# Their key's budget (17 - 2 = 15 an hour) is the binding limit: the
# simulated API allows the organization 1,000 an hour, of which the demo
# exporter and step 8 used part.
step="shared budget"
shared="$tmp/shared"
mkdir -p "$shared"
cat >"$shared/config.yml" <<EOF
global:
  api_url: $demo_api
keys:
  - name: shared
    api_key_env: MINTLIFY_API_KEY
    budget_per_hour: 17
    reserve: 2
projects:
  - id: blog
    name: shared-blog
EOF
MINTLIFY_API_KEY=mint_demo_public_key "$tmp/mintlify_exporter" --config.file="$shared/config.yml" \
  --storage.path="$shared/state.json" --web.listen-address="$exp2_addr" >"$tmp/exporter2.log" 2>&1 &
pids+=($!)
metrics2() { curl -fsS --max-time 10 "http://$exp2_addr/metrics"; }
up2() { metrics2 | grep -qE '^mintlify_up\{collector="pageviews",project="shared-blog"\} 1$'; }
wait_for "the second exporter's first refresh" 60 up2
from2=$(date -u -d '30 days ago' +%F)
MINTLIFY_API_KEY=mint_demo_public_key "$tmp/mintlify_exporter" backfill --config.file="$shared/config.yml" \
  --storage.path="$shared/state.json" --from "$from2" --site-only --yes \
  --output "$shared/history.om" 2>"$tmp/backfill2.log" &
bf=$!
pids+=("$bf")
bf_waits() { grep -q "for the budget" "$tmp/backfill2.log"; }
wait_for "the backfill to wait for the shared budget" 60 bf_waits
kill -INT "$bf"
rc=0
wait "$bf" || rc=$?
# It has exited: later waits must not take it for a process that died.
alive_pids=()
for pid in "${pids[@]}"; do [ "$pid" = "$bf" ] || alive_pids+=("$pid"); done
pids=("${alive_pids[@]}")
[ "$rc" = 1 ] || fail "the interrupted backfill exited $rc, want 1 (resumable)"
done2=$(sed -nE 's/.*interrupted; ([0-9]+) of 30 requests are done.*/\1/p' "$tmp/backfill2.log")
[ -n "$done2" ] && [ -s "$shared/history.om.partial" ] || fail "no resumable interruption in backfill2.log"
if grep -q 429 "$tmp/backfill2.log"; then fail "the backfill got a 429: $(grep 429 "$tmp/backfill2.log" | head -1)"; fi
m2=$(metrics2) || fail "cannot scrape the second exporter"
if grep -qE '^mintlify_api_requests_total\{code="429"' <<<"$m2"; then
  fail "the second exporter got a 429: $(grep -E '^mintlify_api_requests_total\{code="429"' <<<"$m2")"
fi
# Its analytics requests: every endpoint but the agent jobs'.
exp_made=$(awk '/^mintlify_api_requests_total\{/ && $1 !~ /job/ {n += $2} END {print n + 0}' <<<"$m2")
ledger=$(jq -r '[.keys[] | ((.writers.exporter // []) | length), ((.writers.backfill // []) | length)] | "\(.[0]) \(.[1])"' "$shared/state.json.ledger") ||
  fail "cannot read the ledger $shared/state.json.ledger"
read -r ledger_exp ledger_bf <<<"$ledger"
log "shared budget: the exporter made $exp_made analytics requests (ledger: $ledger_exp), the backfill $done2 (ledger: $ledger_bf) before it waited"
[ "$ledger_bf" = "$done2" ] || fail "the ledger records $ledger_bf backfill requests, the backfill made $done2"
[ "$done2" -ge 1 ] && [ "$exp_made" -ge 1 ] || fail "the exporter and the backfill should both have made requests"
[ $((exp_made + done2)) -le 15 ] && [ $((ledger_exp + ledger_bf)) -le 15 ] ||
  fail "together they made $((exp_made + done2)) requests (ledger: $((ledger_exp + ledger_bf))), over the budget of 15"

# ---------------------------------------------------------------- 10. the demo's loop
# It ran beside steps 4 to 9: the demo's docs answer 30% of their
# conversations unanswered from the start, the demo alert fires within
# minutes and reaches the receiver; its job completes with a pull request
# 2 minutes later, merged a minute after that, and the share falls.
step="demo loop"
recv_metrics() { curl -fsS --max-time 10 "http://$recv_addr/metrics"; }
acted() { recv_metrics | awk '/^mintlify_receiver_actions_total\{/ && /outcome="acted"/ {n += $2} END {print n + 0}'; }
has_acted() { [ "$(acted)" -ge 1 ]; }
wait_for "the receiver to act on MintlifyDemoUnansweredShareHigh" 300 has_acted
audit="$tmp/receiver-audit.jsonl"
acted_lines=$(jq -c 'select(.outcome == "acted")' "$audit") || fail "cannot read the audit log $audit"
[ "$(grep -c . <<<"$acted_lines")" = 1 ] || fail "the audit log holds $(grep -c . <<<"$acted_lines") actions, want 1: $acted_lines"
jq -e '.route == "demo-fill-gap" and .project == "docs" and .action == "job" and .dry_run != true and (.prompt | test("MintlifyDemoUnansweredShareHigh")) and (.job_id | length > 0)' <<<"$acted_lines" >/dev/null ||
  fail "unexpected action in the audit log: $acted_lines"
job_id=$(jq -r .job_id <<<"$acted_lines")
acted_at=$(date -u -d "$(jq -r .time <<<"$acted_lines")" +%s) || fail "cannot read the action's time"
log "the receiver acted once, $((acted_at - exp_epoch))s after the exporter started: job $job_id"
[ "$(cat "$tmp/jobs.txt")" = "docs/$job_id" ] || fail "the tracked-jobs file holds [$(tr '\n' ' ' <<<"$(cat "$tmp/jobs.txt")")], want docs/$job_id"
# The scrape is read whole before grep: with pipefail, grep -q leaving
# early would fail curl with SIGPIPE.
pr_shown() {
  local m
  m=$(curl -fsS --max-time 10 "http://$exp_addr/metrics") && grep -qE "^mintlify_agent_job_pull_request_info\{.*job_id=\"$job_id\"" <<<"$m"
}
wait_for "the job's pull request on the exporter's /metrics" 240 pr_shown
pr_audited() { jq -e --arg j "$job_id" 'select(.outcome == "pr_opened" and .job_id == $j and (.pr_link | test("/pull/")))' "$audit"; }
wait_for "the job's pull request in the audit log" 60 pr_audited
log "job $job_id shows its pull request on /metrics and in the audit log after ${SECONDS}s"
# The demo alert's share, without its threshold (with its 10 conversations at least).
share='sum(increase(mintlify_assistant_conversations_total{job="mintlify",project="docs",resolution="unanswered"}[5m])) / (sum(increase(mintlify_assistant_conversations_total{job="mintlify",project="docs"}[5m])) >= 10)'
before=$(promql_at "$share" "$acted_at" | jq -r '.data.result[0].value[1] // "none"')
jq -en --arg v "$before" '($v | tonumber? // 0) > 0.15' >/dev/null || fail "the share when the receiver acted was $before, not above the alert's 15%"
# A window without a refresh in it is 0/0: NaN, which jq 1.6 orders below
# every number; it is no fall.
# fell_at is the instant the fall was seen at: a query's own time, as
# `date +%s` after it would be up to a second earlier, before the fall.
share_fell() {
  fell_at=$(date -u +%s)
  promql_at "$share" "$fell_at" | jq -e '.data.result[0].value[1] | tonumber | . == . and . < 0.15' >/dev/null
}
# The share can fall only after the merge (a minute after the pull
# request), a whole 5-minute window of conversations since, and the
# exporter's next refresh of them (up to its interval, some 200 s on the
# demo): up to about 10 minutes, by the demo's clock, not the machine's.
wait_for "the unanswered share to fall below 15% after the merge" 900 share_fell
demo_resolved() { rules_json | jq -e '[.data.groups[].rules[] | select(.name == "MintlifyDemoUnansweredShareHigh") | .state] == ["inactive"]' >/dev/null; }
wait_for "MintlifyDemoUnansweredShareHigh to resolve" 120 demo_resolved
after=$(promql "$share" | jq -r '.data.result[0].value[1]')
# Over the whole run, at each evaluation (5 s): the alert fired once (its
# firing ALERTS series is one run of points; a resolution writes a stale
# marker, and firing again takes the rule's minute), and once below 15%
# the share stayed there.
promql_range() {
  curl -fsS --max-time 10 "$prom_url/api/v1/query_range" --data-urlencode "query=$1" \
    --data-urlencode "start=$2" --data-urlencode "end=$(date -u +%s)" --data-urlencode step=5
}
firings=$(promql_range 'ALERTS{alertname="MintlifyDemoUnansweredShareHigh",alertstate="firing"}' "$exp_epoch" |
  jq '[.data.result[].values | map(.[0]) | . as $t | range(length) | select(. == 0 or $t[.] - $t[. - 1] > 5)] | length') ||
  fail "cannot read the alert's history"
[ "$firings" = 1 ] || fail "MintlifyDemoUnansweredShareHigh fired $firings times over the run, want once"
highest=$(promql_range "$share" "$fell_at" | jq -r '[.data.result[].values[][1] | tonumber? | select(. == .)] | max // "none"') ||
  fail "cannot read the share's history"
jq -en --arg v "$highest" '$v | tonumber < 0.15' >/dev/null ||
  fail "the share rose to $highest after it fell below 15%"
log "the share's highest value after it fell below 15%: $highest"
[ "$(acted)" = 1 ] && [ "$(jq -c 'select(.outcome == "acted")' "$audit" | grep -c .)" = 1 ] ||
  fail "more than one action: $(recv_metrics | grep '^mintlify_receiver_actions_total')"
log "the loop closed after ${SECONDS}s: alert -> one job ($job_id) -> pull request -> the share from $before to $after; decisions: $(jq -r .outcome "$audit" | sort | uniq -c | tr -s ' \n' ' ')"

step="cleanup"
