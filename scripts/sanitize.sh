#!/usr/bin/env bash
# Builds Loom and its test suite with AddressSanitizer and
# UndefinedBehaviorSanitizer (leaks included) in a build folder of its own,
# then runs the tests with CTest. Exits non-zero on any sanitizer report or
# test failure. Arguments go to ctest, e.g.
#   ./scripts/sanitize.sh                                  # every CPU test
#   ./scripts/sanitize.sh -L 'runtime|ir|lang|lower|e2e'   # some labels
#
# Environment:
#   LOOM_SANITIZE_BUILD_DIR  build folder (default <repo>/build-asan)
#   LOOM_JOBS                build and ctest jobs (default: number of CPUs)
#   LOOM_SANITIZE_TARGETS    targets to build, space separated (default: all);
#                            e.g. "test_ir test_lang" to build only those
#   LOOM_SANITIZE_VULKAN=1   also run the tests labelled vulkan (see below)
#   LOOM_SANITIZE_BUILD_ONLY=1  build, run nothing (e.g. while another build
#                            uses the tests' cores)
#
# What is built: the library and every test executable. Tutorials,
# benchmarks and the apps' AOT half are off: they add build time and no code
# of the library that the tests do not already run.
#
# What is not instrumented, and why that is fine:
# - The AOT runtime bitcode (cmake/LoomRuntime.cmake) is compiled by its own
#   clang command without CMAKE_C_FLAGS: it is freestanding and linked into
#   generated code, where sanitizer calls would be undefined symbols. The same
#   C sources are compiled into libLoom with the sanitizers, so the JIT's
#   runtime is checked.
# - Code that Loom generates (JIT and AOT) is not instrumented; its calls into
#   the runtime (allocation, buffers, threads) are.
#
# Vulkan: the tests labelled vulkan are left out unless LOOM_SANITIZE_VULKAN=1.
# They run the Vulkan loader, the Khronos validation layer and Mesa's
# lavapipe (with its own LLVM) in the process; none of those is instrumented,
# and their allocations kept for the process's life read as leaks to LSan. To
# run them, third-party entries go in scripts/sanitize-suppressions.txt, never
# Loom's own code.
#
# Leaks: LeakSanitizer runs at the exit of each test process
# (detect_leaks=1). Suppressions (scripts/sanitize-suppressions.txt) name only
# third-party libraries, each with the reason.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${LOOM_SANITIZE_BUILD_DIR:-$ROOT/build-asan}"
JOBS="${LOOM_JOBS:-$(nproc)}"
SUPPRESSIONS="$ROOT/scripts/sanitize-suppressions.txt"

# -O1 keeps the build and the tests fast while stack traces stay readable;
# -fno-sanitize-recover makes the first undefined behaviour fail its test.
SANITIZE_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"

configure_args=(
  -S "$ROOT" -B "$BUILD_DIR"
  -DCMAKE_BUILD_TYPE=RelWithDebInfo
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g -DNDEBUG"
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g -DNDEBUG"
  "-DCMAKE_C_FLAGS=$SANITIZE_FLAGS"
  "-DCMAKE_CXX_FLAGS=$SANITIZE_FLAGS"
  "-DCMAKE_EXE_LINKER_FLAGS=$SANITIZE_FLAGS"
  "-DCMAKE_SHARED_LINKER_FLAGS=$SANITIZE_FLAGS"
  "-DCMAKE_MODULE_LINKER_FLAGS=$SANITIZE_FLAGS"
  -DLOOM_BUILD_TESTS=ON
  -DLOOM_BUILD_TUTORIALS=OFF
  -DLOOM_BUILD_BENCH=OFF
  -DLOOM_APPS_AOT=OFF
  # List the tests when CTest runs rather than after each link, so that the
  # build does not run instrumented executables.
  -DCMAKE_GTEST_DISCOVER_TESTS_DISCOVERY_MODE=PRE_TEST
)
# An existing build tree keeps the generator it was made with.
if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]]; then
  configure_args+=(-G Ninja)
fi
cmake "${configure_args[@]}"

build_args=(--build "$BUILD_DIR" -j "$JOBS")
if [[ -n "${LOOM_SANITIZE_TARGETS:-}" ]]; then
  read -r -a targets <<<"$LOOM_SANITIZE_TARGETS"
  build_args+=(--target "${targets[@]}")
fi
cmake "${build_args[@]}"
if [[ "${LOOM_SANITIZE_BUILD_ONLY:-0}" == 1 ]]; then
  exit 0
fi

# halt_on_error: a report ends the process, so the test fails.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$SUPPRESSIONS:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

ctest_args=(--test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS")
if [[ "${LOOM_SANITIZE_VULKAN:-0}" != 1 ]]; then
  ctest_args+=(-LE vulkan)
fi
# The install test rebuilds a project against an installed Loom; it checks
# packaging, not memory, and its nested build would not carry the flags.
ctest_args+=(-E '^install_package$')
ctest "${ctest_args[@]}" "$@"
