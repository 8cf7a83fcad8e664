#!/usr/bin/env bash
# Tests the deb and rpm packages (make package-test, run by CI as root). It
# installs a package: run it on a test machine or in CI, not on a server
# that runs the exporter. It refuses to start if the package or any of its
# paths is already there, and leaves the machine as it found it (the trap
# purges the package and removes what the test made, even on failure).
#
#   1. build the packages of this machine's architecture (make release
#      RELEASE_PLATFORMS=linux/ARCH) into a temporary directory
#   2. deb: dpkg-deb -I fields and conffiles, dpkg-deb -c paths, modes and
#      owners; the unit is packaging/gen's, the configuration
#      deploy/systemd's; the dashboard and rules are dashboards/'s, the man
#      page is --help-man's, and every relative link of the documentation
#      in /usr/share/doc/mintlify-exporter resolves inside it; lintian
#      --fail-on error,warning
#   3. rpm: rpm -qip fields, rpm -qlp paths, modes, config(noreplace)
#      flags and the unit's digest; systemd-analyze verify of its unit
#   4. dpkg -i; status, conffiles (dpkg-query), modes, no account made
#      (DynamicUser); systemd-analyze verify of the installed units; the
#      receiver's unit installed, not enabled, its routes file checks
#   5. run ExecStart as the service would: ARGS from
#      /etc/default/mintlify_exporter, --demo instead of --config.file (the
#      two exclude each other), an unused uid of systemd's DynamicUser range,
#      STATE_DIRECTORY and the state directory systemd would make, umask
#      0077; scrape /metrics until page views show (DEADLINE seconds), stop
#      it, check the state file it left
#   6. edit /etc/default/mintlify_exporter and mintlify.yml, add the key
#      file, upgrade to a later version built for the test: the edits, the
#      key and the state stay
#   7. dpkg -r: binary and unit gone; configuration, key and state kept
#   8. dpkg -P: configuration, key and state gone
#
# KEEP_TMP=1 keeps the temporary directory.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin:/usr/sbin:/sbin"

readonly DEADLINE=${DEADLINE:-300}
readonly PKG=mintlify-exporter
readonly UNIT=/usr/lib/systemd/system/mintlify_exporter.service
readonly RUNIT=/usr/lib/systemd/system/mintlify_exporter-receiver.service
step=setup
tmp=""
pid=""
made_private="" # /var/lib/private did not exist before

CHECK=package-test
# shellcheck source=e2e/lib.sh
. e2e/lib.sh

# Paths the package or its service own; none may exist before the test.
owned=(/usr/bin/mintlify_exporter "$UNIT" "$RUNIT" /etc/default/mintlify_exporter /etc/default/mintlify_exporter-receiver /etc/mintlify_exporter
  /var/lib/mintlify_exporter /var/lib/private/mintlify_exporter "/usr/share/doc/$PKG"
  "/usr/share/lintian/overrides/$PKG")

cleanup() {
  local rc=$?
  set +e
  stop_exporter "$pid" "$tmp/demo.log" "$rc"
  if [ "$step" != setup ]; then
    if dpkg-query -W "$PKG" >/dev/null 2>&1; then
      dpkg -P "$PKG" >/dev/null 2>&1 || log "cleanup: dpkg -P $PKG failed"
    fi
    rm -rf /var/lib/private/mintlify_exporter /etc/mintlify_exporter
    [ -L /var/lib/mintlify_exporter ] && rm -f /var/lib/mintlify_exporter
    [ -n "$made_private" ] && rmdir /var/lib/private 2>/dev/null
    for p in "${owned[@]}"; do
      [ -e "$p" ] || [ -L "$p" ] && log "cleanup: $p is still there"
    done
  fi
  if [ -n "$tmp" ] && [ -d "$tmp" ]; then
    if [ "${KEEP_TMP:-}" = 1 ]; then log "kept $tmp"; else rm -rf "$tmp"; fi
  fi
  [ "$rc" -eq 0 ] && log "PASSED in ${SECONDS}s"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ "$(id -u)" -eq 0 ] || fail "run as root: the test installs and removes the package"
for tool in dpkg dpkg-deb dpkg-query rpm lintian systemd-analyze curl setpriv getent; do
  command -v "$tool" >/dev/null || fail "$tool is missing (apt-get install lintian rpm systemd curl)"
