#!/usr/bin/env bash
# Installs what building and testing the playground needs, and only what is missing:
# the wasm32 target, rustfmt + clippy, wasm-bindgen-cli at exactly Cargo.lock's
# wasm-bindgen version, wasm-pack 0.15.1, Debian's chromium + chromium-driver, and
# the npm tools in www/ (binaryen's wasm-opt, playwright-core) from package-lock.json,
# and for the Flink layer JDK 17 and apache-flink 2.3.0 in .flink-venv (setup-flink.sh).
# Idempotent: every step checks a version first, so a re-run takes about a second.
# Nothing here downloads binaries from outside the package registries.
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

WASM_PACK_VERSION=0.15.1
BINARYEN_VERSION=132
START=$(now)
say() { log setup "$@"; }

need() {
    command -v "$1" >/dev/null 2>&1 || {
        say "ERROR: '$1' is not installed and is expected on this kind of machine ($2)"
        exit 1
    }
}
need cargo "the Rust toolchain, via rustup"
need rustup "the Rust toolchain manager"
need node "Node.js 20 with npm"
need npm "Node.js 20 with npm"
need python3 "serves the built site"
need gzip "writes the site's precompressed .gz copies"

# --- Rust target and components -------------------------------------------------
if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    say "ok: rust target wasm32-unknown-unknown"
else
    say "installing rust target wasm32-unknown-unknown"
    rustup target add wasm32-unknown-unknown
fi
missing_components=()
cargo fmt --version >/dev/null 2>&1 || missing_components+=(rustfmt)
cargo clippy --version >/dev/null 2>&1 || missing_components+=(clippy)
if ((${#missing_components[@]})); then
    say "installing rust components: ${missing_components[*]}"
    rustup component add "${missing_components[@]}"
else
    say "ok: rustfmt and clippy"
fi

# --- wasm-bindgen-cli, exactly Cargo.lock's version -----------------------------
WBG_VERSION=$(wasm_bindgen_version)
[[ -n "$WBG_VERSION" ]] || { say "ERROR: no wasm-bindgen version in Cargo.lock"; exit 1; }
have_wbg=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
have_runner=$(wasm-bindgen-test-runner --version 2>/dev/null | awk '{print $2}' || true)
if [[ "$have_wbg" == "$WBG_VERSION" && "$have_runner" == "$WBG_VERSION" ]]; then
    say "ok: wasm-bindgen-cli $WBG_VERSION"
else
    say "installing wasm-bindgen-cli $WBG_VERSION (found '${have_wbg:-none}'; ~2.5 min on 2 cores)"
    # Without --locked: the CLI's own lockfile pins a crate version missing from the index.
    cargo install wasm-bindgen-cli --version "=$WBG_VERSION" --force
fi

# --- wasm-pack ---------------------------------------------------------------------
have_wp=$(wasm-pack --version 2>/dev/null | awk '{print $2}' || true)
if [[ "$have_wp" == "$WASM_PACK_VERSION" ]]; then
    say "ok: wasm-pack $WASM_PACK_VERSION"
else
    say "installing wasm-pack $WASM_PACK_VERSION (found '${have_wp:-none}'; ~2 min on 2 cores)"
    cargo install --locked wasm-pack --version "=$WASM_PACK_VERSION" --force
fi

# --- Chromium, ChromeDriver and a CJK font from Debian -----------------------------
# fonts-noto-cjk: the Chinese interface's screenshots and e2e runs need glyphs for
# 中文 (headless Chromium has no CJK font otherwise and draws empty boxes).
debs=()
if [[ -x /usr/bin/chromium && -x /usr/bin/chromedriver ]]; then
    say "ok: $(/usr/bin/chromium --version 2>/dev/null | head -n1), chromedriver present"
else
    debs+=(chromium chromium-driver)
fi
if dpkg-query -W -f='${Status}' fonts-noto-cjk 2>/dev/null | grep -q "install ok installed"; then
    say "ok: fonts-noto-cjk"
else
    debs+=(fonts-noto-cjk)
fi
if ((${#debs[@]})); then
    say "installing Debian packages ${debs[*]}"
    SUDO=()
    if [[ $(id -u) -ne 0 ]]; then SUDO=(sudo); fi
    "${SUDO[@]}" apt-get update -qq
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq "${debs[@]}" </dev/null
fi

# --- npm tools in www/ (wasm-opt from binaryen, playwright-core) -----------------
LOCK="$ROOT/www/package-lock.json"
STAMP="$ROOT/www/node_modules/.setup-stamp"
want_stamp=$(sha256sum "$LOCK" | awk '{print $1}')
have_stamp=$(cat "$STAMP" 2>/dev/null || true)
binaryen_version() {
    sed -n 's/^  "version": "\([0-9]*\)\..*/\1/p' "$ROOT/www/node_modules/binaryen/package.json" 2>/dev/null || true
}
if [[ "$have_stamp" == "$want_stamp" && "$(binaryen_version)" == "$BINARYEN_VERSION" \
    && -x "$ROOT/www/node_modules/.bin/wasm-opt" ]]; then
    say "ok: www/node_modules matches package-lock.json (wasm-opt $BINARYEN_VERSION, playwright-core)"
else
    say "installing npm packages in www/ (npm ci)"
    (cd "$ROOT/www" && npm ci --no-audit --no-fund --loglevel=error </dev/null)
    "$ROOT/www/node_modules/.bin/wasm-opt" --version | grep -q "version $BINARYEN_VERSION" || {
        say "ERROR: www/node_modules/.bin/wasm-opt is not binaryen $BINARYEN_VERSION"
        exit 1
    }
    echo "$want_stamp" >"$STAMP"
fi

# --- real Apache Flink for the 6th test layer: JDK 17 + apache-flink in .flink-venv ---
# (SETUP_FLINK=0 skips it: serving the playground does not need it.)
if [[ "${SETUP_FLINK:-1}" == 1 ]]; then
    bash "$ROOT/scripts/setup-flink.sh" | sed '/^PYFLINK_LIB=/d'
fi

say "done in $(elapsed "$START") s"
