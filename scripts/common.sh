# shellcheck shell=bash
# Shared by the scripts in this folder (sourced, not run): the repository root, the
# tool PATH and small logging helpers. No side effects beyond variables and PATH.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export ROOT

# cargo-installed tools (wasm-bindgen, wasm-pack), then the project's npm tools:
# binaryen's wasm-opt must come before any older system wasm-opt.
export PATH="$ROOT/www/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

# The crate's wasm-bindgen version, read from Cargo.lock: the CLI must match it exactly.
wasm_bindgen_version() {
    awk '/^name = "wasm-bindgen"$/ { found = 1; next }
         found && /^version = / { gsub(/"/, "", $3); print $3; exit }' "$ROOT/Cargo.lock"
}

# `log SCRIPT MESSAGE`: one line, prefixed with the script's name.
log() {
    local who="$1"
    shift
    printf '%s: %s\n' "$who" "$*"
}

# Seconds since the epoch with two decimals, for timing steps.
now() {
    date +%s.%N
}

# `elapsed START`: seconds since START, one decimal.
elapsed() {
    awk -v s="$1" -v e="$(now)" 'BEGIN { printf "%.1f", e - s }'
}