done
status=$(dpkg-query -W -f='${Status}' "$PKG" 2>/dev/null || true)
case "$status" in
"" | *not-installed) ;;
*) fail "$PKG is known to dpkg ($status); purge it first" ;;
esac
for p in "${owned[@]}"; do
  { [ -e "$p" ] || [ -L "$p" ]; } && fail "$p exists; the test would change or delete it"
done
[ -d /var/lib/private ] || made_private=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mintlify-package-test.XXXXXX")
chmod 0755 "$tmp"

# ------------------------------------------------------------ 1. build
step="build"
debarch=$(dpkg --print-architecture)
case "$debarch" in
amd64) goarch=amd64 rpmarch=x86_64 ;;
arm64) goarch=arm64 rpmarch=aarch64 ;;
armhf) goarch=armv7 rpmarch=armv7hl ;;
*) fail "no package for the architecture $debarch" ;;
esac
version=$(sh packaging/version.sh)
make --no-print-directory release RELEASE_DIR="$tmp/out" RELEASE_PLATFORMS="linux/$goarch" \
  RELEASE_VERSION="$version" >"$tmp/build.log" 2>&1 || { tail -n 30 "$tmp/build.log" >&2; fail "make release failed"; }
read -r _ debversion rpmversion < <(bash packaging/pkgversion.sh "$version") || fail "pkgversion.sh $version"
deb="$tmp/out/${PKG}_${debversion}_$debarch.deb"
rpmf="$tmp/out/$PKG-$rpmversion.$rpmarch.rpm"
[ -f "$deb" ] || fail "no $(basename "$deb"); built: $(ls "$tmp/out")"
[ -f "$rpmf" ] || fail "no $(basename "$rpmf"); built: $(ls "$tmp/out")"
go run ./packaging/gen -format deb -out "$tmp/deb.service" || fail "packaging/gen deb"
go run ./packaging/gen -format rpm -out "$tmp/rpm.service" || fail "packaging/gen rpm"
for f in deb rpm; do
  go run ./packaging/gen -unit deploy/systemd/mintlify_exporter-receiver.service -format "$f" -out "$tmp/$f-receiver.service" ||
    fail "packaging/gen $f receiver"
done

# expect_eq WHAT GOT WANT
expect_eq() {
  [ "$2" = "$3" ] || fail "$1 is '$2', want '$3'"
}
# The documentation, dashboard, rules and man page every package holds
# (the rest of the documentation is checked by its links below).
packaged_docs="0644 root root /usr/share/doc/$PKG/CHANGELOG.md
0644 root root /usr/share/doc/$PKG/docs/configuration.md
0644 root root /usr/share/doc/$PKG/docs/deployment.md
0644 root root /usr/share/doc/$PKG/dashboards/mintlify.json
0644 root root /usr/share/doc/$PKG/dashboards/alerts.yml
0644 root root /usr/share/doc/$PKG/dashboards/rules.yml
0644 root root /usr/share/doc/$PKG/dashboards/mixin.libsonnet
0644 root root /usr/share/man/man1/mintlify_exporter.1.gz"
# The files every package must hold, with mode and owner (licenses/ and the
# rest of the documentation are checked by name below).
common_files="0755 root root /etc/mintlify_exporter
0644 root root /etc/mintlify_exporter/mintlify.yml
0644 root root /etc/mintlify_exporter/routes.yml
0755 root root /usr/bin/mintlify_exporter
0644 root root $UNIT
0644 root root $RUNIT"

# ------------------------------------------------------------ 2. deb
step="deb metadata"
field() { dpkg-deb -f "$deb" "$1"; }
expect_eq "deb Package" "$(field Package)" "$PKG"
expect_eq "deb Version" "$(field Version)" "$debversion"
expect_eq "deb Architecture" "$(field Architecture)" "$debarch"
expect_eq "deb Homepage" "$(field Homepage)" "https://github.com/mintlify-exporter/mintlify_exporter"
expect_eq "deb Section" "$(field Section)" "net"
# Outputs are read whole before grep: with pipefail, grep -q leaving early
# would fail the writer with SIGPIPE.
grep -Eq '^[^<]+ <[^@> ]+@[^> ]+>$' <<<"$(field Maintainer)" || fail "deb Maintainer '$(field Maintainer)' is not 'Name <address>'"
description=$(field Description)
grep -q '^Prometheus exporter for Mintlify' <<<"${description%%$'\n'*}" || fail "deb Description: $(field Description | head -n 1)"
[ "$(wc -l <<<"$description")" -ge 3 ] || fail "deb Description has no long description"
grep -Eq '^ +[0-9]+ bytes, +[0-9]+ lines +\* +postinst ' <<<"$(dpkg-deb -I "$deb")" || fail "no executable postinst in dpkg-deb -I"
expect_eq "deb conffiles" "$(dpkg-deb -I "$deb" conffiles | sort)" "/etc/default/mintlify_exporter
/etc/default/mintlify_exporter-receiver
/etc/mintlify_exporter/mintlify.yml
/etc/mintlify_exporter/routes.yml"

