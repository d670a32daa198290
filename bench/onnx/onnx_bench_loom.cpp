// Loom's side of the benchmark against ONNX Runtime (bench/onnx/run.sh):
// each model written by onnx_bench_models, compiled once through
// loom::onnx (the compile time is a counter, compile_ms, and printed with
// the importer's loop notes), then CompiledModel::run timed by Google
// Benchmark on the same inputs ONNX Runtime gets. Prints a checksum of the
// outputs (the sum of every element, in double) to compare with the node
// script's. LOOM_BENCH_ONNX_LOOP_NEST=1 prints each model's loop nest.
//
//     onnx_bench_loom [benchmark flags] <models dir>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <loom/onnx/Onnx.h>

#include "loop_add_step_algorithm.h"
#include "rnn_algorithm.h"

namespace {

using namespace loom::onnx;

std::map<std::string, Value> read_inputs(const std::string &dir) {
    std::map<std::string, Value> inputs;
    std::ifstream list(dir + "/inputs.txt");
    std::string line;
    while (std::getline(list, line)) {
        std::istringstream s(line);
        std::string name, type, file;
        int rank = 0;
        s >> name >> type >> rank;
        std::vector<int64_t> dims(rank);
        for (int64_t &d : dims) s >> d;
        s >> file;
        Value v = Value::zeros(type == "int64" ? Int64 : Float32, dims);
        std::ifstream in(dir + "/" + file, std::ios::binary);
        const size_t bytes = (size_t)v.num_elements() * (type == "int64" ? 8 : 4);
        in.read(reinterpret_cast<char *>(v.tensor.raw_buffer()->host), (std::streamsize)bytes);
        if (!in) throw std::runtime_error("cannot read " + dir + "/" + file);
        inputs[name] = v;
    }
    if (inputs.empty()) throw std::runtime_error("no inputs in " + dir + "/inputs.txt");
    return inputs;
}

struct Prepared {
    std::shared_ptr<Session> session;
    const CompiledModel *compiled = nullptr;
    std::map<std::string, Value> inputs;
    double compile_ms = 0;
};

Prepared prepare(const std::string &name, const std::string &dir) {
    Prepared p;
    p.inputs = read_inputs(dir);
    auto t0 = std::chrono::steady_clock::now();
    p.session = std::make_shared<Session>(load_model(dir + "/model.onnx"));
    p.compiled = &p.session->compiled_for(p.inputs);
    p.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%s: compiled in %.0f ms\n", name.c_str(), p.compile_ms);
    for (const std::string &note : p.compiled->loop_notes()) std::printf("  %s\n", note.c_str());
    if (std::getenv("LOOM_BENCH_ONNX_LOOP_NEST")) p.compiled->print_loop_nest();
    std::vector<Value> outs = p.compiled->run(p.inputs);
    for (const Value &o : outs) {
        double sum = 0;
        for (int64_t i = 0; i < o.num_elements(); i++) sum += o.at(i);
        std::printf("  checksum %s %s: %.6e\n", o.name.c_str(), o.describe().c_str(), sum);
    }
    std::fflush(stdout);
    return p;
}

/** The RNN model's inputs through the hand-written pipeline of apps/rnn
 * (not through the importer): what a Loom schedule written for this
 * recurrence gives on the same data. */
struct HandWrittenRnn {
    loom::ImageParam x{loom::Float(32), 2, "x"}, h0{loom::Float(32), 1, "h0"}, w{loom::Float(32), 2, "w"},
        u{loom::Float(32), 2, "u"}, b{loom::Float(32), 1, "b"};
    loom::Param<int> steps{"steps"};
    apps::Rnn rnn;
    loom::Buffer<float> out;
    double compile_ms = 0;
    explicit HandWrittenRnn(const std::map<std::string, Value> &in) {
        const Value &xs = in.at("xs"), &W = in.at("W");
        const int T = (int)xs.shape[0], I = (int)xs.shape[2], H = (int)W.shape[1];
        auto data = [&](const char *name) { return reinterpret_cast<float *>(in.at(name).tensor.raw_buffer()->host); };
        x.set(loom::Buffer<float>(data("xs"), {I, T}));
        h0.set(loom::Buffer<float>(data("h0"), {H}));
        w.set(loom::Buffer<float>(data("W"), {H, I}));
        u.set(loom::Buffer<float>(data("U"), {H, H}));
        b.set(loom::Buffer<float>(data("B"), {H}));
        steps.set(T);
        rnn = apps::define_rnn(x, h0, w, u, b, I, H, steps, loom::Func("h_final"));
        apps::schedule_rnn(rnn);
        out = loom::Buffer<float>(H);
        auto t0 = std::chrono::steady_clock::now();
        rnn.h_final.compile_jit();
        compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        rnn.h_final.realize(out);
        double sum = 0;
        for (int j = 0; j < H; j++) sum += out(j);
        std::printf("rnn (hand-written pipeline): compiled in %.0f ms\n  checksum h_final: %.6e\n", compile_ms, sum);
    }
};

/** The add-step model's inputs through apps/loop_add_step's pipeline
 * (seed 002's contract: the same values for M <= rows and cond true). */
struct HandWrittenAddStep {
    loom::ImageParam m{loom::UInt(32), 1, "m"}, cond{loom::UInt(32), 1, "cond"},
        v{loom::Float(32), 1, "v_initial"}, step{loom::Float(32), 1, "step"};
    loom::Param<int> rows{"scan_rows"};
    apps::LoopAddStep p;
    loom::Pipeline pipeline;
    loom::Buffer<float> scan, v_final;
    double compile_ms = 0;
    explicit HandWrittenAddStep(const std::map<std::string, Value> &in) {
        const Value &vin = in.at("v");
        const int W = (int)vin.shape[0];
        const int M = (int)in.at("M").tensor.as<int64_t>()(0);
        loom::Buffer<uint32_t> mb(1), cb(1);
        mb(0) = (uint32_t)M;
        cb(0) = 1;
        m.set(mb);
        cond.set(cb);
        v.set(loom::Buffer<float>(reinterpret_cast<float *>(vin.tensor.raw_buffer()->host), {W}));
        step.set(loom::Buffer<float>(reinterpret_cast<float *>(in.at("step").tensor.raw_buffer()->host), {W}));
        rows.set(M);
        p = apps::define_loop_add_step(m, cond, v, step, W, rows, loom::Func("scan_output"), loom::Func("v_final"));
        apps::schedule_loop_add_step(p);
        pipeline = loom::Pipeline({p.state, p.v_final});
        scan = loom::Buffer<float>(W, M);
        v_final = loom::Buffer<float>(W);
        auto t0 = std::chrono::steady_clock::now();
        pipeline.compile_jit();
        compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        run();
        double a = 0, b = 0;
        for (int x = 0; x < W; x++) a += v_final(x);
        for (int t = 0; t < M; t++)
            for (int x = 0; x < W; x++) b += scan(x, t);
        std::printf("add_step (hand-written pipeline): compiled in %.0f ms\n  checksum v_final: %.6e\n"
                    "  checksum rows: %.6e\n", compile_ms, a, b);
    }
    void run() { pipeline.realize(loom::Realization(scan, v_final)); }
};

}  // namespace

