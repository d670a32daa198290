#!/usr/bin/env bash
# Builds and runs Loom's pipeline benchmarks (bench/bench_pipelines) and
# prints a table of ratios measured in the same run:
#   Loom / Halide 14 and Loom / plain C++ run time, per workload;
#   blur bytes/s as a fraction of the STREAM-triad bandwidth;
#   matmul GFLOP/s as a fraction of the CPU's peak FLOP rate;
#   Loom / Halide JIT compile time, and Loom's compile time by phase.
#
# Usage: scripts/bench.sh [options] [-- extra benchmark flags]
#   --reps N          repetitions per benchmark (default 10; medians reported)
#   --quick           small problem sizes and 3 repetitions (a smoke test)
#   --no-build        run the existing build/bench/bench_pipelines
#   --wait-load L     wait (up to --wait-max seconds, default 1800) until the
#                     1-minute load average is below L before measuring
#   --stmt            also write each pipeline's lowered statement (Loom and
#                     Halide) and assembly into the results folder
#   --only W          run only workload W (machine, blur, histogram, matmul,
#                     iir, summed_area); may be repeated
#   --out DIR         results folder (default build/bench-results/<time>)
#   --no-interleave   run each benchmark's repetitions back to back instead of
#                     in random order among the workload's other benchmarks
#                     (the default interleaving spreads the machine's drift
#                     over Loom, Halide and C++ alike, so their ratios move
#                     less from run to run)
# Environment: LOOM_BUILD_DIR (default <repo>/build), LOOM_JOBS (default 2),
# LOOM_BENCH_THREADS (default nproc), HL_JIT_TARGET (default: derived from
# /proc/cpuinfo), LOOM_BENCH_FMA_UNITS and LOOM_BENCH_CLOCK_MHZ (override the
# peak-FLOP inputs).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${LOOM_BUILD_DIR:-$ROOT/build}"
JOBS="${LOOM_JOBS:-2}"
REPS=10
QUICK=0
BUILD=1
WAIT_LOAD=""
WAIT_MAX=1800
STMT=0
OUT=""
ONLY=()
EXTRA=()
INTERLEAVE=true

while [[ $# -gt 0 ]]; do
  case "$1" in
    --reps) REPS="$2"; shift 2 ;;
    --quick) QUICK=1; REPS=3; shift ;;
    --no-build) BUILD=0; shift ;;
    --wait-load) WAIT_LOAD="$2"; shift 2 ;;
    --wait-max) WAIT_MAX="$2"; shift 2 ;;
    --stmt) STMT=1; shift ;;
    --only) ONLY+=("$2"); shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --no-interleave) INTERLEAVE=false; shift ;;
    --) shift; EXTRA=("$@"); break ;;
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
    *) echo "bench.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

# ---- The machine ---------------------------------------------------------------

THREADS="${LOOM_BENCH_THREADS:-$(nproc)}"
# shellcheck source=lib/halide_target.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/halide_target.sh"
export HL_JIT_TARGET="${HL_JIT_TARGET:-$(halide_target_for_cpu)}"
export LOOM_NUM_THREADS="$THREADS" HL_NUM_THREADS="$THREADS" OMP_NUM_THREADS="$THREADS"
# Idle OpenMP workers sleep instead of spinning, so they do not steal a core
# from the Loom or Halide benchmark that runs next.
export OMP_WAIT_POLICY=passive
if [[ $QUICK == 1 ]]; then
  export LOOM_BENCH_IMAGE=1024 LOOM_BENCH_MATMUL=256 LOOM_BENCH_TRIAD=4
fi

# ---- Build -----------------------------------------------------------------------

if [[ $BUILD == 1 ]]; then
  configure_args=(-S "$ROOT" -B "$BUILD_DIR" -DLOOM_BUILD_BENCH=ON)
  [[ -f "$BUILD_DIR/CMakeCache.txt" ]] || configure_args+=(-G Ninja -DCMAKE_BUILD_TYPE=Release)
  cmake "${configure_args[@]}" >/dev/null
  cmake --build "$BUILD_DIR" --target bench_pipelines -j "$JOBS"
