# shellcheck shell=bash
# Shared by the shell checks: e2e/run.sh, e2e/image.sh,
# packaging/release-check.sh and packaging/package-test.sh. A check sets
# CHECK (its name in messages) and step (what it is doing, changed as it
# goes), then sources this file.

: "${CHECK:?set CHECK before sourcing e2e/lib.sh}"
step=${step:-setup}

log() { printf '%s: %s\n' "$CHECK" "$*" >&2; }
fail() {
  log "FAILED in step '$step': $*"
  exit 1
}

# free_port prints a TCP port of 127.0.0.1 that nothing listens on, chosen
# below the kernel's range of automatic ports (ip_local_port_range): make
# test runs the image check beside go test, whose servers bind port 0, and
# an automatic port could be taken by one of them (or by an outgoing
# connection) between its choice here and its use.
# check_doc_links DIR WHAT: every relative link of every Markdown file under
# DIR (its licenses/ aside) names a file inside DIR, anchors aside; WHAT
# names DIR in the messages ("the archive", "the deb"). More than 10 such
# links must be found, so an empty tree cannot pass. Prints the count.
check_doc_links() {
  local dir=$1 what=$2 md link target resolved n=0
  while IFS= read -r md; do
    while IFS= read -r link; do
      target=${link%%#*}
      case "$target" in "" | *:*) continue ;; esac
      resolved=$(realpath -m -s "$(dirname "$md")/$target")
      case "$resolved/" in "$dir"/*) ;; *) fail "$what: ${md#"$dir"/} links to $link, outside $dir" ;; esac
      [ -f "$resolved" ] || fail "$what: ${md#"$dir"/} links to $link, which $what does not hold"
      n=$((n + 1))
    done < <(grep -oE '\]\([^) ]+\)' "$md" | sed -E 's/^\]\(//; s/\)$//')
  done < <(find "$dir" -name '*.md' ! -path "$dir/licenses/*")
  [ "$n" -gt 10 ] || fail "$what: only $n relative links in its documentation"
  echo "$n"
}

free_port() {
  local low p i
  low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null) || low=32768
  [ "${low:-0}" -gt 11024 ] 2>/dev/null || low=32768
  for ((i = 0; i < 200; i++)); do
    p=$((10000 + RANDOM % (low - 10000)))
    if command -v python3 >/dev/null 2>&1; then
      if python3 -c 'import socket, sys; s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1])))' "$p" 2>/dev/null; then
        echo "$p"
        return
      fi
    elif ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return
    fi
  done
  return 1
}

# wait_for_series URL OUT PATTERN SECONDS ALIVE scrapes URL into the file
# OUT once a second until a line of it matches the grep pattern PATTERN.
# Before each try it runs the command ALIVE, which calls fail when the
# exporter has gone. It fails the check after SECONDS seconds.
wait_for_series() {
  local url=$1 out=$2 pattern=$3 deadline=$4 alive=$5 start=$SECONDS
  while [ $((SECONDS - start)) -lt "$deadline" ]; do
    "$alive"
    if curl -fsS --max-time 30 "$url" -o "$out" 2>/dev/null && grep -q "$pattern" "$out"; then
      return 0
    fi
    sleep 1
  done
  fail "no series matching $pattern on $url within ${deadline}s"
}

# apt_install PKG... installs Debian packages, through sudo when not root.
apt_install() {
  [ $# -gt 0 ] || return 0
  local sudo=""
  log "installing $* with apt-get"
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || fail "need root or sudo to install $*"
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq || fail "apt-get update failed"
  $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null || fail "apt-get install $* failed"
}

# stop_exporter PID LOG RC stops the exporter PID started by the check
# (nothing when PID is empty) and, when the check failed (RC is not 0),
# shows the end of its log LOG.
stop_exporter() {
  local pid=$1 logfile=$2 rc=$3
  [ -n "$pid" ] || return 0
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  if [ "$rc" -ne 0 ] && [ -s "$logfile" ]; then
    log "---- exporter log ----"
    tail -n 20 "$logfile" >&2
  fi
}