step="deb contents"
# dpkg-deb -c: "drwxr-xr-x root/root 0 date time ./path"
perm() { # ls-style mode string to octal; "link" for a symbolic link
  local s=$1 o=0 i b
  if [ "${s:0:1}" = l ]; then
    printf link
    return
  fi
  for i in 1 2 3 4 5 6 7 8 9; do
    b=${s:i:1}
    o=$((o * 2))
    [ "$b" != - ] && o=$((o + 1))
  done
  printf '%04o' "$o"
}
dpkg-deb -c "$deb" | while read -r mode owner _ _ _ path _; do
  printf '%s %s %s\n' "$(perm "$mode")" "${owner/\// }" "${path#.}"
done | sed 's,/$,,' | sort -k4 >"$tmp/deb.list"
for want in "$common_files" "0644 root root /etc/default/mintlify_exporter" \
  "0644 root root /etc/default/mintlify_exporter-receiver" "0644 root root /usr/share/doc/$PKG/copyright" "0644 root root /usr/share/doc/$PKG/changelog.Debian.gz" \
  "0644 root root /usr/share/doc/$PKG/NOTICE" "0644 root root /usr/share/doc/$PKG/README.md" \
  "0644 root root /usr/share/doc/$PKG/licenses/github.com/prometheus/client_golang/LICENSE" \
  "0644 root root /usr/share/lintian/overrides/$PKG" "$packaged_docs"; do
  while read -r line; do
    grep -qxF "$line" "$tmp/deb.list" || fail "the deb lacks '$line'; it holds:
$(grep -v /licenses/ "$tmp/deb.list")"
  done <<<"$want"
done
# Nothing outside these places, nothing owned by anyone but root, no
# directory or file writable by others.
bad=$(awk '$4 !~ "^/(etc(/default|/mintlify_exporter)?|usr(/bin|/lib(/systemd(/system)?)?|/share(/doc|/lintian(/overrides)?|/man(/man1)?)?)?)(/|$)" || $2 != "root" || $3 != "root" || $1 ~ /[2367]$/' "$tmp/deb.list")
[ -z "$bad" ] || fail "unexpected entries in the deb: $bad"
grep -q '^.... root root /etc/sysconfig' "$tmp/deb.list" && fail "the deb holds /etc/sysconfig"

step="deb files"
dpkg-deb -x "$deb" "$tmp/debroot"
cmp -s "$tmp/debroot$UNIT" "$tmp/deb.service" || fail "the deb's unit is not packaging/gen's: $(diff "$tmp/deb.service" "$tmp/debroot$UNIT" | head -n 5)"
cmp -s "$tmp/debroot/etc/mintlify_exporter/mintlify.yml" deploy/systemd/mintlify.yml || fail "the deb's mintlify.yml is not deploy/systemd/mintlify.yml"
cmp -s "$tmp/debroot$RUNIT" "$tmp/deb-receiver.service" || fail "the deb's receiver unit is not packaging/gen's"
cmp -s "$tmp/debroot/etc/mintlify_exporter/routes.yml" deploy/systemd/routes.yml || fail "the deb's routes.yml is not deploy/systemd/routes.yml"
cmp -s "$tmp/debroot/etc/default/mintlify_exporter-receiver" packaging/mintlify_exporter-receiver.default || fail "the deb's receiver /etc/default file is not packaging/mintlify_exporter-receiver.default"
cmp -s "$tmp/debroot/etc/default/mintlify_exporter" packaging/mintlify_exporter.default || fail "the deb's /etc/default file is not packaging/mintlify_exporter.default"
grep -qx 'ARGS=""' "$tmp/debroot/etc/default/mintlify_exporter" || fail "/etc/default/mintlify_exporter does not set ARGS=\"\""
for f in mintlify.json alerts.yml rules.yml mixin.libsonnet; do
  cmp -s "$tmp/debroot/usr/share/doc/$PKG/dashboards/$f" "dashboards/$f" || fail "the deb's dashboards/$f is not dashboards/$f"