fi
BIN="$BUILD_DIR/bench/bench_pipelines"
[[ -x "$BIN" ]] || { echo "bench.sh: $BIN is missing (build failed?)" >&2; exit 1; }

# ---- Run -------------------------------------------------------------------------

OUT="${OUT:-$BUILD_DIR/bench-results/$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$OUT"
[[ $STMT == 1 ]] && export LOOM_BENCH_STMT_DIR="$OUT"

load1() { cut -d' ' -f1 /proc/loadavg; }
if [[ -n "$WAIT_LOAD" ]]; then
  waited=0
  while awk -v l="$(load1)" -v t="$WAIT_LOAD" 'BEGIN { exit !(l >= t) }'; do
    if (( waited >= WAIT_MAX )); then
      echo "bench.sh: load still $(load1) after ${WAIT_MAX}s; measuring anyway" >&2
      break
    fi
    sleep 30; waited=$((waited + 30))
  done
fi

WORKLOADS=(machine blur histogram matmul iir summed_area)
[[ ${#ONLY[@]} -gt 0 ]] && WORKLOADS=("${ONLY[@]}")

echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $THREADS threads;" \
     "Halide target $HL_JIT_TARGET; load at start $(cut -d' ' -f1-3 /proc/loadavg)"
cut -d' ' -f1-3 /proc/loadavg > "$OUT/load_start.txt"
# Each workload runs in its own process: a crash in one (say, in Loom's
# generated code) loses only that process. After a crash the workload is run
# again without its Loom benchmarks, so the C++ and Halide figures remain.
for w in "${WORKLOADS[@]}"; do
  flags=(--benchmark_repetitions="$REPS" --benchmark_display_aggregates_only=true
         --benchmark_enable_random_interleaving="$INTERLEAVE"
         --benchmark_out_format=json --benchmark_out="$OUT/$w.json")
  echo "== $w"
  set +e
  timeout 1800 "$BIN" --benchmark_filter="^$w/" "${flags[@]}" "${EXTRA[@]}" > "$OUT/$w.log" 2>&1
  rc=$?
  grep -E '_median|ERROR' "$OUT/$w.log" | sed 's/^/   /' 
  set -e
  if [[ $rc != 0 ]]; then
    echo "bench.sh: $w exited with status $rc; rerunning without Loom" | tee -a "$OUT/crashes.txt"
    echo "$w $rc" >> "$OUT/crashed_workloads.txt"
    set +e
    timeout 1800 "$BIN" --benchmark_filter="^$w/(cpp|halide|compile/halide)/" "${flags[@]}" "${EXTRA[@]}" \
      >> "$OUT/$w.log" 2>&1
    grep -E '_median|ERROR' "$OUT/$w.log" | sed 's/^/   /' 
    set -e
  fi
done
cut -d' ' -f1-3 /proc/loadavg > "$OUT/load_end.txt"
# Where Loom's compile time goes (lowering, LLVM IR, LLVM opt, instruction
# selection); with --stmt this also writes Loom's assembly.
set +e
timeout 600 "$BIN" --loom_compile_breakdown=5 > "$OUT/compile_breakdown.txt" 2>&1
set -e

# ---- Peak FLOP rate --------------------------------------------------------------
# peak = fp32 lanes per vector x FMA units per core x 2 flops per FMA x clock x cores.

VENDOR="$(grep -m1 vendor_id /proc/cpuinfo | cut -d: -f2 | tr -d ' ')"
FAMILY="$(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')"
MODEL="$(grep -m1 '^model\s*:' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')"
CLOCK_MHZ="${LOOM_BENCH_CLOCK_MHZ:-$(grep -m1 'cpu MHz' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')}"
if has_flag avx512f; then LANES=16; elif has_flag avx; then LANES=8; else LANES=4; fi
UNITS=2
UNITS_WHY="2 FMA pipes per core (default assumption)"
if [[ "$VENDOR" == AuthenticAMD ]]; then
  case "$FAMILY" in
    23) if (( MODEL < 48 )); then LANES=4; UNITS_WHY="Zen/Zen+: two 128-bit FMA pipes, so 4 fp32 lanes x 2";
        else UNITS_WHY="Zen 2: two 256-bit FMA pipes"; fi ;;
    25) if has_flag avx512f; then UNITS=1; UNITS_WHY="Zen 4: 512-bit FMAs issue as two 256-bit halves, so 16 lanes x 1";
        else UNITS_WHY="Zen 3 (family 25 without AVX-512): two 256-bit FMA pipes (FP0, FP1)"; fi ;;
    26) UNITS_WHY="Zen 5: two FMA pipes" ;;
  esac
