// The ONNX backend test runner: one Session per directory, every data set
// compared with the expected outputs.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>

#include "loom/onnx/BackendTest.h"

namespace loom::onnx {

namespace fs = std::filesystem;

bool values_match(const Value &expected, const Value &actual, double rtol, double atol, double &max_difference,
                  std::string &why) {
    if (expected.kind != actual.kind) {
        why = "expected " + expected.describe() + ", got " + actual.describe();
        return false;
    }
    if (expected.kind == Value::Kind::Sequence) {
        if (expected.elements.size() != actual.elements.size()) {
            why = "expected " + expected.describe() + ", got " + actual.describe();
            return false;
        }
        for (size_t k = 0; k < expected.elements.size(); k++) {
            if (!values_match(expected.elements[k], actual.elements[k], rtol, atol, max_difference, why)) {
                why = "element " + std::to_string(k) + ": " + why;
                return false;
            }
        }
        return true;
    }
    if (expected.kind == Value::Kind::None) return true;
    if (expected.element_type != actual.element_type || expected.shape != actual.shape) {
        why = "expected " + expected.describe() + ", got " + actual.describe();
        return false;
    }
    bool ok = true;
    for (int64_t i = 0; i < expected.num_elements(); i++) {
        double e = expected.at(i), a = actual.at(i);
        if (std::isnan(e) || std::isnan(a)) {
            if (std::isnan(e) != std::isnan(a)) {
                if (ok) why = "element " + std::to_string(i) + ": expected " + std::to_string(e) + ", got " + std::to_string(a);
                ok = false;
                max_difference = INFINITY;
            }
            continue;
        }
        if (e == a) continue;
        double d = std::fabs(a - e);
        max_difference = std::max(max_difference, d);
        if (!(d <= atol + rtol * std::fabs(e))) {
            if (ok) why = "element " + std::to_string(i) + ": expected " + std::to_string(e) + ", got " + std::to_string(a);
            ok = false;
        }
    }
    return ok;
}

namespace {
std::vector<fs::path> numbered(const fs::path &dir, const std::string &prefix) {
    std::vector<fs::path> files;
    for (int k = 0;; k++) {
        fs::path p = dir / (prefix + std::to_string(k) + ".pb");
        if (!fs::exists(p)) break;
        files.push_back(p);
    }
    return files;
}
}  // namespace

BackendTestResult run_backend_test(const std::string &dir, const CompileOptions &options, double rtol, double atol) {
    BackendTestResult result;
    result.dir = dir;
    auto start = std::chrono::steady_clock::now();
    try {
        Model model = load_model((fs::path(dir) / "model.onnx").string());
        Session session(model, options);
        std::vector<fs::path> sets;
        for (const auto &entry : fs::directory_iterator(dir)) {
            if (entry.is_directory() && entry.path().filename().string().rfind("test_data_set_", 0) == 0)
                sets.push_back(entry.path());
        }
        std::sort(sets.begin(), sets.end());
        if (sets.empty()) throw CompileError(dir + ": no test_data_set_* directories");
        for (const fs::path &set : sets) {
            DataSetResult r;
            r.name = set.filename().string();
            std::map<std::string, Value> inputs;
            std::vector<fs::path> in_files = numbered(set, "input_");
            for (size_t k = 0; k < in_files.size() && k < model.inputs().size(); k++) {
                const ValueInfo &info = model.inputs()[k];
                inputs[info.name] = read_value_file(in_files[k].string(), &info);
            }
            std::vector<Value> outs = session.run(inputs);
            std::vector<fs::path> out_files = numbered(set, "output_");
            r.passed = true;
            if (out_files.size() != outs.size()) {
                r.passed = false;
                r.message = "the model has " + std::to_string(outs.size()) + " outputs, the data set " +
                            std::to_string(out_files.size());
            }
            for (size_t k = 0; r.passed && k < out_files.size(); k++) {
                Value expected = read_value_file(out_files[k].string(), &model.outputs()[k]);
                std::string why;
                if (!values_match(expected, outs[k], rtol, atol, r.max_difference, why)) {
                    r.passed = false;
                    r.message = "output '" + model.outputs()[k].name + "': " + why;
                }
            }
            result.data_sets.push_back(r);
        }
        result.compilations = session.compilations();
        result.passed = std::all_of(result.data_sets.begin(), result.data_sets.end(),
                                    [](const DataSetResult &r) { return r.passed; });
    } catch (const std::exception &e) {
        result.error = e.what();
        result.passed = false;
    }
    result.compile_and_run_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return result;
}

}  // namespace loom::onnx
