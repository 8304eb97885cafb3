#!/usr/bin/env bash
# Sets up the machine (scripts/setup.sh), builds the release site into dist/
# (scripts/build-site.sh) and serves it on http://127.0.0.1:8080/ until Ctrl-C, with
# scripts/serve_dist.py: the precompressed .br / .gz copies the build wrote go out with
# Content-Encoding to a browser that accepts them. PORT overrides the port.
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

PORT=${PORT:-8080}
# Real Flink (the 6th test layer) is not needed to serve the page.
SETUP_FLINK=0 bash "$ROOT/scripts/setup.sh"
bash "$ROOT/scripts/build-site.sh"
log serve "open http://127.0.0.1:$PORT/ (Ctrl-C stops the server)"
exec python3 "$ROOT/scripts/serve_dist.py" "$ROOT/dist" "$PORT"