elif [[ "$VENDOR" == GenuineIntel ]]; then
  UNITS_WHY="Intel core: two FMA ports (0 and 1, or 0 and 5 with AVX-512)"
fi
UNITS="${LOOM_BENCH_FMA_UNITS:-$UNITS}"

python3 - "$OUT" "$LANES" "$UNITS" "$CLOCK_MHZ" "$THREADS" "$UNITS_WHY" "$HL_JIT_TARGET" "$REPS" <<'PY' | tee "$OUT/table.txt"
import json, os, sys

out, lanes, units, mhz, threads, units_why, hl_target, reps = sys.argv[1:9]
lanes, units, mhz, threads = int(lanes), int(units), float(mhz), int(threads)
peak = lanes * units * 2 * mhz * 1e6 * threads

medians, cpu_medians, errors, counters, samples = {}, {}, {}, {}, {}
context = {}
for w in ["machine", "blur", "histogram", "matmul", "iir", "summed_area"]:
    path = os.path.join(out, w + ".json")
    if not os.path.exists(path):
        continue
    try:
        data = json.load(open(path))
    except json.JSONDecodeError:
        continue
    context = data.get("context", context)
    for b in data.get("benchmarks", []):
        name = b.get("run_name", b["name"]).split("/min_time")[0].split("/iterations")[0].split("/real_time")[0]
        if b.get("error_occurred"):
            errors[name] = b.get("error_message", "error")
            continue
        if b.get("run_type") != "iteration":
            continue
        unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b.get("time_unit", "ns")]
        samples.setdefault(name, []).append((b["real_time"] * unit, b["cpu_time"] * unit))
        for c in ("bytes", "flops"):
            if c in b:
                counters[(name, c)] = b[c]