done
# The man page: --help-man's and each command's, with a NAME line and every flag.
man=$(zcat "$tmp/debroot/usr/share/man/man1/mintlify_exporter.1.gz")
grep -q '^mintlify_exporter \\- Prometheus exporter' <<<"$man" || fail "the man page has no NAME line 'mintlify_exporter \\- ...'"
# Each command's section, with a flag of its own.
for flag in --config.file --web.listen-address --storage.path --demo \
  '"JOBS COMMAND"' --mintlify.tracked-jobs-file '"BACKFILL COMMAND"' --output '"RECEIVER COMMAND"' --receiver.answer-timeout; do
  grep -qF -- "$flag" <<<"$man" || fail "the man page does not document $flag"
done

step="deb documentation links"
# Every relative link of every Markdown file in the documentation resolves
# to a file inside it (anchors aside), as in the archives.
docdir="$tmp/debroot/usr/share/doc/$PKG"
nlinks=$(check_doc_links "$docdir" "the deb")
log "deb: $nlinks relative links of the documentation resolve inside /usr/share/doc/$PKG"

step="lintian"
# lintian warns when run as root; it reads the package only.
lintian --tag-display-limit 0 --fail-on error,warning "$deb" >"$tmp/lintian.txt" 2>&1 ||
  fail "lintian found errors or warnings: $(grep -v 'root privileges' "$tmp/lintian.txt")"
log "deb: fields, conffiles, contents and lintian pass"

# ------------------------------------------------------------ 3. rpm
step="rpm metadata"
q() { rpm -qp --qf "$1" "$rpmf" 2>/dev/null; }
expect_eq "rpm NAME" "$(q '%{NAME}')" "$PKG"
expect_eq "rpm VERSION-RELEASE" "$(q '%{VERSION}-%{RELEASE}')" "$rpmversion"
expect_eq "rpm ARCH" "$(q '%{ARCH}')" "$rpmarch"
expect_eq "rpm LICENSE" "$(q '%{LICENSE}')" "Apache-2.0"
expect_eq "rpm URL" "$(q '%{URL}')" "https://github.com/mintlify-exporter/mintlify_exporter"
expect_eq "rpm SUMMARY" "$(q '%{SUMMARY}')" "Prometheus exporter for Mintlify documentation sites"
grep -Eq '^[^<]+ <[^@> ]+@[^> ]+>$' <<<"$(q '%{PACKAGER}')" || fail "rpm PACKAGER '$(q '%{PACKAGER}')' is not 'Name <address>'"
grep -q '^Description :' <<<"$(rpm -qip "$rpmf" 2>/dev/null)" || fail "rpm -qip shows no description"
[ -n "$(q '%{POSTIN}')" ] && [ -n "$(q '%{PREUN}')" ] && [ -n "$(q '%{POSTUN}')" ] || fail "rpm lacks %post, %preun or %postun"

step="rpm contents"
# [mode user group path flags digest] for each file; flags: c config, n noreplace, d doc, l license.
rpm -qp --qf '[%{FILEMODES:perms}|%{FILEUSERNAME}|%{FILEGROUPNAME}|%{FILENAMES}|%{FILEFLAGS:fflags}|%{FILEDIGESTS}\n]' "$rpmf" 2>/dev/null |
  while IFS='|' read -r mode user group path flags digest; do
    printf '%s %s %s %s %s %s\n' "$(perm "$mode")" "$user" "$group" "$path" "${flags:--}" "${digest:--}"
  done | sort -k4 >"$tmp/rpm.list"
cut -d' ' -f1-4 "$tmp/rpm.list" >"$tmp/rpm.paths"
for want in "$common_files" "0644 root root /etc/sysconfig/mintlify_exporter" "0644 root root /etc/sysconfig/mintlify_exporter-receiver" \
  "0644 root root /usr/share/licenses/$PKG/LICENSE" "0644 root root /usr/share/doc/$PKG/NOTICE" \
  "0644 root root /usr/share/doc/$PKG/licenses/github.com/prometheus/client_golang/LICENSE" "$packaged_docs"; do
  while read -r line; do
    grep -qxF "$line" "$tmp/rpm.paths" || fail "the rpm lacks '$line'; it holds:
