// The three commands of loom-onnx.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>

#include "loom/onnx/BackendTest.h"
#include "loom/onnx/Onnx.h"

#include "Commands.h"

namespace loom_onnx_tool {

using namespace loom::onnx;
namespace fs = std::filesystem;

namespace {

struct Options {
    std::string model, output_dir, target = "host", name;
    std::vector<std::pair<std::string, std::string>> inputs;
    bool print_loop_nest = false;
    int bench = 0;
};

Options parse(const std::vector<std::string> &args) {
    Options o;
    for (size_t i = 0; i < args.size(); i++) {
        const std::string &a = args[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= args.size()) throw loom::CompileError("option " + a + " needs a value");
            return args[++i];
        };
        if (a == "--input" || a == "-i") {
            std::string spec = next();
            size_t eq = spec.find('=');
            if (eq == std::string::npos) throw loom::CompileError("--input wants NAME=FILE, got '" + spec + "'");
            o.inputs.emplace_back(spec.substr(0, eq), spec.substr(eq + 1));
        } else if (a == "--output-dir" || a == "-o") {
            o.output_dir = next();
        } else if (a == "--target") {
            o.target = next();
        } else if (a == "--name") {
            o.name = next();
        } else if (a == "--print-loop-nest") {
            o.print_loop_nest = true;
        } else if (a == "--bench") {
            o.bench = std::stoi(next());
        } else if (!a.empty() && a[0] == '-') {
            throw loom::CompileError("unknown option " + a);
        } else if (o.model.empty()) {
            o.model = a;
        } else {
            throw loom::CompileError("unexpected argument " + a);
        }
    }
    if (o.model.empty()) throw loom::CompileError("no model given");
    return o;
}

loom::Target parse_target(const std::string &t) {
    if (t == "host") return loom::get_host_target();
    return loom::Target(t);
}

std::map<std::string, Value> read_inputs(const Model &model, const Options &o) {
    std::map<std::string, Value> inputs;
    for (const auto &[name, file] : o.inputs) {
        const ValueInfo *info = nullptr;
        for (const ValueInfo &i : model.inputs()) {
            if (i.name == name) info = &i;
        }
        if (!info) {
            std::string names;
            for (const ValueInfo &i : model.inputs()) names += " " + i.name;
            throw loom::CompileError("the model has no input '" + name + "'; its inputs:" + names);
        }
        inputs[name] = read_value_file(file, info);
    }
    return inputs;
}

void print_value(const Value &v) {
    std::printf("%s: %s", v.name.c_str(), v.describe().c_str());
    if (v.kind == Value::Kind::Tensor) {
        std::printf(" =");
        int64_t n = std::min<int64_t>(v.num_elements(), 8);
        for (int64_t i = 0; i < n; i++) std::printf(" %g", v.at(i));
        if (v.num_elements() > n) std::printf(" ...");
    }
    std::printf("\n");
    for (size_t k = 0; k < v.elements.size(); k++) {
        Value e = v.elements[k];
        e.name = "  [" + std::to_string(k) + "]";
        print_value(e);
    }
}

double ms_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

int run_command(const std::vector<std::string> &args) {
    Options o = parse(args);
    Model model = load_model(o.model);
    std::map<std::string, Value> inputs = read_inputs(model, o);
    CompileOptions options;
    options.target = parse_target(o.target);
    Session session(model, options);
    auto t0 = std::chrono::steady_clock::now();
    const CompiledModel &compiled = session.compiled_for(inputs);
    double compile_ms = ms_since(t0);
    auto t1 = std::chrono::steady_clock::now();
    std::vector<Value> outputs = compiled.run(inputs);
    double run_ms = ms_since(t1);
    for (const Value &v : outputs) print_value(v);
    std::printf("compile: %.2f ms, run: %.3f ms\n", compile_ms, run_ms);
    for (const std::string &note : compiled.loop_notes()) std::printf("loop: %s\n", note.c_str());
    if (o.print_loop_nest) compiled.print_loop_nest();
    if (o.bench > 0) {
        auto t = std::chrono::steady_clock::now();
        for (int i = 0; i < o.bench; i++) compiled.run(inputs);
        std::printf("bench: %d runs, %.4f ms per run\n", o.bench, ms_since(t) / o.bench);
    }
    if (!o.output_dir.empty()) {
        fs::create_directories(o.output_dir);
        for (size_t k = 0; k < outputs.size(); k++) {
            const Value &v = outputs[k];
            if (v.kind != Value::Kind::Tensor) continue;
            std::string file = o.output_dir + "/" + (v.name.empty() ? "output_" + std::to_string(k) : v.name) + ".npy";
            write_npy(file, v);
            std::printf("wrote %s\n", file.c_str());
        }
    }
    return 0;
}

int test_command(const std::vector<std::string> &args) {
    // Directories, and --target anywhere among them.
    std::vector<std::string> dirs;
    std::string target_name = "host";
    for (size_t i = 0; i < args.size(); i++) {
        if (args[i] == "--target") {
            if (i + 1 >= args.size()) throw loom::CompileError("option --target needs a value");
            target_name = args[++i];
        } else if (!args[i].empty() && args[i][0] == '-') {
            throw loom::CompileError("unknown option " + args[i] + " (test takes directories and --target)");
        } else {
            dirs.push_back(args[i]);
        }
    }
    if (dirs.empty()) throw loom::CompileError("test: no directory given");
    CompileOptions options;
    options.target = parse_target(target_name);
    int failed = 0;
    for (const std::string &dir : dirs) {
        BackendTestResult r = run_backend_test(dir, options);
        std::printf("%s %s (%.0f ms, %d compilation%s)\n", r.passed ? "PASS" : "FAIL", dir.c_str(),
                    r.compile_and_run_ms, r.compilations, r.compilations == 1 ? "" : "s");
        if (!r.error.empty()) std::printf("  error: %s\n", r.error.c_str());
        for (const DataSetResult &d : r.data_sets) {
            std::printf("  %s: %s, largest difference %g%s%s\n", d.name.c_str(), d.passed ? "match" : "MISMATCH",
                        d.max_difference, d.message.empty() ? "" : ": ", d.message.c_str());
        }
        failed += r.passed ? 0 : 1;
    }
    if (dirs.size() > 1 || target_name != "host")
        std::printf("%zu passed, %d failed (target %s)\n", dirs.size() - failed, failed, options.target.to_string().c_str());
    return failed ? 1 : 0;
}

int compile_command(const std::vector<std::string> &args) {
    Options o = parse(args);
    if (o.output_dir.empty()) throw loom::CompileError("compile: -o DIR is required");
    Model model = load_model(o.model);
    std::map<std::string, Value> inputs = read_inputs(model, o);
    for (const ValueInfo &info : model.inputs()) {
        if (inputs.count(info.name)) continue;
        // Without an example file, a fully static declared shape will do.
        std::vector<int64_t> shape;
        for (const Dimension &d : info.shape) {
            if (d.value < 0)
                throw loom::CompileError("input '" + info.name + "' is declared " + info.to_string() +
                                         "; give an example with --input " + info.name + "=FILE for its shape");
            shape.push_back(d.value);
        }
        if (info.kind != ValueInfo::Kind::Tensor || !info.has_shape)
            throw loom::CompileError("input '" + info.name + "' needs an example file (--input " + info.name + "=FILE)");
        inputs[info.name] = Value::zeros(info.element_type, shape);
    }
    std::string name = o.name.empty() ? fs::path(o.model).stem().string() : o.name;
    for (char &c : name) {
        if (!std::isalnum((unsigned char)c)) c = '_';
    }
    CompileOptions options;
    // A target with vulkan gets the GPU schedules (they need the vulkan
    // feature when compiling too); others the host's CPU schedules.
    const loom::Target target = o.target == "host" ? loom::get_host_target() : parse_target(o.target);
    options.target = target.has_feature(loom::Target::Vulkan) ? target : loom::get_host_target();
    CompiledModel compiled = compile(model, inputs, options);
    compiled.compile_to_static_library(o.output_dir, name, target);
    std::printf("wrote %s/%s.a and %s/%s.h; arguments:", o.output_dir.c_str(), name.c_str(), o.output_dir.c_str(),
                name.c_str());
    for (const std::string &a : compiled.argument_names()) std::printf(" %s", a.c_str());
    std::printf("\n");
    return 0;
}

}  // namespace loom_onnx_tool
