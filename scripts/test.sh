#!/usr/bin/env bash
# Runs every test layer of the playground and fails if any fails:
#   1 format   cargo fmt --check
#   2 lint     cargo clippy -D warnings, natively (all targets) and for wasm32 (the UI)
#   3 native   cargo test: unit, integration and doc tests, then 3,000 more property seeds
#              and 500 random resubmissions in a release build (tests/engine_properties.rs)
#   4 wasm     tests/wasm_*.rs in headless Chromium (wasm-bindgen-test-runner)
#   5 e2e      the release site built, served on 127.0.0.1 as serve.sh serves it (precompressed),
#              driven by playwright-core
#   6 flink    every preset's export compiles against real Flink 2.3.0, and a short export
#              runs on a MiniCluster in AC and UC (scripts/test-flink.sh)
# Each layer's full output goes to target/test-logs/<layer>.log; the terminal gets
# the runners' summary lines (the whole log of a layer that failed), or everything
# with VERBOSE=1. Runs scripts/setup.sh first (skip with SKIP_SETUP=1).
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ROOT"

say() { log test.sh "$@"; }
START=$(now)
LOGS="$ROOT/target/test-logs"

if [[ "${SKIP_SETUP:-0}" != 1 ]]; then
    bash "$ROOT/scripts/setup.sh"
fi
mkdir -p "$LOGS"
# A CI clone builds each profile once: incremental caches (~1.7 GB of target/ with them)
# would only cost disk and time.
if [[ "${CI:-}" == true ]]; then
    export CARGO_INCREMENTAL=0
fi
# `disk`: the free space where target/ lives, and target/'s size (a layer that runs out of
# disk fails with rustc's or the JVM's "No space left on device" in its log).
disk() {
    local free size
    free=$(df -h --output=avail "$ROOT" 2>/dev/null | tail -n 1 | tr -d ' ')
    size=$(du -sh "$ROOT/target" 2>/dev/null | cut -f1)
    echo "target/ ${size:-0}, ${free:-?} free"
}
say "disk: $(disk)"

# `step LAYER CMD...`: runs CMD with its output appended to LAYER's log (and shown
# when VERBOSE=1); returns CMD's status.
step() {
    local layer="$1"
    shift
    printf '$ %s\n' "$*" >>"$LOGS/$layer.log"
    if [[ "${VERBOSE:-0}" == 1 ]]; then
        "$@" 2>&1 | tee -a "$LOGS/$layer.log"
        return "${PIPESTATUS[0]}"
    else
        "$@" >>"$LOGS/$layer.log" 2>&1
    fi
}

# --- the layers -------------------------------------------------------------------

# Browser test files: tests/wasm_*.rs (each one `#![cfg(target_arch = "wasm32")]`).
WASM_TESTS=()
for file in tests/wasm_*.rs; do
    [[ -e "$file" ]] && WASM_TESTS+=(--test "$(basename "$file" .rs)")
done

layer_format() {
    step format cargo fmt --check
}

layer_lint() {
    step lint cargo clippy --all-targets -- -D warnings &&
        step lint cargo clippy --target wasm32-unknown-unknown --lib "${WASM_TESTS[@]}" -- -D warnings
}

# The debug `cargo test` runs the first 320 property seeds and 48 resubmission seeds; the
# release build runs the next 3,000 (seeds 321..3320) and 500 resubmissions (321..820), so
# no seed runs twice. (A 3,000-case resubmission sweep found what 48 did not: seed 7000191.)
layer_native() {
    step native cargo test --no-fail-fast &&
        step native env CP_PROPERTY_BASE=321 CP_PROPERTY_CASES=3000 CP_RESUBMIT_CASES=500 \
            cargo test --profile property --test engine_properties random -- --nocapture
}

