#!/usr/bin/env bash
# The ONNX Loop benchmark: Loom (loom::onnx, Google Benchmark) against ONNX
# Runtime 1.30 (onnxruntime-node from npm, run from node) on the three models
# of onnx_bench_models.cpp, same inputs, same machine, one after the other.
# Prints a table of medians (1 and 2 threads), ratios and compile times.
#
#     bench/onnx/run.sh [build dir]          # default: build-apps2
#
# The build dir must be configured with -DLOOM_BUILD_BENCH=ON. ONNX Runtime
# is a benchmark-only dependency, installed under <build dir>/ort (never
# committed). LOOM_BENCH_ONNX_MODELS=rnn,add_step limits the models.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build-apps2}" && pwd)
ninja -C "$build" onnx_bench_models onnx_bench_loom >/dev/null

ort=$build/ort
binding=$ort/node_modules/onnxruntime-node/bin/napi-v6/linux/x64/onnxruntime_binding.node
if [ ! -e "$binding" ]; then
  # The npm package ships the Linux x64 binary; --ignore-scripts skips the
  # install script, which only fetches CUDA/TensorRT extras.
  mkdir -p "$ort"
  (cd "$ort" && npm install --ignore-scripts --no-audit --no-fund onnxruntime-node@1.30.0 >/dev/null)
fi

models=$build/onnx-models
out=$build/onnx-bench-results
mkdir -p "$out"
"$build/bench/onnx/onnx_bench_models" "$models" >/dev/null

for n in 1 2; do
  echo "== Loom, LOOM_NUM_THREADS=$n"
  LOOM_NUM_THREADS=$n "$build/bench/onnx/onnx_bench_loom" --benchmark_repetitions=5 --benchmark_min_time=0.2 \
    --benchmark_report_aggregates_only=true --benchmark_out="$out/loom_$n.json" --benchmark_out_format=json \
    "$models" | tee "$out/loom_$n.txt"
done
echo "== ONNX Runtime"
NODE_PATH=$ort/node_modules node "$root/bench/onnx/onnx_bench_ort.js" "$models" 1 2 | tee "$out/ort.jsonl"

python3 - "$out" <<'PY'
import json, re, sys, os
out = sys.argv[1]
loom = {}   # (model, threads) -> (median ms, compile ms)
checks = {}
for n in (1, 2):
    path = os.path.join(out, f"loom_{n}.json")
    if not os.path.exists(path):
        continue
    for b in json.load(open(path))["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        parts = b["run_name"].split("/")
        model = parts[1] + ("_handwritten" if parts[2] == "loom_handwritten" else "")
        loom[(model, n)] = (b["real_time"], b.get("compile_ms", float("nan")))
    model = None
    for line in open(os.path.join(out, f"loom_{n}.txt")):
        m = re.match(r"(\w+)( \(hand-written pipeline\))?: compiled in", line)
        if m:
            model = m.group(1) + ("_handwritten" if m.group(2) else "")
        m = re.match(r"\s+checksum (\S+).*: (\S+)$", line)
        if m and model:
            checks.setdefault(model, {})[m.group(1)] = float(m.group(2))
ort = {}
for line in open(os.path.join(out, "ort.jsonl")):
    r = json.loads(line)
    ort[(r["model"], r["threads"])] = r
print()
print("| model | threads | Loom median (ms) | ORT median (ms) | ORT / Loom | Loom compile (ms) | ORT session (ms) | outputs agree |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for model in ("rnn", "rnn_handwritten", "add_step", "add_step_handwritten", "cumsum"):
    for n in (1, 2):
        peer = model.replace("_handwritten", "")
        if (peer, n) not in ort:
            continue
        o = ort[(peer, n)]
        l = loom.get((model, n))
        agree = "?"
        if model in checks:
            agree = "yes" if all(abs(checks[model].get(k, float("nan")) - v) <= 1e-4 * max(1.0, abs(v))
                                 for k, v in o["checksum"].items()) else "NO"
        if l:
            print(f"| {model} | {n} | {l[0]:.3f} | {o['median_ms']:.3f} | {o['median_ms'] / l[0]:.2f}x | {l[1]:.0f} | {o['session_create_ms']:.0f} | {agree} |")
        else:
            print(f"| {model} | {n} | failed | {o['median_ms']:.3f} | - | - | {o['session_create_ms']:.0f} | - |")
PY
