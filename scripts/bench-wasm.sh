#!/usr/bin/env bash
# wasm versus native, in one command (issue 19, item 3): the same whole-job runs of one
# preset (benches/support/whole_job.rs) natively (`cargo bench --bench whole_job`) and in
# wasm under node (the `bench_wasm` example, built for wasm32 with the site's profile,
# bound by wasm-bindgen --target nodejs and shrunk by wasm-opt at the site's level, so it
# is the engine the page ships), alternating ROUNDS times so both see the same load.
# Prints each round's two throughputs, their medians and the ratio wasm / native, and
# checks that both sides produced the same event hash (the same run).
#
# Environment: PRESET (default large), ROUNDS (default 3), MIN_SECS per side and round
# (default 3), CARGO_PROFILE and WASM_OPT_LEVEL as scripts/build-site.sh takes them.
# Wall-clock figures depend on the machine's load; the ratio is the one to compare.
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ROOT"

PRESET=${PRESET:-large}
ROUNDS=${ROUNDS:-3}
MIN_SECS=${MIN_SECS:-3}
PROFILE=${CARGO_PROFILE:-release}
WASM_OPT_LEVEL=${WASM_OPT_LEVEL:--O}
PKG="$ROOT/target/bench-wasm"
say() { log bench-wasm "$@"; }

say "building the native half (cargo bench --bench whole_job --no-run)"
cargo bench --bench whole_job --no-run --quiet
say "building the wasm half (--profile $PROFILE --target wasm32-unknown-unknown --example bench_wasm)"
cargo build --quiet --profile "$PROFILE" --target wasm32-unknown-unknown --example bench_wasm
rm -rf "$PKG"
mkdir -p "$PKG"
wasm-bindgen --target nodejs --no-typescript --out-dir "$PKG" \
    "$ROOT/target/wasm32-unknown-unknown/$PROFILE/examples/bench_wasm.wasm"
say "wasm-opt $WASM_OPT_LEVEL"
wasm-opt "$WASM_OPT_LEVEL" "$PKG/bench_wasm_bg.wasm" -o "$PKG/bench_wasm_bg.wasm"

result() { sed -n "s/^RESULT $1 hops_per_sec=\([0-9]*\) runs=[0-9]* hash=\(0x[0-9a-f]*\)$/\1 \2/p"; }
native_rates=()
wasm_rates=()
for round in $(seq 1 "$ROUNDS"); do
    out=$(cargo bench --quiet --bench whole_job -- --preset "$PRESET" --min-secs "$MIN_SECS")
    echo "round $round: $(head -n 1 <<<"$out")"
    read -r native_rate native_hash < <(result native <<<"$out")
    out=$(node "$ROOT/benches/wasm/run.mjs" "$PKG" "$PRESET" "$MIN_SECS")
    echo "round $round: $(head -n 1 <<<"$out")"
    read -r wasm_rate wasm_hash < <(result wasm <<<"$out")
    if [[ "$native_hash" != "$wasm_hash" ]]; then
        say "ERROR: the runs differ: native event hash $native_hash, wasm $wasm_hash"
        exit 1
    fi
    native_rates+=("$native_rate")
    wasm_rates+=("$wasm_rate")
done

median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
native=$(median "${native_rates[@]}")
wasm=$(median "${wasm_rates[@]}")
say "$PRESET, event hash $native_hash on both sides, medians of $ROUNDS rounds:"
awk -v n="$native" -v w="$wasm" -v node="$(node --version)" 'BEGIN {
    printf "  native  %7.2f M record-hops/s\n", n / 1e6
    printf "  wasm    %7.2f M record-hops/s (node %s)\n", w / 1e6, node
    printf "  wasm / native: %.0f %% (goal >= 60 %%)\n", 100 * w / n
}'