$(grep -v /licenses/ "$tmp/rpm.paths")"
  done <<<"$want"
done
grep -q ' /etc/default' "$tmp/rpm.paths" && fail "the rpm holds /etc/default"
# The same documentation as the deb's (whose links resolve), LICENSE
# pointing to the rpm's license.
docs_of() { awk -v d="/usr/share/doc/$PKG/" 'index($4, d) == 1 && $4 != d "LICENSE" && $4 != d "copyright" && $4 != d "changelog.Debian.gz" {print $4}' "$1" | sort; }
expect_eq "the rpm's documentation" "$(docs_of "$tmp/rpm.paths")" "$(docs_of "$tmp/deb.list")"
expect_eq "the rpm's LICENSE link" "$(rpm -qp --qf '[%{FILENAMES} %{FILELINKTOS}\n]' "$rpmf" 2>/dev/null | awk -v p="/usr/share/doc/$PKG/LICENSE" '$1 == p {print $2}')" "../../licenses/$PKG/LICENSE"
expect_eq "rpm config files" "$(awk '$5 ~ /c/ {print $4, $5}' "$tmp/rpm.list")" "/etc/mintlify_exporter/mintlify.yml cn
/etc/mintlify_exporter/routes.yml cn
/etc/sysconfig/mintlify_exporter cn
/etc/sysconfig/mintlify_exporter-receiver cn"
rpm_digest=$(awk -v p="$UNIT" '$4 == p {print $6}' "$tmp/rpm.list")
expect_eq "the rpm unit's sha256" "$rpm_digest" "$(sha256sum <"$tmp/rpm.service" | cut -d' ' -f1)"
expect_eq "the rpm receiver unit's sha256" "$(awk -v p="$RUNIT" '$4 == p {print $6}' "$tmp/rpm.list")" "$(sha256sum <"$tmp/rpm-receiver.service" | cut -d' ' -f1)"
expect_eq "the rpm configuration's sha256" "$(awk '$4 == "/etc/mintlify_exporter/mintlify.yml" {print $6}' "$tmp/rpm.list")" \
  "$(sha256sum <deploy/systemd/mintlify.yml | cut -d' ' -f1)"
log "rpm: fields, contents, config flags and the unit pass"

# ------------------------------------------------------------ systemd-analyze
# verify UNITFILE: systemd-analyze verify, with /usr/bin/mintlify_exporter
# pointed at BIN. As in deploy/deploy_test.go, a probe unit first: verify
# needs a working systemd, which a container may lack.
verify_works=""
printf '[Service]\nExecStart=/bin/true\n' >"$tmp/probe.service"
if out=$(systemd-analyze verify --man=no "$tmp/probe.service" 2>&1) && [ -z "$out" ]; then
  verify_works=1
else
  log "SKIPPED systemd-analyze verify: it does not work here ($out)"
fi
verify() {
  [ -n "$verify_works" ] || return 0
  local out
  out=$(systemd-analyze verify --man=no "$1" 2>&1) || fail "systemd-analyze verify $1: $out"
  [ -z "$out" ] || fail "systemd-analyze verify $1: $out"
}
step="systemd-analyze rpm"
mkdir -p "$tmp/rpmunit"
sed "s,/usr/bin/mintlify_exporter ,$tmp/debroot/usr/bin/mintlify_exporter ," "$tmp/rpm.service" >"$tmp/rpmunit/mintlify_exporter.service"
verify "$tmp/rpmunit/mintlify_exporter.service"
sed "s,/usr/bin/mintlify_exporter ,$tmp/debroot/usr/bin/mintlify_exporter ," "$tmp/rpm-receiver.service" >"$tmp/rpmunit/mintlify_exporter-receiver.service"
verify "$tmp/rpmunit/mintlify_exporter-receiver.service"

