#!/usr/bin/env bash
# The package `make dist` built, as a user gets it: the .deb installed with apt (its
# dependencies pulled in), the CLI and the app run from where it put them, then removed with
# nothing left behind. The .rpm is checked to hold the same files.
#
#   scripts/check-dist.sh TARGET/dist        (as root, or a user with sudo; `make dist-check`)
#
# Refuses to run where the package is already installed by someone: it would remove it.
set -euo pipefail
cd "$(dirname "$0")/.."
DIST=${1:?usage: scripts/check-dist.sh TARGET_DIR/dist}
sudo=()
[[ $(id -u) -eq 0 ]] || sudo=(sudo)
fail() { echo "dist-check: $*" >&2; exit 1; }

deb=$(ls -1t "$DIST"/bundle/deb/*.deb 2>/dev/null | head -1)
rpm=$(ls -1t "$DIST"/bundle/rpm/*.rpm 2>/dev/null | head -1)
[[ -n $deb && -n $rpm ]] || fail "no .deb or .rpm under $DIST/bundle: run make dist"
deb=$(realpath "$deb")
pkg=$(dpkg-deb -f "$deb" Package)
echo "dist-check: $deb ($(du -h "$deb" | cut -f1)), package $pkg; $rpm ($(du -h "$rpm" | cut -f1))"
if dpkg-query -W -f '${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
    fail "$pkg is installed on this machine already: remove it first (apt-get remove $pkg)"
fi

# What each package holds: the app, the CLI, the desktop entry and the icon.
deb_files=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print $6}' | sed -e 's|^\./|/|' -e 's|^\([^/]\)|/\1|' | sort)
rpm_files=$(rpm -qlp "$rpm" 2>/dev/null | sort)
for f in /usr/bin/palimpsest /usr/bin/palimpsest-app /usr/share/applications/Palimpsest.desktop; do
    grep -qx "$f" <<<"$deb_files" || fail "the .deb lacks $f; it holds: $deb_files"
    grep -qx "$f" <<<"$rpm_files" || fail "the .rpm lacks $f; it holds: $rpm_files"
done
grep -q '^/usr/share/icons/hicolor/.*/apps/palimpsest-app.png$' <<<"$deb_files" \
    || fail "the .deb has no icon; it holds: $deb_files"

# Installed, with its dependencies.
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$deb" >/dev/null
trap '"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "$pkg" >/dev/null 2>&1 || true' EXIT
installed=$(dpkg -L "$pkg" | sort)

# The CLI from the PATH: its version names this checkout's commit; it lists the fixtures.
cli=$(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin command -v palimpsest)
[[ $cli == /usr/bin/palimpsest ]] || fail "palimpsest on the PATH is $cli, not the package's"
version=$("$cli" --version)
want="palimpsest $(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1) (commit $(git rev-parse --short=12 HEAD))"
[[ $version == "$want" ]] || fail "palimpsest --version says '$version', not '$want'"
# Its session list of the fixtures is the one the CLI built from this checkout gives.
built="$DIST/../debug/palimpsest"
[[ -x $built ]] || fail "no $built to compare with: make e2e-bins"
scratch=$(mktemp -d)
XDG_CACHE_HOME=$scratch/a "$cli" sessions fixtures --json >"$scratch/installed.json"
XDG_CACHE_HOME=$scratch/b "$built" sessions fixtures --json >"$scratch/built.json"
cmp -s "$scratch/installed.json" "$scratch/built.json" \
    || fail "the installed CLI lists the fixtures differently from $built ($scratch)"
listed=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$scratch/installed.json")
[[ $listed -gt 0 ]] || fail "the installed CLI lists no session in fixtures"
rm -rf "$scratch"
echo "dist-check: $version; lists the $listed sessions of fixtures/ as the built CLI does"

# The installed app, in a window under Xvfb on the fixtures: its sessions and its About.
xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" \
    python3 tests/e2e/run.py --app /usr/bin/palimpsest-app --fixtures "$PWD/fixtures" \
    --out "$DIST/e2e" --only fixture_sessions_are_listed,keyboard_moves

# The command alone: `cargo install` with no Node.js and no WebKit/GTK reachable (stubs that fail
# stand in for node, npm and those pkg-config lookups), sharing the dist build's target folder.
target=$(realpath "$DIST/..")
tree=$(cargo tree --locked -p palimpsest-cli -e normal,build --prefix none | cut -d' ' -f1 | sort -u)
bad=$(grep -E '^(tauri|wry|tao|webkit2gtk|gtk|gdk|glib|javascriptcore|soup)' <<<"$tree" || true)
[[ -z $bad ]] || fail "palimpsest-cli depends on $(tr '\n' ' ' <<<"$bad")"
scratch=$(mktemp -d)
mkdir -p "$scratch/stubs"
for tool in node npm npx; do
    printf '#!/bin/sh\necho "%s was called while building the CLI" >&2\nexit 97\n' "$tool" >"$scratch/stubs/$tool"
done
real_pc=$(command -v pkg-config || echo /bin/false)
printf '#!/bin/sh\ncase "$*" in *webkit*|*gtk*|*glib*|*soup*|*javascriptcore*) echo "pkg-config $* while building the CLI" >&2; exit 97;; esac\nexec %s "$@"\n' "$real_pc" >"$scratch/stubs/pkg-config"
chmod +x "$scratch/stubs"/*
PATH="$scratch/stubs:$PATH" CARGO_TARGET_DIR=$target \
    cargo install --quiet --locked --profile dist --path crates/palimpsest-cli --root "$scratch/root"
"$scratch/root/bin/palimpsest" --version | grep -qF "$want" \
    || fail "the CLI cargo install built does not say '$want'"
rm -rf "$scratch"
echo "dist-check: cargo install --path crates/palimpsest-cli built the CLI with no node, npm or WebKit"

# Removed: nothing it installed is left (folders others share stay, as dpkg leaves them).
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "$pkg" >/dev/null
trap - EXIT
dpkg-query -W -f '${Status}' "$pkg" 2>/dev/null | grep -q 'installed' && fail "$pkg is still installed"
left=()
while read -r f; do
    [[ -n $f && ! -d $f && -e $f ]] && left+=("$f")
done <<<"$installed"
[[ ${#left[@]} -eq 0 ]] || fail "left behind after removal: ${left[*]}"
echo "dist-check: installed, ran and removed $pkg; $(wc -l <<<"$installed") paths, none left"
