#!/usr/bin/env bash
# Builds bench/apps (bench_apps) and prints the apps table: each app of apps/
# with its own algorithm and CPU schedule, as Loom JIT and as Halide 14 JIT
# (the same source compiled against Halide 14), against the app's
# single-threaded C++ reference, medians of repetitions in one run; and
# matmul's share of the machine's FMA peak, measured in the same run.
#
# Usage: scripts/bench_apps.sh [BUILD_DIR] [options] [-- extra benchmark flags]
#   BUILD_DIR       a build configured with -DLOOM_BUILD_BENCH=ON (default:
#                   $LOOM_BUILD_DIR or <repo>/build); configured here if new
#   --reps N        repetitions (default 10; medians are reported)
#   --threads N     threads for Loom, Halide and the FMA peak (default 2)
#   --no-build      run the existing binary
#   --only REGEX    run only benchmarks matching REGEX (e.g. 'matmul|machine')
#   --out DIR       results folder (default BUILD_DIR/bench-results/apps-<time>)
# Environment: HL_JIT_TARGET (default: derived from /proc/cpuinfo, as
# scripts/bench.sh does), LOOM_JOBS (default 2), LOOM_APPS_BENCH_SIZE (WxH,
# default 1920x1080), LOOM_APPS_BENCH_MATMUL (default 1024),
# LOOM_APPS_BENCH_LEVELS (local_laplacian's pyramid levels, default 8).
set -euo pipefail

