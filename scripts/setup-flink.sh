#!/usr/bin/env bash
# Installs what running scenarios on real Apache Flink needs (issue 16), and only what is
# missing: JDK 17 from Debian (`java`, `javac`) and Flink 2.3.0 from PyPI
# (`pip install apache-flink==2.3.0`) into the project-local virtual environment
# `.flink-venv/` (or $FLINK_VENV), whose `pyflink/lib/*.jar` the exported jobs compile
# against and run with. Nothing is downloaded from outside the package registries.
# Idempotent and fast when everything is there (a version check each, ~0.5 s).
# Prints `PYFLINK_LIB=<dir>` as its last line.
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

FLINK_VERSION=2.3.0
VENV="${FLINK_VENV:-$ROOT/.flink-venv}"
START=$(now)
say() { log setup-flink "$@"; }

# --- JDK 17 (javac is what the JRE alone lacks) ----------------------------------
if command -v javac >/dev/null 2>&1 && javac -version 2>&1 | grep -Eq 'javac (1[7-9]|2[0-9])'; then
    say "ok: $(javac -version 2>&1)"
else
    say "installing Debian package openjdk-17-jdk-headless (~1 min)"
    SUDO=()
    if [[ $(id -u) -ne 0 ]]; then SUDO=(sudo); fi
    "${SUDO[@]}" apt-get update -qq
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq openjdk-17-jdk-headless </dev/null
fi

# --- Flink in a project-local venv ------------------------------------------------
pyflink_lib() {
    ls -d "$VENV"/lib/python3*/site-packages/pyflink/lib 2>/dev/null | head -n1
}
LIB=$(pyflink_lib || true)
if [[ -n "$LIB" && -f "$LIB/flink-dist-$FLINK_VERSION.jar" ]]; then
    say "ok: apache-flink $FLINK_VERSION in $VENV"
else
    say "installing apache-flink==$FLINK_VERSION into $VENV (~40 s, ~840 MB)"
    [[ -x "$VENV/bin/pip" ]] || python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q --disable-pip-version-check "apache-flink==$FLINK_VERSION" </dev/null
    LIB=$(pyflink_lib)
    [[ -f "$LIB/flink-dist-$FLINK_VERSION.jar" ]] || {
        say "ERROR: no flink-dist-$FLINK_VERSION.jar under $LIB after pip install"
        exit 1
    }
fi
say "done in $(elapsed "$START") s"
echo "PYFLINK_LIB=$LIB"