def median(values):
    values = sorted(values)
    n = len(values)
    return values[n // 2] if n % 2 else 0.5 * (values[n // 2 - 1] + values[n // 2])

for name, runs in samples.items():
    medians[name] = median([r for r, _ in runs])
    cpu_medians[name] = median([c for _, c in runs])

crashed = {}
cpath = os.path.join(out, "crashed_workloads.txt")
if os.path.exists(cpath):
    for line in open(cpath):
        w, rc = line.split()
        crashed[w] = rc

def ms(name):
    if name in medians:
        return "%.3f" % (medians[name] * 1e3)
    if name in errors:
        return "ERROR"
    w = name.split("/")[0]
    if w in crashed and "loom" in name:
        return "CRASH"
    return "n/a"

def ratio(a, b):
    if a in medians and b in medians:
        return "%.2fx" % (medians[a] / medians[b])
    return "-"

def verdict(ok):
    return "met" if ok else "MISSED"

print()
print("Medians of %s repetitions; wall-clock; %d threads; Halide target %s; Loom target %s"
      % (reps, threads, hl_target,
         context.get("loom_jit_target", "?")))
if os.environ.get("LOOM_BENCH_IMAGE") or os.environ.get("LOOM_BENCH_MATMUL"):
    print("Reduced sizes (image %s, matmul %s): the data may fit in cache, so the fractions of triad bandwidth and"
          " peak below are not meaningful" % (os.environ.get("LOOM_BENCH_IMAGE", "4096"),
                                              os.environ.get("LOOM_BENCH_MATMUL", "1024")))
print("Load average at start %s, at end %s" % (open(os.path.join(out, "load_start.txt")).read().strip(),
                                              open(os.path.join(out, "load_end.txt")).read().strip()))
print()
rows = [("workload", "C++ ms", "Halide ms", "Loom ms", "Loom/Halide", "Loom/C++", "Halide/C++", "target Loom<=1.0x Halide")]
for w in ["blur", "histogram", "matmul", "iir", "summed_area"]:
    l, h, c = w + "/loom", w + "/halide", w + "/cpp"
    target = verdict(medians[l] <= medians[h]) if (l in medians and h in medians) else "MISSED (no Loom time)"
    rows.append((w, ms(c), ms(h), ms(l), ratio(l, h), ratio(l, c), ratio(h, c), target))
widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
for r in rows:
    print("  ".join(v.ljust(widths[i]) for i, v in enumerate(r)))

print()
triad_bw = None
if "machine/triad" in medians and ("machine/triad", "bytes") in counters:
    triad_bw = counters[("machine/triad", "bytes")] / medians["machine/triad"]
    print("STREAM triad bandwidth: %.2f GB/s" % (triad_bw / 1e9))
for impl in ["loom", "halide", "cpp"]:
    name = "blur/" + impl
    if triad_bw and name in medians and (name, "bytes") in counters:
        bw = counters[(name, "bytes")] / medians[name]
        extra = ("  target >=70%%: %s" % verdict(bw >= 0.7 * triad_bw)) if impl == "loom" else ""
        print("blur %-6s %.2f GB/s = %5.1f%% of triad%s" % (impl, bw / 1e9, 100 * bw / triad_bw, extra))
    elif impl == "loom":
        print("blur loom   no time (%s): target >=70%% of triad MISSED" % ms(name))

print()
print("Peak fp32 rate: %d lanes x %d FMA units x 2 flops x %.0f MHz x %d cores = %.1f GFLOP/s"
      % (lanes, units, mhz, threads, peak / 1e9))
print("  (%s)" % units_why)
measured_peak = None
if "machine/fma_peak" in medians and ("machine/fma_peak", "flops") in counters:
    measured_peak = counters[("machine/fma_peak", "flops")] / medians["machine/fma_peak"]
    print("Measured fp32 FMA rate (register-only FMA chains on all threads): %.1f GFLOP/s = %.0f%% of the nominal peak"
          % (measured_peak / 1e9, 100 * measured_peak / peak))
for impl in ["loom", "halide", "cpp"]:
    name = "matmul/" + impl
    if name in medians and (name, "flops") in counters:
        rate = counters[(name, "flops")] / medians[name]
        extra = ("  target >=50%%: %s" % verdict(rate >= 0.5 * peak)) if impl == "loom" else ""
        measured = (" (%.1f%% of measured)" % (100 * rate / measured_peak)) if measured_peak else ""
        print("matmul %-6s %.1f GFLOP/s = %5.1f%% of peak%s%s" % (impl, rate / 1e9, 100 * rate / peak, measured, extra))
    elif impl == "loom":
        print("matmul loom   no time (%s): target >=50%% of peak MISSED" % ms(name))

print()
# Compiling is single-threaded: its CPU time is shown too, since it is less
# disturbed by other processes on a busy machine than the wall-clock time.
def cpu_ms(name):
    return "%.1f" % (cpu_medians[name] * 1e3) if name in cpu_medians else "-"

def cpu_ratio(a, b):
    return "%.2fx" % (cpu_medians[a] / cpu_medians[b]) if (a in cpu_medians and b in cpu_medians) else "-"

rows = [("JIT compile", "Halide ms", "Loom ms", "Loom/Halide", "target <=0.5x", "Halide cpu ms", "Loom cpu ms",
         "cpu Loom/Halide")]
for w in ["blur", "histogram", "matmul", "iir", "summed_area"]:
    l, h = w + "/compile/loom", w + "/compile/halide"
    target = verdict(medians[l] <= 0.5 * medians[h]) if (l in medians and h in medians) else "MISSED (no Loom time)"
    rows.append((w, ms(h), ms(l), ratio(l, h), target, cpu_ms(h), cpu_ms(l), cpu_ratio(l, h)))
widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
for r in rows:
    print("  ".join(v.ljust(widths[i]) for i, v in enumerate(r)))

if errors or crashed:
    print()
    print("Errors (benchmarks that were not timed):")
    for name in sorted(errors):
        print("  %s: %s" % (name, errors[name]))
    for w in sorted(crashed):
        print("  %s: the process exited with status %s while running Loom" % (w, crashed[w]))
PY
echo
cat "$OUT/compile_breakdown.txt"
echo
echo "Results: $OUT"