ARGS="$*"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${LOOM_BUILD_DIR:-$ROOT/build}"
if [[ $# -gt 0 && "$1" != -* ]]; then
  BUILD_DIR="$1"
  shift
fi
[[ "$BUILD_DIR" = /* ]] || BUILD_DIR="$PWD/$BUILD_DIR"
REPS=10
THREADS=2
BUILD=1
ONLY=""
OUT=""
EXTRA=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --reps) REPS="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    --only) ONLY="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --) shift; EXTRA=("$@"); break ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "bench_apps.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

# shellcheck source=lib/halide_target.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/halide_target.sh"
export HL_JIT_TARGET="${HL_JIT_TARGET:-$(halide_target_for_cpu)}"
export LOOM_NUM_THREADS="$THREADS" HL_NUM_THREADS="$THREADS" OMP_NUM_THREADS="$THREADS"
export OMP_WAIT_POLICY=passive

if [[ $BUILD == 1 ]]; then
  configure_args=(-S "$ROOT" -B "$BUILD_DIR" -DLOOM_BUILD_BENCH=ON)
  [[ -f "$BUILD_DIR/CMakeCache.txt" ]] || configure_args+=(-G Ninja -DCMAKE_BUILD_TYPE=Release)
  cmake "${configure_args[@]}" >/dev/null
  cmake --build "$BUILD_DIR" --target bench_apps -j "${LOOM_JOBS:-2}"
fi
BIN="$BUILD_DIR/bench/apps/bench_apps"
[[ -x "$BIN" ]] || { echo "bench_apps.sh: $BIN is missing (build failed, or apps/ not built?)" >&2; exit 1; }

OUT="${OUT:-$BUILD_DIR/bench-results/apps-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$OUT"
COMMIT="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
DIRTY="$(git -C "$ROOT" status --porcelain --untracked-files=no -- apps bench src include 2>/dev/null | head -1)"
[[ -n "$DIRTY" ]] && COMMIT="$COMMIT (with uncommitted changes)"
UPTIME_START="$(uptime)"
flags=(--benchmark_repetitions="$REPS" --benchmark_display_aggregates_only=true
       --benchmark_enable_random_interleaving=true
       --benchmark_out_format=json --benchmark_out="$OUT/bench_apps.json")
[[ -n "$ONLY" ]] && flags+=(--benchmark_filter="$ONLY")
set +e
"$BIN" "${flags[@]}" "${EXTRA[@]}" > "$OUT/bench_apps.log" 2>&1
rc=$?
set -e
UPTIME_END="$(uptime)"
[[ $rc == 0 ]] || echo "bench_apps.sh: bench_apps exited with status $rc (see $OUT/bench_apps.log)" >&2

python3 - "$OUT/bench_apps.json" "$REPS" "$THREADS" "$HL_JIT_TARGET" "$COMMIT" "$UPTIME_START" "$UPTIME_END" \
  "$(date -u '+%Y-%m-%d %H:%M UTC')" "scripts/bench_apps.sh $ARGS" <<'PY' | tee "$OUT/table.txt"
import json, os, sys

path, reps, threads, hl_target, commit, up_start, up_end, when, command = sys.argv[1:10]
samples, errors, counters = {}, {}, {}
data = json.load(open(path)) if os.path.exists(path) else {"benchmarks": []}
for b in data.get("benchmarks", []):
    name = b.get("run_name", b["name"]).split("/min_time")[0].split("/real_time")[0]
    if b.get("error_occurred"):
        errors[name] = b.get("error_message", "error").strip()
        continue
    if b.get("run_type") != "iteration":
        continue
    unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b.get("time_unit", "ns")]
    samples.setdefault(name, []).append(b["real_time"] * unit)
    for c in ("flops", "compile_ms"):
        if c in b:
            counters[(name, c)] = b[c]

def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])

med = {k: median(v) for k, v in samples.items()}

def ms(name):
    if name in med:
        return "%.2f" % (med[name] * 1e3)
    return "ERROR" if name in errors else "n/a"

print("Apps: Loom JIT vs Halide 14 JIT (same algorithm and schedule) vs single-threaded C++")
print("%s, commit %s, %s; medians of %s repetitions, wall clock, %s threads" % (when, commit, command, reps, threads))
print("Halide target %s" % hl_target)
print("uptime at start:%s" % up_start.split("load")[-1].replace("average", "load average"))
print("uptime at end:  %s" % up_end.split("load")[-1].replace("average", "load average"))
print()
rows = [("app", "Loom ms", "Halide 14 ms", "C++ ms", "Loom/Halide", "C++/Loom", "Loom compile ms", "Halide compile ms",
         "targets (Loom <= Halide, C++/Loom >= 1.5)")]
apps = ["blur", "iir_blur", "matmul", "bilateral_grid", "local_laplacian", "histogram_equalize"]
for app in apps:
    l, h, c = app + "/loom", app + "/halide14", app + "/cpp"
    if not any(n in med or n in errors for n in (l, h, c)):
        continue
    lh = "%.2fx" % (med[l] / med[h]) if l in med and h in med else "-"
    cl = "%.2fx" % (med[c] / med[l]) if l in med and c in med else "-"
    verdicts = []
    if l in med and h in med:
        verdicts.append("vs Halide " + ("met" if med[l] <= med[h] else "MISSED"))
    else:
        verdicts.append("vs Halide: no time")
    if l in med and c in med:
        verdicts.append("vs C++ " + ("met" if med[c] / med[l] >= 1.5 else "MISSED"))
    lc = counters.get((l, "compile_ms"))
    hc = counters.get((h, "compile_ms"))
    rows.append((app, ms(l), ms(h), ms(c), lh, cl, "%.0f" % lc if lc else "-", "%.0f" % hc if hc else "-",
                 ", ".join(verdicts)))
widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
for r in rows:
    print("  ".join(v.ljust(widths[i]) for i, v in enumerate(r)).rstrip())

peak_name = "machine/fma_peak"
if peak_name in med and (peak_name, "flops") in counters:
    peak = counters[(peak_name, "flops")] / med[peak_name]
    print()
    print("Measured fp32 FMA peak (register-only FMA chains, %s threads): %.1f GFLOP/s" % (threads, peak / 1e9))
    for impl in ("loom", "halide14", "cpp"):
        name = "matmul/" + impl
        if name in med and (name, "flops") in counters:
            rate = counters[(name, "flops")] / med[name]
            extra = ("  target >= 80%%: %s" % ("met" if rate >= 0.8 * peak else "MISSED")) if impl == "loom" else ""
            print("matmul %-8s %7.1f GFLOP/s = %5.1f%% of the measured peak%s" % (impl, rate / 1e9, 100 * rate / peak,
                                                                            extra))
if errors:
    print()
    print("Not timed (errors):")
    for name in sorted(errors):
        print("  %s: %s" % (name, errors[name]))
PY
echo "Results: $OUT"
