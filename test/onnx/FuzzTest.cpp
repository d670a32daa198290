// Mutation fuzzing of the importer: valid models from the backend test data
// are mutated (byte flips, truncation, protobuf field mutations), loaded,
// compiled and run with their data sets. Every mutant must end in a result
// or a CompileError / RuntimeError: never a crash, hang or InternalError.
//
// CI runs a fixed subset (300 mutants, seeds 0..299). A campaign:
//   LOOM_ONNX_FUZZ_MUTANTS=10000 [LOOM_ONNX_FUZZ_SEED=S] onnx_tests --gtest_filter=OnnxFuzz.*
// (docs/ONNX.md records the campaigns run). A crash prints the mutant's seed
// first (LOOM_ONNX_FUZZ_VERBOSE=1 prints every seed), so it can be rerun alone
// with LOOM_ONNX_FUZZ_SEED=seed LOOM_ONNX_FUZZ_MUTANTS=1.

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "loom/onnx/BackendTest.h"

using namespace loom::onnx;
namespace fs = std::filesystem;

namespace {

const char *seed_models[] = {
    "test_loop11", "test_loop13_seq", "test_loop16_seq_none", "test_range_float_type_positive_delta_expanded",
    "test_sequence_map_add_2_sequences_expanded", "test_scan_sum", "test_scan9_sum", "test_if", "test_if_seq",
    "test_if_opt", "test_add_bcast", "test_matmul_3d", "test_gemm_all_attributes", "test_reduce_sum_keepdims_example",
    "test_slice_neg_steps", "test_gather_1", "test_concat_3d_axis_1", "test_transpose_all_permutations_2",
    "test_reshape_negative_dim", "test_unsqueeze_two_axes", "test_squeeze", "test_expand_dim_changed", "test_where_example",
    "test_cast_FLOAT_to_DOUBLE", "test_pow_types_float32_int64", "test_range_int32_type_negative_delta",
};

std::string read_bytes(const fs::path &p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

struct Seed {
    std::string name, bytes;
    std::vector<std::string> input_files;
};

void all_nodes(::onnx::GraphProto *g, std::vector<::onnx::NodeProto *> &nodes, std::vector<::onnx::GraphProto *> &graphs) {
    graphs.push_back(g);
    for (auto &n : *g->mutable_node()) {
        nodes.push_back(&n);
        for (auto &a : *n.mutable_attribute()) {
            if (a.has_g()) all_nodes(a.mutable_g(), nodes, graphs);
        }
    }
}

std::string mutate_fields(const std::string &bytes, std::mt19937 &rng) {
    ::onnx::ModelProto m;
    if (!m.ParseFromString(bytes)) return bytes;
    auto pick = [&](int n) { return n <= 0 ? 0 : (int)(rng() % (unsigned)n); };
    std::vector<std::string> ops = supported_ops();
    int mutations = 1 + pick(3);
    for (int k = 0; k < mutations; k++) {
        // Collected again each time: a deleted node invalidates pointers.
        std::vector<::onnx::NodeProto *> nodes;
        std::vector<::onnx::GraphProto *> graphs;
        all_nodes(m.mutable_graph(), nodes, graphs);
        ::onnx::GraphProto *g = graphs[pick((int)graphs.size())];
        ::onnx::NodeProto *n = nodes.empty() ? nullptr : nodes[pick((int)nodes.size())];
        switch (pick(12)) {
        case 0:
            if (n) n->set_op_type(ops[pick((int)ops.size())]);
            break;
        case 1:
            if (n && n->input_size()) n->mutable_input()->RemoveLast();
            break;
        case 2:
            if (n && n->input_size() && nodes.size() > 1) {
                ::onnx::NodeProto *other = nodes[pick((int)nodes.size())];
                if (other->output_size()) n->set_input(pick(n->input_size()), other->output(0));
            }
            break;
        case 3:
            if (n && n->attribute_size()) {
                auto *a = n->mutable_attribute(pick(n->attribute_size()));
                a->set_i((int64_t)pick(14) - 4);
                if (a->ints_size()) a->set_ints(pick(a->ints_size()), (int64_t)pick(14) - 4);
                if (a->has_t() && a->t().dims_size()) a->mutable_t()->set_dims(pick(a->t().dims_size()), pick(6));
                if (a->has_t()) a->mutable_t()->set_data_type(1 + pick(13));
            }
            break;
        case 4:
            if (n && n->attribute_size()) n->mutable_attribute()->DeleteSubrange(pick(n->attribute_size()), 1);
            break;
        case 5:
            if (g->node_size()) g->mutable_node()->DeleteSubrange(pick(g->node_size()), 1);
            break;
        case 6:
            if (m.opset_import_size()) m.mutable_opset_import(0)->set_version(1 + pick(23));
            break;
        case 7:
            if (g->input_size()) {
                auto *t = g->mutable_input(pick(g->input_size()))->mutable_type()->mutable_tensor_type();
                t->set_elem_type(1 + pick(13));
            }
            break;
        case 8:
            if (g->initializer_size()) {
                auto *t = g->mutable_initializer(pick(g->initializer_size()));
                if (t->dims_size()) t->set_dims(pick(t->dims_size()), pick(9) - 1);
            }
            break;
        case 9:
            if (g->output_size() && n && n->output_size()) g->mutable_output(pick(g->output_size()))->set_name(n->output(0));
            break;
        case 10:
            if (n && n->output_size()) n->add_output("extra_" + std::to_string(pick(100)));
            break;
        default:
            if (n && n->input_size() > 1) std::swap(*n->mutable_input(0), *n->mutable_input(1));
            break;
        }
    }
    return m.SerializeAsString();
}

std::string mutate(const std::string &bytes, std::mt19937 &rng, int &kind) {
    kind = (int)(rng() % 3);
    std::string b = bytes;
    if (kind == 0) {
        int flips = 1 + (int)(rng() % 8);
        for (int i = 0; i < flips && !b.empty(); i++) b[rng() % b.size()] ^= (char)(1 + rng() % 255);
    } else if (kind == 1) {
        b.resize(rng() % std::max<size_t>(b.size(), 1));
    } else {
        b = mutate_fields(b, rng);
    }
    return b;
}

int env_int(const char *name, int fallback) {
    const char *v = std::getenv(name);
    return v ? std::atoi(v) : fallback;
}

TEST(OnnxFuzz, MutantsGiveErrorsNotCrashes) {
    std::vector<Seed> seeds;
    for (const char *name : seed_models) {
        fs::path dir = fs::path(LOOM_ONNX_TESTDATA) / name;
        if (!fs::exists(dir / "model.onnx")) continue;
        Seed s;
        s.name = name;
        s.bytes = read_bytes(dir / "model.onnx");
        for (int k = 0; fs::exists(dir / "test_data_set_0" / ("input_" + std::to_string(k) + ".pb")); k++)
            s.input_files.push_back((dir / "test_data_set_0" / ("input_" + std::to_string(k) + ".pb")).string());
        seeds.push_back(s);
    }
    if (seeds.empty()) GTEST_SKIP() << "libonnx-testdata is not installed";
    int mutants = env_int("LOOM_ONNX_FUZZ_MUTANTS", 300);
    int first = env_int("LOOM_ONNX_FUZZ_SEED", 0);
    bool verbose = env_int("LOOM_ONNX_FUZZ_VERBOSE", 0) != 0;
    int loaded = 0, compiled = 0, ran = 0, compile_errors = 0, runtime_errors = 0;
    std::vector<std::string> internal_errors;
    CompileOptions options;
    options.max_unrolled_iterations = 32;
    options.max_tensor_elements = 1 << 12;
    options.max_loop_iterations = 10000;  // a mutated condition may never turn false
    for (int i = first; i < first + mutants; i++) {
        std::mt19937 rng((unsigned)i);
        const Seed &seed = seeds[rng() % seeds.size()];
        int kind;
        std::string bytes = mutate(seed.bytes, rng, kind);
        if (verbose) std::fprintf(stderr, "mutant %d: %s kind %d\n", i, seed.name.c_str(), kind);
        try {
            Model model = load_model_from_bytes(bytes, "mutant");
            loaded++;
            std::map<std::string, Value> inputs;
            for (size_t k = 0; k < seed.input_files.size() && k < model.inputs().size(); k++)
                inputs[model.inputs()[k].name] = read_value_file(seed.input_files[k], &model.inputs()[k]);
            Session session(model, options);
            session.compiled_for(inputs);
            compiled++;
            session.run(inputs);
            ran++;
        } catch (const loom::CompileError &) {
            compile_errors++;
        } catch (const loom::RuntimeError &) {
            runtime_errors++;
        } catch (const loom::InternalError &e) {
            internal_errors.push_back("mutant " + std::to_string(i) + " of " + seed.name + ": " + e.what());
        }
    }
    std::printf("ONNX fuzz: %d mutants (seeds %d..%d): %d loaded, %d compiled, %d ran; %d CompileErrors, %d "
                "RuntimeErrors, %zu InternalErrors\n",
                mutants, first, first + mutants - 1, loaded, compiled, ran, compile_errors, runtime_errors,
                internal_errors.size());
    for (const auto &e : internal_errors) std::printf("  %s\n", e.substr(0, 300).c_str());
    EXPECT_TRUE(internal_errors.empty());
}

}  // namespace
