#!/usr/bin/env bash
# Configures (Ninja, Release) and builds Loom into build/ at the repository
# root. Extra arguments go to the CMake configure step, e.g.
#   ./scripts/build.sh -DLOOM_BUILD_BENCH=ON
# Environment: LOOM_BUILD_DIR (default <repo>/build), LOOM_BUILD_TYPE
# (default Release), LOOM_JOBS (default: number of CPUs).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${LOOM_BUILD_DIR:-$ROOT/build}"
BUILD_TYPE="${LOOM_BUILD_TYPE:-Release}"
JOBS="${LOOM_JOBS:-$(nproc)}"

configure_args=(-S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE="$BUILD_TYPE")
# An existing build tree keeps the generator it was made with.
if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]]; then
  configure_args+=(-G Ninja)
fi

cmake "${configure_args[@]}" "$@"
cmake --build "$BUILD_DIR" -j "$JOBS"