# ------------------------------------------------------------ 4. install
step="dpkg -i"
had_user=$(getent passwd mintlify_exporter || true)
dpkg -i "$deb" >"$tmp/dpkg.log" 2>&1 || fail "dpkg -i failed: $(cat "$tmp/dpkg.log")"
expect_eq "dpkg status" "$(dpkg-query -W -f='${Status}' "$PKG")" "install ok installed"
expect_eq "dpkg version" "$(dpkg-query -W -f='${Version}' "$PKG")" "$debversion"
conffiles=$(dpkg-query -W -f='${Conffiles}\n' "$PKG" | awk 'NF {print $1, $2}' | sort)
expect_eq "conffiles" "$conffiles" "/etc/default/mintlify_exporter $(md5sum <packaging/mintlify_exporter.default | cut -d' ' -f1)
/etc/default/mintlify_exporter-receiver $(md5sum <packaging/mintlify_exporter-receiver.default | cut -d' ' -f1)
/etc/mintlify_exporter/mintlify.yml $(md5sum <deploy/systemd/mintlify.yml | cut -d' ' -f1)
/etc/mintlify_exporter/routes.yml $(md5sum <deploy/systemd/routes.yml | cut -d' ' -f1)"
mode() { stat -c '%04a %U %G' "$1"; }
expect_eq "mode of /usr/bin/mintlify_exporter" "$(mode /usr/bin/mintlify_exporter)" "0755 root root"
expect_eq "mode of $UNIT" "$(mode "$UNIT")" "0644 root root"
expect_eq "mode of $RUNIT" "$(mode "$RUNIT")" "0644 root root"
expect_eq "mode of /etc/mintlify_exporter" "$(mode /etc/mintlify_exporter)" "0755 root root"
expect_eq "mode of /etc/mintlify_exporter/mintlify.yml" "$(mode /etc/mintlify_exporter/mintlify.yml)" "0644 root root"
expect_eq "mode of /etc/default/mintlify_exporter" "$(mode /etc/default/mintlify_exporter)" "0644 root root"
[ -e /etc/mintlify_exporter/api_key ] && fail "the package made /etc/mintlify_exporter/api_key"
[ -e /var/lib/mintlify_exporter ] && fail "the package made /var/lib/mintlify_exporter; systemd's StateDirectory= makes it"
expect_eq "account mintlify_exporter" "$(getent passwd mintlify_exporter || true)" "$had_user"
grep -qF "mintlify_exporter, version $version " <<<"$(/usr/bin/mintlify_exporter --version 2>&1)" || fail "the installed binary is not version $version"

# The packaged configuration names no real project: --config.check
# refuses it, naming the field, until it is edited.
if out=$(/usr/bin/mintlify_exporter --config.file=/etc/mintlify_exporter/mintlify.yml --config.check 2>&1); then
  fail "--config.check passes the packaged mintlify.yml, whose project id is the placeholder: $out"
fi
grep -qF 'projects[0] "docs": id "YOUR_PROJECT_ID" is the example'"'"'s placeholder' <<<"$out" ||
  fail "--config.check of the packaged mintlify.yml does not name the placeholder id: $out"

step="systemd-analyze installed"
verify "$UNIT"
verify "$RUNIT"