int main(int argc, char **argv) {
    benchmark::Initialize(&argc, argv);
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s [benchmark flags] <models dir>\n", argv[0]);
        return 2;
    }
    const std::string root = argv[1];
    std::vector<std::string> names = {"rnn", "add_step", "cumsum"};
    if (const char *only = std::getenv("LOOM_BENCH_ONNX_MODELS")) {
        names.clear();
        std::istringstream s(only);
        for (std::string n; std::getline(s, n, ',');) names.push_back(n);
    }
    std::vector<Prepared> prepared;
    prepared.reserve(names.size());
    for (const std::string &name : names) {
        try {
            prepared.push_back(prepare(name, root + "/" + name));
        } catch (const std::exception &e) {
            std::printf("%s: failed: %s\n", name.c_str(), e.what());
            continue;
        }
        Prepared *p = &prepared.back();
        if (name == "add_step") {
            auto *hand = new HandWrittenAddStep(p->inputs);  // lives until exit
            benchmark::RegisterBenchmark("onnx/add_step/loom_handwritten",
                                         [hand](benchmark::State &state) {
                                             for (auto _ : state) hand->run();
                                             state.counters["compile_ms"] = hand->compile_ms;
                                         })
                ->Unit(benchmark::kMillisecond)
                ->UseRealTime();
        }
        if (name == "rnn") {
            auto *hand = new HandWrittenRnn(p->inputs);  // lives until exit
            benchmark::RegisterBenchmark("onnx/rnn/loom_handwritten",
                                         [hand](benchmark::State &state) {
                                             for (auto _ : state) hand->rnn.h_final.realize(hand->out);
                                             state.counters["compile_ms"] = hand->compile_ms;
                                         })
                ->Unit(benchmark::kMillisecond)
                ->UseRealTime();
        }
        benchmark::RegisterBenchmark(("onnx/" + name + "/loom").c_str(),
                                     [p](benchmark::State &state) {
                                         for (auto _ : state) {
                                             std::vector<Value> outs = p->compiled->run(p->inputs);
                                             benchmark::DoNotOptimize(outs.data());
                                         }
                                         state.counters["compile_ms"] = p->compile_ms;
                                     })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
