#!/usr/bin/env bash
# Sets up the machine, builds Loom and runs the main demo application.
# Arguments are passed to the demo.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${LOOM_BUILD_DIR:-$ROOT/build}"
DEMO="$BUILD_DIR/apps/demo/loom_demo"

"$ROOT/scripts/setup.sh"
"$ROOT/scripts/build.sh"

if [[ ! -x "$DEMO" ]]; then
  echo "demo.sh: the demo was not built: $DEMO does not exist." >&2
  echo "demo.sh: (is apps/demo in this checkout, and does apps/CMakeLists.txt add it?)" >&2
  exit 1
fi
cd "$ROOT"
exec "$DEMO" "$@"