step="receiver installed, not enabled"
# Off by default: no enablement link, and it runs as the exporter's user
# in the exporter's state directory (docs/loop.md, "systemd").
for wants in /etc/systemd/system/*.wants/mintlify_exporter-receiver.service; do
  [ -e "$wants" ] || [ -L "$wants" ] && fail "the package enabled the receiver: $wants"
done
grep -qx 'User=mintlify_exporter' "$RUNIT" || fail "the receiver's unit does not run as the exporter's user"
grep -qx 'StateDirectory=mintlify_exporter' "$RUNIT" || fail "the receiver's unit has no StateDirectory=mintlify_exporter"
grep -qx 'EnvironmentFile=-/etc/default/mintlify_exporter-receiver' "$RUNIT" || fail "the receiver's unit does not read /etc/default/mintlify_exporter-receiver"
# Both packaged configurations are refused while they hold placeholders, and
# check before the first start once filled in (the exporter's key file, a
# credential of the running unit, is not there yet: a warning).
out=$(/usr/bin/mintlify_exporter receiver --config.file=/etc/mintlify_exporter/routes.yml --config.check 2>&1) &&
  fail "the packaged routes.yml checks with its placeholders: $out"
grep -q "placeholder" <<<"$out" || fail "the packaged routes.yml is refused, but not for its placeholders: $out"
sed 's/YOUR_PROJECT_ID/proj_example/; s/YOUR_AUTOMATION_ID/auto_example/' /etc/mintlify_exporter/routes.yml >"$tmp/routes.yml"
out=$(/usr/bin/mintlify_exporter receiver --config.file="$tmp/routes.yml" --config.check 2>&1) ||
  fail "the packaged routes.yml, filled in, does not check: $out"
log "the receiver's unit is installed, not enabled; $out"
sed 's/YOUR_PROJECT_ID/proj_example/' /etc/mintlify_exporter/mintlify.yml >"$tmp/mintlify.yml"
out=$(/usr/bin/mintlify_exporter --config.file="$tmp/mintlify.yml" --config.check 2>&1) ||
  fail "the packaged mintlify.yml, filled in, does not check before the first start: $out"
grep -q "not there yet" <<<"$out" || fail "the check of the packaged mintlify.yml does not warn of the key file: $out"
log "the packaged mintlify.yml, filled in, checks before the first start"

# ------------------------------------------------------------ 5. run
step="run as the service"
# The unit's settings this run reproduces.
exec_start=$(sed -n 's/^ExecStart=//p' "$UNIT")
expect_eq "ExecStart" "$exec_start" '/usr/bin/mintlify_exporter --config.file=/etc/mintlify_exporter/mintlify.yml $ARGS'
grep -qx 'EnvironmentFile=-/etc/default/mintlify_exporter' "$UNIT" || fail "the unit does not read /etc/default/mintlify_exporter"
grep -qx 'StateDirectory=mintlify_exporter' "$UNIT" || fail "the unit has no StateDirectory=mintlify_exporter"
grep -qx 'DynamicUser=yes' "$UNIT" || fail "the unit is not DynamicUser=yes"
args=$(env -i sh -c '. /etc/default/mintlify_exporter && printf %s "$ARGS"')
expect_eq "ARGS of /etc/default/mintlify_exporter" "$args" ""
# The demo replaces the configuration file (they exclude each other).
cmd=${exec_start/--config.file=\/etc\/mintlify_exporter\/mintlify.yml/--demo}
cmd=${cmd/\$ARGS/$args}
# A uid of systemd's DynamicUser range (61184-65519) that nobody uses.
uid=""
for u in $(seq 61184 65519); do
  if ! getent passwd "$u" >/dev/null && ! getent group "$u" >/dev/null; then
    uid=$u
    break
  fi
done
[ -n "$uid" ] || fail "no free uid in 61184-65519"
# The state directory as StateDirectory= makes it with DynamicUser.
install -d -m 0700 /var/lib/private
install -d -m 0750 -o "$uid" -g "$uid" /var/lib/private/mintlify_exporter
ln -s private/mintlify_exporter /var/lib/mintlify_exporter
port=$(free_port) || fail "no free port found"
# shellcheck disable=SC2086 # ExecStart's words, split as systemd splits them
(
  umask 0077
  cd /
  exec setpriv --reuid="$uid" --regid="$uid" --clear-groups --no-new-privs \
    env -i PATH=/usr/bin:/bin STATE_DIRECTORY=/var/lib/mintlify_exporter \
    $cmd --web.listen-address="127.0.0.1:$port"
) >"$tmp/demo.log" 2>&1 &
pid=$!
url="http://127.0.0.1:$port/metrics"
alive() { kill -0 "$pid" 2>/dev/null || fail "the exporter exited early"; }
wait_for_series "$url" "$tmp/metrics.txt" '^mintlify_page_views_total{path="/[^"]*",project="docs",traffic="human"} [0-9]' "$DEADLINE" alive
grep -q "^mintlify_exporter_build_info{.*version=\"$version\"" "$tmp/metrics.txt" || fail "build_info does not carry version $version"
expect_eq "the exporter's uid" "$(awk '/^Uid:/ {print $2}' "/proc/$pid/status")" "$uid"
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
pid=""
[ "$rc" -eq 0 ] || fail "the exporter exited $rc on SIGTERM, want 0"
# The demo keeps no state file (its simulated API starts empty each time):
# put a stand-in where the service's would be, owned by its user, to see
# what remove and purge do with the state.
state=/var/lib/private/mintlify_exporter/state.json
install -m 0600 -o "$uid" -g "$uid" /dev/null "$state"
log "the installed binary ran as uid $uid with the packaged ARGS"

# ------------------------------------------------------------ 6. upgrade
step="upgrade keeps edits"
# A later version of the same package: dpkg -i over the installed one is
# an upgrade (prerm upgrade, postinst configure OLDVERSION).
upversion=999.0.0-upgrade-test
make --no-print-directory release RELEASE_DIR="$tmp/up" RELEASE_PLATFORMS="linux/$goarch" \
  RELEASE_VERSION="$upversion" >"$tmp/build.log" 2>&1 || { tail -n 30 "$tmp/build.log" >&2; fail "make release $upversion failed"; }
read -r _ updebversion _ < <(bash packaging/pkgversion.sh "$upversion")
updeb="$tmp/up/${PKG}_${updebversion}_$debarch.deb"
[ -f "$updeb" ] || fail "no $(basename "$updeb"); built: $(ls "$tmp/up")"
echo 'ARGS="--log.level=debug"' >>/etc/default/mintlify_exporter
sed -i 's/^  - id: YOUR_PROJECT_ID /  - id: my-project /' /etc/mintlify_exporter/mintlify.yml
grep -q '^  - id: my-project ' /etc/mintlify_exporter/mintlify.yml || fail "could not edit the project id in mintlify.yml"
(
  umask 077
  echo mint_not_a_real_key >/etc/mintlify_exporter/api_key
  echo not-a-real-token >/etc/mintlify_exporter/receiver.token
)
dpkg -i "$updeb" >"$tmp/dpkg.log" 2>&1 || fail "dpkg -i of $upversion over $version failed: $(cat "$tmp/dpkg.log")"
expect_eq "dpkg version after the upgrade" "$(dpkg-query -W -f='${Version}' "$PKG")" "$updebversion"
dpkg --compare-versions "$updebversion" gt "$debversion" || fail "$updebversion does not sort after $debversion"
grep -qF "mintlify_exporter, version $upversion " <<<"$(/usr/bin/mintlify_exporter --version 2>&1)" || fail "the upgrade did not replace the binary"
[ "$(tail -n 1 /etc/default/mintlify_exporter)" = 'ARGS="--log.level=debug"' ] || fail "the upgrade lost the edit of /etc/default/mintlify_exporter"
grep -q '^  - id: my-project ' /etc/mintlify_exporter/mintlify.yml || fail "the upgrade lost the edit of mintlify.yml"
expect_eq "the key after the upgrade" "$(stat -c '%04a' /etc/mintlify_exporter/api_key) $(cat /etc/mintlify_exporter/api_key)" "0600 mint_not_a_real_key"
[ -f "$state" ] || fail "the upgrade removed the state file"
log "the upgrade to $upversion kept the edited configuration, the key and the state"

# ------------------------------------------------------------ 7. remove
step="dpkg -r"
dpkg -r "$PKG" >"$tmp/dpkg.log" 2>&1 || fail "dpkg -r failed: $(cat "$tmp/dpkg.log")"
expect_eq "dpkg status after -r" "$(dpkg-query -W -f='${Status}' "$PKG")" "deinstall ok config-files"
for gone in /usr/bin/mintlify_exporter "$UNIT" "$RUNIT" /usr/share/doc/$PKG; do
  [ -e "$gone" ] && fail "$gone is still there after dpkg -r"
done
for kept in /etc/default/mintlify_exporter /etc/default/mintlify_exporter-receiver /etc/mintlify_exporter/mintlify.yml \
  /etc/mintlify_exporter/routes.yml /etc/mintlify_exporter/api_key /etc/mintlify_exporter/receiver.token "$state"; do
  [ -e "$kept" ] || fail "dpkg -r removed $kept; only purge should"
done

# ------------------------------------------------------------ 8. purge
step="dpkg -P"
dpkg -P "$PKG" >"$tmp/dpkg.log" 2>&1 || fail "dpkg -P failed: $(cat "$tmp/dpkg.log")"
status=$(dpkg-query -W -f='${Status}' "$PKG" 2>/dev/null || true)
case "$status" in
"" | *not-installed) ;;
*) fail "dpkg status after purge is '$status'" ;;
esac
for gone in /etc/default/mintlify_exporter /etc/default/mintlify_exporter-receiver /etc/mintlify_exporter /var/lib/mintlify_exporter /var/lib/private/mintlify_exporter; do
  { [ -e "$gone" ] || [ -L "$gone" ]; } && fail "$gone is still there after dpkg -P"
done
expect_eq "account mintlify_exporter after purge" "$(getent passwd mintlify_exporter || true)" "$had_user"
log "dpkg -r kept the configuration, key and state; dpkg -P removed them"
