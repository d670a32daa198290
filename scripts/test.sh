#!/usr/bin/env bash
# Sets up the machine, builds Loom and runs the whole test suite with CTest.
# Exits non-zero if anything fails. Arguments are passed to ctest, e.g.
#   ./scripts/test.sh -L runtime
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${LOOM_BUILD_DIR:-$ROOT/build}"

"$ROOT/scripts/setup.sh"
"$ROOT/scripts/build.sh"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j2 "$@"
