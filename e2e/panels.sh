#!/usr/bin/env bash
# Every panel of the dashboard shows data on the demo: each query of
# dashboards/mintlify.json (every target of every panel, the annotations,
# the variables' selectors), with the Grafana variables substituted as for
# one project, is run against a Prometheus that scrapes `mintlify_exporter
# --demo` and loads dashboards/rules.yml, until each has returned a number.
# A query that answers NaN or an infinity fails at once; one still empty at
# the deadline fails, named by its panel. It stops as soon as every query
# has data. e2e/run.sh runs it (step 5), with:
#
#   PROM_URL      Prometheus, e.g. http://127.0.0.1:9090
#   INSTANCE      the exporter's instance label ($instance)
#   PANEL_PATH    a path of the demo's docs project ($path)
#   FROM          Unix time the data starts (the exporter's start): the
#                 start of the range queries of time-series targets
#   UNTIL         Unix time by which every query must have data
#   DASHBOARD     the dashboard file (default dashboards/mintlify.json)
#   TMP           a directory for its files
set -euo pipefail

cd "$(dirname "$0")/.."
CHECK=e2e-panels
step="setup"
# shellcheck source=e2e/lib.sh
. e2e/lib.sh

: "${PROM_URL:?}" "${INSTANCE:?}" "${PANEL_PATH:?}" "${FROM:?}" "${UNTIL:?}" "${TMP:?}"
dashboard=${DASHBOARD:-dashboards/mintlify.json}

# Queries that may be empty on a healthy demo, each with the reason. A
# query listed here is still run and must not fail (an error, NaN); whether
# it had data is logged.
declare -A may_be_empty=(
  ["annotation Receiver actions"]="the receiver's own series (mintlify_receiver_*): the demo's receiver acts only once the demo alert has fired, minutes after this check (step 10 checks that action)"
  ["panel 51 target A"]="needs a receiver action (mintlify_receiver_project_last_action_timestamp_seconds), which comes minutes after this check, and then an hour of data; its rules are tested by promtool in dashboards/rules_test.yml"
  ["panel 51 target B"]="as target A: no receiver action"
  ["panel 51 target C"]="as target A: no receiver action"
  ["panel 45 target B"]="the recording rule project:mintlify_assistant_conversations:unanswered_ratio1d has no value until Prometheus holds a sample a day old (the first day of an install, on purpose: see dashboards/rules.yml)"
  ["panel 32 target C"]="the thumbs-down share over the range: the demo's page feedback counters do not move within a run, so there is no feedback in the range to divide by"
  ["panel 34 target A"]="the thumbs-up share over the range: as panel 32 target C, no feedback in the range"
)

# One JSON object per query: where it comes from, whether Grafana runs it
# as an instant or a range query, and the expression with the variables
# replaced as Grafana would for a single selection and its default range
# (24h). $__rate_interval: Grafana's is at least 4 scrape intervals (20s
# here); 1m holds several samples.
step="read the dashboard"
jq -c --arg instance "$INSTANCE" --arg path "$PANEL_PATH" '
  def subst: gsub("\\$__rate_interval|\\$\\{__rate_interval\\}"; "1m")
    | gsub("\\$__range|\\$\\{__range\\}"; "24h")
    | gsub("\\$job\\b|\\$\\{job\\}"; "mintlify")
    | gsub("\\$instance\\b|\\$\\{instance\\}"; $instance)
    | gsub("\\$project\\b|\\$\\{project\\}"; "docs")
    | gsub("\\$window\\b|\\$\\{window\\}"; "24h")
    | gsub("\\$path\\b|\\$\\{path\\}"; $path);
  ( .templating.list[] | select(.type == "query")
    | {where: ("variable " + .name), title: .name, instant: true,
       expr: (.definition | capture("^label_values\\((?<sel>.+),\\s*[a-zA-Z_][a-zA-Z0-9_]*\\)$").sel | subst)} ),
  ( .annotations.list[] | select(.expr != null)
    | {where: ("annotation " + .name), title: .name, instant: false, expr: (.expr | subst)} ),
  ( [.panels[] | ., (.panels[]?)] | .[] | select(.type != "row") | . as $p | .targets[]
    | {where: "panel \($p.id) target \(.refId)", title: $p.title, instant: (.instant == true),
       expr: (.expr | subst)} )
