// ONNX Runtime's side of the benchmark (bench/onnx/run.sh): each model
// written by onnx_bench_models, with the same inputs, through
// onnxruntime-node's CPU execution provider. Session creation is timed
// separately; then a warm-up run and repeated runs (at least 3, until 3
// seconds or 50 runs) of session.run; prints one JSON line per model and
// thread count with the median, the minimum and the outputs' checksum (the
// sum of every element, in double) to compare with onnx_bench_loom's.
//
//     NODE_PATH=<dir with node_modules> node onnx_bench_ort.js <models dir> [threads...]
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

function readInputs(dir) {
  const feeds = {};
  for (const line of fs.readFileSync(path.join(dir, 'inputs.txt'), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const f = line.trim().split(/\s+/);
    const name = f[0], type = f[1], rank = parseInt(f[2], 10);
    const dims = f.slice(3, 3 + rank).map(Number);
    const bytes = fs.readFileSync(path.join(dir, f[3 + rank]));
    const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const data = type === 'int64' ? new BigInt64Array(buf) : new Float32Array(buf);
    feeds[name] = new ort.Tensor(type, data, dims);
  }
  return feeds;
}

function checksum(outputs) {
  const sums = {};
  for (const [name, t] of Object.entries(outputs)) {
    let s = 0;
    for (let i = 0; i < t.data.length; i++) s += Number(t.data[i]);
    sums[name] = s;
  }
  return sums;
}

async function main() {
  const root = process.argv[2];
  const threads = process.argv.length > 3 ? process.argv.slice(3).map(Number) : [1, 2];
  const names = (process.env.LOOM_BENCH_ONNX_MODELS || 'rnn,add_step,cumsum').split(',');
  for (const name of names) {
    const dir = path.join(root, name);
    const feeds = readInputs(dir);
    for (const n of threads) {
      const t0 = process.hrtime.bigint();
      const session = await ort.InferenceSession.create(path.join(dir, 'model.onnx'), {
        executionProviders: ['cpu'],
        intraOpNumThreads: n,
        interOpNumThreads: 1,
        executionMode: 'sequential',
        graphOptimizationLevel: 'all',
      });
      const createMs = Number(process.hrtime.bigint() - t0) / 1e6;
      const first = await session.run(feeds);  // warm-up
      const times = [];
      const start = Date.now();
      while (times.length < 3 || (Date.now() - start < 3000 && times.length < 50)) {
        const t = process.hrtime.bigint();
        await session.run(feeds);
        times.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
      times.sort((a, b) => a - b);
      const median = times.length % 2 ? times[(times.length - 1) / 2]
                                       : (times[times.length / 2 - 1] + times[times.length / 2]) / 2;
      console.log(JSON.stringify({model: name, threads: n, runs: times.length, median_ms: median,
                                  min_ms: times[0], session_create_ms: createMs, checksum: checksum(first),
                                  ort: ort.env.versions.common}));
      await session.release();
    }
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
