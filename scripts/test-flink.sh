#!/usr/bin/env bash
# The 6th test layer (issue 16): the simulator held against real Apache Flink 2.3.0.
#   1. every preset's export compiles (javac against the apache-flink pip package's jars;
#      one javac run: each preset's ScenarioJob.java goes into its own package, the only
#      line changed, beside one copy of the fixed runtime Playground.java);
#   2. tests/flink/short.json (backpressure, a failure at 10 s, a two-phase-commit sink) runs
#      ~22 s of scenario time per mode, AC and UC, on a MiniCluster (`checkpoint-playground
#      calibrate`, each JVM in its own process group with a hard time limit, REST on
#      127.0.0.1), and Flink's own REST statistics must show: UC checkpoints persist
#      in-flight data and AC ones do not, the configured failure happened and the job
#      recovered (restored a checkpoint, completed checkpoints after the failure), and the
#      two-phase-commit sink's committed records hold no duplicate.
# Timings are printed, never asserted. Needs scripts/setup-flink.sh (run by setup.sh).
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ROOT"
say() { log test-flink "$@"; }

LIB=$(bash "$ROOT/scripts/setup-flink.sh" | sed -n 's/^PYFLINK_LIB=//p')
[[ -d "$LIB" ]] || { say "ERROR: no pyflink/lib (scripts/setup-flink.sh failed)"; exit 1; }
export PYFLINK_LIB="$LIB"
cargo build --quiet --bin checkpoint-playground
BIN="$ROOT/target/debug/checkpoint-playground"
WORK="$ROOT/target/flink-layer"
rm -rf "$WORK"
mkdir -p "$WORK/exports" "$WORK/compile/src"

# --- 1. every preset's export compiles ----------------------------------------------
t=$(now)
for p in $("$BIN" presets); do
    "$BIN" export --flink "$WORK/exports/$p" --preset "$p" >/dev/null
    pkg="check_${p//-/_}"
    mkdir -p "$WORK/compile/src/$pkg"
    sed "s/^package playground;/package $pkg;/" \
        "$WORK/exports/$p/src/main/java/playground/ScenarioJob.java" \
        >"$WORK/compile/src/$pkg/ScenarioJob.java"
done
mkdir -p "$WORK/compile/src/playground"
first=$("$BIN" presets | head -n1)
cp "$WORK/exports/$first/src/main/java/playground/Playground.java" "$WORK/compile/src/playground/"
count=$(find "$WORK/compile/src" -name ScenarioJob.java | wc -l)
javac -nowarn -encoding UTF-8 -d "$WORK/compile/classes" -cp "$LIB/*" \
    $(find "$WORK/compile/src" -name '*.java') 2>&1 | grep -v '^Note:' || true
[[ $(find "$WORK/compile/classes" -name ScenarioJob.class | wc -l) == "$count" ]] || {
    say "FAILED: not every preset's export compiled"
    exit 1
}
say "every preset's export compiles: $count jobs in $(elapsed "$t") s"

# --- 2. a short export on a real MiniCluster, AC and UC ---------------------------
t=$(now)
"$BIN" calibrate tests/flink/short.json --modes aligned,unaligned \
    --work "$WORK/short" --json "$WORK/short.json"
say "short run on Flink, two modes: $(elapsed "$t") s"
python3 - "$WORK/short.json" <<'PY'
import json, sys
cal = json.load(open(sys.argv[1]))
problems = []
by_mode = {m["mode"]: m for m in cal["modes"]}
for label, m in by_mode.items():
    if not m["flink_started"]:
        problems.append(f"{label}: Flink did not start: {m['error']}")
        continue
    done = [c for c in m["flink_checkpoints"] if c["completed"]]
    persisted = sum(c["persisted_bytes"] for c in done)
    unaligned = label.startswith("unaligned")
    print(f"  {label}: {len(done)} completed checkpoints, persisted in-flight {persisted:.0f} B in total, "
          f"{sum(1 for c in done if c['unaligned'])} unaligned; failures at "
          f"{[round(f / 1000, 1) for f in m['flink_failure_ms']]} s; restored checkpoint "
          f"{m['flink_restored_checkpoint']}; job {m['flink_job_status']}")
    if unaligned and not any(c["persisted_bytes"] > 0 and c["unaligned"] for c in done):
        problems.append(f"{label}: no completed unaligned checkpoint persisted in-flight data")
    if not unaligned and (persisted > 0 or any(c["unaligned"] for c in done)):
        problems.append(f"{label}: an aligned checkpoint persisted in-flight data or was unaligned")
    if not m["flink_failure_ms"]:
        problems.append(f"{label}: the configured failure did not happen")
    else:
        first = min(m["flink_failure_ms"])
        after = [c for c in done if c["trigger_ms"] > first]
        if m["flink_restored_checkpoint"] is None or not after or m["flink_job_status"] != "RUNNING":
            problems.append(f"{label}: the job did not recover (restored {m['flink_restored_checkpoint']}, "
                            f"{len(after)} checkpoints completed after the failure, job {m['flink_job_status']})")
    for k in m["sinks"]:
        print(f"  {label}: sink {k['sink']}: {k['committed_lines']} committed records, "
              f"{k['duplicates']} duplicates")
        if k["committed_lines"] == 0 or k["duplicates"] != 0:
            problems.append(f"{label}: sink {k['sink']} is not exactly-once "
                            f"({k['committed_lines']} committed, {k['duplicates']} duplicates)")
if len(by_mode) != 2:
    problems.append(f"expected two modes, got {list(by_mode)}")
for p in problems:
    print("  FAILED: " + p)
sys.exit(1 if problems else 0)
PY
# Each JVM's temporary files (Flink's extracted RPC jar, the MiniCluster's working folder)
# went to its mode's work folder, which the next run removes, and not to the system's /tmp.
for d in "$WORK"/short/*/; do
    compgen -G "$d/tmp/minicluster_*" >/dev/null || {
        say "FAILED: no MiniCluster working folder in ${d}tmp (java.io.tmpdir not honoured)"
        exit 1
    }
done
say "passed"