layer_wasm() {
    if ((${#WASM_TESTS[@]} == 0)); then
        echo "no tests/wasm_*.rs" >>"$LOGS/wasm.log"
        return 1
    fi
    step wasm env \
        CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
        CHROMEDRIVER=/usr/bin/chromedriver \
        WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-180}" \
        WASM_BINDGEN_TEST_DRIVER_TIMEOUT="${WASM_BINDGEN_TEST_DRIVER_TIMEOUT:-60}" \
        cargo test --target wasm32-unknown-unknown "${WASM_TESTS[@]}"
}

SERVER_PID=""
stop_server() {
    if [[ -n "$SERVER_PID" ]]; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
        SERVER_PID=""
    fi
}
trap stop_server EXIT

layer_e2e() {
    step e2e bash "$ROOT/scripts/build-site.sh" || return 1
    local port
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    python3 "$ROOT/scripts/serve_dist.py" "$ROOT/dist" "$port" >>"$LOGS/e2e-server.log" 2>&1 &
    SERVER_PID=$!
    local url="http://127.0.0.1:$port/"
    local tries=0
    until python3 -c "import urllib.request, sys; urllib.request.urlopen(sys.argv[1], timeout=1)" "$url" 2>/dev/null; do
        tries=$((tries + 1))
        if ((tries > 50)) || ! kill -0 "$SERVER_PID" 2>/dev/null; then
            echo "the site server did not come up on $url" >>"$LOGS/e2e.log"
            return 1
        fi
        sleep 0.2
    done
    echo "serving dist/ on $url" >>"$LOGS/e2e.log"
    local status=0
    (cd "$ROOT/www" && step e2e env BASE_URL="$url" node --test --test-reporter=spec e2e/*.test.mjs) || status=$?
    stop_server
    return "$status"
}

layer_flink() {
    step flink bash "$ROOT/scripts/test-flink.sh"
}

# Prints the lines of LAYER's log that summarise its runners.
summary() {
    local log="$LOGS/$1.log" lines
    case "$1" in
        format)
            lines=$(grep -E '^Diff in' "$log" | head -n 20 || true)
            echo "${lines:-  rustfmt: every file formatted}" ;;
        lint)
            lines=$(grep -E '^(warning|error)(\[|:)' "$log" | sort | uniq -c | head -n 20 || true)
            echo "${lines:-  clippy: no warnings, native (all targets) and wasm32 (lib + browser tests)}" ;;
        native | wasm)
            grep -E '^test result:' "$log" | sed 's/^/  /'
            grep -E '^[0-9]+ random cases from seed' "$log" | sed 's/^/  /' || true ;;
        e2e)
            grep -E 'bytes raw' "$log" | sed 's/^/ /'
            grep -E '^ℹ (tests|pass|fail|duration_ms)' "$log" | sed 's/^/  /' ;;
        flink)
            grep -E '^(test-flink: |  (aligned|unaligned))' "$log" | sed 's/^/  /' ;;
    esac
}

LAYERS=(format lint native wasm e2e flink)
FAILED=()
for layer in "${LAYERS[@]}"; do
    : >"$LOGS/$layer.log"
    say "[$layer] running (log: target/test-logs/$layer.log)"
    layer_start=$(now)
    if "layer_$layer"; then
        say "[$layer] passed in $(elapsed "$layer_start") s"
        summary "$layer" || true
    else
        say "[$layer] FAILED in $(elapsed "$layer_start") s; its log:"
        [[ "${VERBOSE:-0}" == 1 ]] || tail -n 150 "$LOGS/$layer.log" | sed 's/^/  | /'
        if grep -q 'No space left on device' "$LOGS/$layer.log"; then
            say "[$layer] the disk ran out of space (disk: $(disk)); not a test failure of its own"
        fi
        summary "$layer" || true
        FAILED+=("$layer")
    fi
done

say "disk: $(disk)"
if ((${#FAILED[@]} == 0)); then
    say "finished in $(elapsed "$START") s"
    echo "test.sh: all ${#LAYERS[@]} layers passed"
else
    say "finished in $(elapsed "$START") s"
    echo "test.sh: ${#FAILED[@]} of ${#LAYERS[@]} layers failed: ${FAILED[*]}"
    exit 1
fi