' "$dashboard" >"$TMP/queries.jsonl" || fail "cannot read the queries of $dashboard"
total=$(wc -l <"$TMP/queries.jsonl")
[ "$total" -gt 0 ] || fail "no queries found in $dashboard"
if jq -r .expr "$TMP/queries.jsonl" | grep -q '\$'; then
  jq -r .expr "$TMP/queries.jsonl" | grep '\$' >&2
  fail "unsubstituted variables left in the queries above"
fi
# Every name in the list of queries that may be empty is a query of the
# dashboard: a renumbered panel must not turn the list into a blind spot.
for w in "${!may_be_empty[@]}"; do
  jq -s -e --arg w "$w" 'any(.[]; .where == $w)' "$TMP/queries.jsonl" >/dev/null ||
    fail "the list of queries that may be empty names \"$w\", which $dashboard does not have"
done

# answer N: the answer of query N, an instant query now or a range query
# from FROM to now at 15s (what a time-series panel shows).
answer() {
  local q expr now
  q=$(sed -n "$1p" "$TMP/queries.jsonl")
  expr=$(jq -r .expr <<<"$q")
  now=$(date +%s)
  if [ "$(jq -r .instant <<<"$q")" = true ]; then
    curl -fsS --max-time 20 "$PROM_URL/api/v1/query" --data-urlencode "query=$expr" --data-urlencode "time=$now"
  else
    curl -fsS --max-time 20 "$PROM_URL/api/v1/query_range" --data-urlencode "query=$expr" \
      --data-urlencode "start=$FROM" --data-urlencode "end=$now" --data-urlencode "step=15"
  fi
}

# verdict ANSWER: "data" (at least one number and no NaN), "nan" (a NaN or
# an infinity somewhere: a panel must show a number or nothing), "empty",
# or "error".
verdict() {
  jq -r '
    if .status != "success" then "error"
    else [.data.result[] | ((.value // empty), (.values // [])[]) | .[1]] as $v
      | if any($v[]; . == "NaN" or . == "+Inf" or . == "-Inf") then "nan"
        elif ($v | length) > 0 then "data"
        else "empty" end
    end' <<<"$1"
}

describe() { sed -n "$1p" "$TMP/queries.jsonl" | jq -r '"\(.where) (\(.title)): \(.expr)"'; }

step="panels"
round=0
pending=""
for ((n = 1; n <= total; n++)); do
  w=$(sed -n "${n}p" "$TMP/queries.jsonl" | jq -r .where)
  [ -n "${may_be_empty[$w]:-}" ] || pending="$pending $n"
done
while :; do
  still=""
  for n in $pending; do
    a=$(answer "$n") || fail "Prometheus did not answer $(describe "$n")"
    case $(verdict "$a") in
      data) ;;
      nan) fail "NaN or infinite values, where the panel must show a number or nothing: $(describe "$n"); answer: $(head -c 300 <<<"$a")" ;;
      error) fail "query failed: $(describe "$n"): $(head -c 300 <<<"$a")" ;;
      *) still="$still $n" ;;
    esac
  done
  pending=$still
  [ -z "$pending" ] && break
  [ "$(date +%s)" -lt "$UNTIL" ] || break
  if [ $((round++ % 6)) -eq 0 ]; then
    log "$(wc -w <<<"$pending") of $total queries without data yet, $(($(date +%s) - FROM))s after the exporter started:$(for n in $pending; do sed -n "${n}p" "$TMP/queries.jsonl" | jq -r '" [\(.where)]"'; done | tr -d '\n')"
  fi
  sleep 5
done
if [ -n "$pending" ]; then
  for n in $pending; do log "EMPTY: $(describe "$n")"; done
  fail "$(wc -w <<<"$pending") of $total dashboard queries had no data $(($(date +%s) - FROM))s after the exporter started"
fi
log "$total dashboard queries: every one had data $(($(date +%s) - FROM))s after the exporter started, but the ${#may_be_empty[@]} that may be empty on the demo"

# The queries that may be empty must still be valid and never NaN.
step="may be empty"
for ((n = 1; n <= total; n++)); do
  w=$(sed -n "${n}p" "$TMP/queries.jsonl" | jq -r .where)
  [ -n "${may_be_empty[$w]:-}" ] || continue
  a=$(answer "$n") || fail "Prometheus did not answer $(describe "$n")"
  case $(verdict "$a") in
    empty) log "empty, as it may be on the demo: $w: ${may_be_empty[$w]}" ;;
    data) log "has data this time, though it may be empty on the demo: $w: ${may_be_empty[$w]}" ;;
    nan) fail "NaN or infinite values: $(describe "$n")" ;;
    *) fail "query failed: $(describe "$n"): $(head -c 300 <<<"$a")" ;;
  esac
done
