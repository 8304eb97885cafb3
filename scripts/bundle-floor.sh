#!/usr/bin/env bash
# What the page's bundle cannot go below (issue 19, item 1): the engine alone, with the
# scenario format and nothing of the UI (`crates/engine-wasm`: decode a link, run it,
# report), built for wasm32 at opt-level 3 (the site's level for the engine), "s" and "z",
# each bound by wasm-bindgen --target web and shrunk by wasm-opt (-O at 3, -Oz at "s" and
# "z", as scripts/build-site.sh pairs them). Prints raw, gzip -9 and brotli sizes of each
# module with its JS glue beside the 350 KB gzip budget, then runs PRESET's link in each
# module under node and checks that its event hash is the native CLI's (the module is the
# engine, not something the linker emptied).
#
# Environment: LEVELS (default "3 s z"), PRESET (default unaligned), BUNDLE_BUDGET_GZIP.
# Each level builds into target/bundle-floor/<level>/ (~1 min a level on 2 cores, cold).
# Expects scripts/setup.sh to have run (wasm32 target, wasm-bindgen, binaryen, node).
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ROOT"

LEVELS=${LEVELS:-3 s z}
PRESET=${PRESET:-unaligned}
BUDGET=${BUNDLE_BUDGET_GZIP:-350000}
OUT="$ROOT/target/bundle-floor"
PACKAGE=checkpoint-playground-engine-wasm
CRATE=${PACKAGE//-/_}
say() { log bundle-floor "$@"; }

say "the native CLI's run of preset $PRESET"
cargo build --quiet --release --bin checkpoint-playground
CLI="$ROOT/target/release/checkpoint-playground"
LINK=$("$CLI" link --preset "$PRESET")
hash_of() { sed -n 's/^ *"event_hash": *"\([0-9a-f]*\)".*/\1/p' | head -1; }
NATIVE_HASH=$("$CLI" run --link "$LINK" --json | hash_of)
[[ -n "$NATIVE_HASH" ]] || { say "no event hash in the CLI's report"; exit 1; }

rows=()
for level in $LEVELS; do
    case "$level" in
    3) opt=-O ;;
    s | z) opt=-Oz ;;
    *) say "LEVELS: '$level' is not 3, s or z"; exit 2 ;;
    esac
    dir="$OUT/$level"
    say "opt-level $level: cargo build --release --target wasm32-unknown-unknown -p $PACKAGE"
    CARGO_TARGET_DIR="$dir/target" CARGO_PROFILE_RELEASE_OPT_LEVEL="$level" \
        cargo build --quiet --release --target wasm32-unknown-unknown -p "$PACKAGE" --lib
    wasm="$dir/target/wasm32-unknown-unknown/release/$CRATE.wasm"
    rm -rf "$dir/web" "$dir/node"
    wasm-bindgen --target web --no-typescript --out-dir "$dir/web" "$wasm"
    wasm-opt "$opt" "$dir/web/${CRATE}_bg.wasm" -o "$dir/web/${CRATE}_bg.wasm"
    wasm-bindgen --target nodejs --no-typescript --out-dir "$dir/node" "$wasm"
    cp "$dir/web/${CRATE}_bg.wasm" "$dir/node/${CRATE}_bg.wasm"

    files=("$dir/web/${CRATE}_bg.wasm" "$dir/web/$CRATE.js")
    raw=0 gz=0 br=0
    while IFS=$'\t' read -r _ r b; do
        raw=$((raw + r)) br=$((br + b))
    done < <(node scripts/precompress.mjs "$dir/web" "${files[@]}")
    for f in "${files[@]}"; do gz=$((gz + $(gzip -9 -n -c "$f" | wc -c))); done

    wasm_hash=$(node -e '
        const m = require(process.argv[1]);
        process.stdout.write(JSON.parse(m.run_link(process.argv[2])).event_hash);
    ' "$dir/node/$CRATE.js" "$LINK")
    if [[ "$wasm_hash" != "$NATIVE_HASH" ]]; then
        say "opt-level $level: event hash $wasm_hash in wasm, $NATIVE_HASH natively"
        exit 1
    fi
    if ((gz <= BUDGET)); then
        verdict="within the $BUDGET B gzip budget by $((BUDGET - gz)) B"
    else
        verdict="OVER the $BUDGET B gzip budget by $((gz - BUDGET)) B, before any UI"
    fi
    rows+=("$(printf '  opt-level %-2s wasm-opt %-4s %9d B raw %9d B gzip %9d B brotli  %s' \
        "$level" "$opt" "$raw" "$gz" "$br" "$verdict")")
done

say "the engine alone (module + JS glue), preset $PRESET's event hash $NATIVE_HASH on every side:"
printf '%s\n' "${rows[@]}"
