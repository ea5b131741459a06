#!/usr/bin/env bash
# Installs what building, running and testing Palimpsest need, and only what is missing, so a
# second run takes about a second. Used by `make run` and `make test` (and so by CI).
#
#   scripts/install-deps.sh          system packages + Rust + Node checks (build and run)
#   scripts/install-deps.sh --e2e    also what the end-to-end tests need (Xvfb, WebKitWebDriver,
#                                    tauri-driver, headless Chromium for the reports)
#
# System packages come from apt (Debian 12+ / Ubuntu 22.04+), as root or through sudo. Other
# platforms: see README.md.
set -euo pipefail

E2E=0
[[ "${1:-}" == "--e2e" ]] && E2E=1

# The Tauri 2 build list (WebKitGTK 4.1, GTK 3, libsoup 3 come in through libwebkit2gtk-4.1-dev).
BUILD_PKGS=(build-essential pkg-config curl wget file libwebkit2gtk-4.1-dev libssl-dev libxdo-dev
            libayatana-appindicator3-dev librsvg2-dev python3)
# Headless window + WebDriver for the end-to-end tests, `import` for screenshots, `xclip` to
# read what "Copy as Markdown" put on the clipboard, `rpm` to list the package `make dist` made,
# `python3-venv` for the Phoenix the OTLP export is checked against, `dbus` for the session bus
# the alerts test starts (its desktop notifications go there).
E2E_PKGS=(xvfb xauth webkit2gtk-driver imagemagick xclip rpm python3-venv dbus)
# Headless Chromium renders the HTML reports in the end-to-end tests (Debian's `chromium`;
# where apt has no such package, install a Chromium that `chromium` starts). grep reads the
# whole policy (no -q): under pipefail, an early exit would fail apt-cache with SIGPIPE and
# so the test, at random.
if [[ $E2E -eq 1 ]] && command -v apt-cache >/dev/null \
    && apt-cache policy chromium 2>/dev/null | grep 'Candidate: [0-9]' >/dev/null; then
    E2E_PKGS+=(chromium)
fi
# tauri-driver bridges WebDriver to the app; pinned to the 2.x line (3.x is a prerelease).
TAURI_DRIVER_VERSION=2.1.0
# Vite 7 needs Node 20.19+ (or 22.12+).
NODE_MIN_MAJOR=20
NODE_MIN_MINOR=19

say() { printf '\033[1m[deps]\033[0m %s\n' "$*" >&2; }
die() { printf '\033[1;31m[deps] %s\033[0m\n' "$*" >&2; exit 1; }

missing_pkgs() {
    local p
    for p in "$@"; do
        dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' \
            || printf '%s\n' "$p"
    done
}

apt_install() {
    local sudo=()
    if [[ $(id -u) -ne 0 ]]; then
        command -v sudo >/dev/null || die "need root or sudo to install: $*"
        sudo=(sudo)
    fi
    say "apt-get install $*"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

pkgs=("${BUILD_PKGS[@]}")
[[ $E2E -eq 1 ]] && pkgs+=("${E2E_PKGS[@]}")
if command -v dpkg-query >/dev/null; then
    mapfile -t need < <(missing_pkgs "${pkgs[@]}")
    [[ ${#need[@]} -gt 0 ]] && apt_install "${need[@]}"
else
    say "not a Debian/Ubuntu system: install the equivalents of: ${pkgs[*]} (see README.md)"
fi

# Node + npm for the UI.
node_ok() {
    command -v node >/dev/null && command -v npm >/dev/null || return 1
    local v major minor
    v=$(node -p 'process.versions.node')
    major=${v%%.*}; minor=${v#*.}; minor=${minor%%.*}
    (( major > NODE_MIN_MAJOR || (major == NODE_MIN_MAJOR && minor >= NODE_MIN_MINOR) ))
}
if ! node_ok && command -v dpkg-query >/dev/null; then
    apt_install nodejs npm
fi
node_ok || die "Node.js >= $NODE_MIN_MAJOR.$NODE_MIN_MINOR with npm is needed for the UI (found: \
$(node --version 2>/dev/null || echo none)). Install it from your distribution (Debian 13, \
Ubuntu 24.10+) or from nodejs.org, then rerun."

# Rust (rust-toolchain is not pinned here: any stable >= the workspace rust-version works).
if ! command -v cargo >/dev/null; then
    [[ -x "$HOME/.cargo/bin/cargo" ]] || die "Rust is needed: install it with rustup (https://rustup.rs), then rerun."
fi

if [[ $E2E -eq 1 ]]; then
    export PATH="$HOME/.cargo/bin:$PATH"
    if ! tauri-driver --help >/dev/null 2>&1 \
        || [[ "$(cargo install --list | grep -E '^tauri-driver v' || true)" != "tauri-driver v$TAURI_DRIVER_VERSION:" ]]; then
        say "cargo install tauri-driver@$TAURI_DRIVER_VERSION"
        cargo install tauri-driver --locked --version "$TAURI_DRIVER_VERSION" --quiet
    fi
    command -v WebKitWebDriver >/dev/null || die "WebKitWebDriver not found (package webkit2gtk-driver)"
fi
say "ok"
