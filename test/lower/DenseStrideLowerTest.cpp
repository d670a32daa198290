// The C ABI side of the dense-innermost-stride rule: a lowered pipeline
// called with a buffer whose dimension 0 has a stride other than 1 returns
// loom_error_code_bad_argument (JIT and interpreter alike), reports the
// buffer by name through loom_error, and touches no element.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codegen/llvm/CodeGen_LLVM.h"
#include "ir/Function.h"
#include "ir/FunctionGroup.h"
#include "ir/IRPrinter.h"
#include "ir/Interpreter.h"
#include "common/FunctionBuilders.h"
#include "lower/Lower.h"
#include "loom/IROperator.h"
#include "loom/runtime/Buffer.h"

using namespace loom;
using namespace loom::internal;

namespace {

using loom_test::v;

std::string &errors() {
    static std::string text;
    return text;
}
void on_error(void *, const char *message) { errors() += std::string(message) + "\n"; }

/** out(x) = input(x) + 1 over 1-D int32 buffers. */
LoweredFunc increment() {
    Parameter input(Int(32), true, 1, "dense_input");
    FunctionPtr made = FunctionGroup::make_function();
    FunctionContents *f = made.get();
    f->name = "dense_out";
    f->args = {"x"};
    f->output_types = {Int(32)};
    f->init.args = {v("x")};
    f->init.values = {Call::make(Int(32), "dense_input", {v("x")}, CallType::Image, FunctionPtr(), 0, input) + 1};
    return lower({made}, "increment", Target());
}

struct Results {
    int jit, interp;
    std::string messages;
};

Results run_both(const LoweredFunc &lf, std::vector<void *> args) {
    errors().clear();
    loom_error_handler_t previous = loom_set_error_handler(&on_error);
    Results r;
    JITPipeline jit = compile_jit(lf, get_host_target());
    r.jit = jit.argv(args.data());
    r.interp = interpret(lf, args.data());
    loom_set_error_handler(previous);
    r.messages = errors();
    return r;
}

loom_buffer_t view(int32_t *host, loom_dimension_t *dim) {
    loom_buffer_t b{};
    b.host = reinterpret_cast<uint8_t *>(host);
    b.type = loom_type_t{loom_type_int, 32, 1};
    b.dimensions = 1;
    b.dim = dim;
    return b;
}

TEST(DenseStrideLower, StridedInputReturnsBadArgument) {
    LoweredFunc lf = increment();
    std::vector<int32_t> in_memory(16, 5), out_memory(8, -1);
    loom_dimension_t in_dim = {0, 8, 2, 0}, out_dim = {0, 8, 1, 0};
    loom_buffer_t in = view(in_memory.data(), &in_dim), out = view(out_memory.data(), &out_dim);
    Results r = run_both(lf, {&in, &out});
    EXPECT_EQ(r.jit, loom_error_code_bad_argument);
    EXPECT_EQ(r.interp, loom_error_code_bad_argument);
    EXPECT_NE(r.messages.find("Input buffer dense_input has stride 2 in dimension 0"), std::string::npos)
        << r.messages;
    for (int32_t x : out_memory) EXPECT_EQ(x, -1);
}

TEST(DenseStrideLower, StridedOutputReturnsBadArgument) {
    LoweredFunc lf = increment();
    std::vector<int32_t> in_memory(8, 5), out_memory(8, -1);
    loom_dimension_t in_dim = {0, 8, 1, 0}, out_dim = {0, 4, -1, 0};
    loom_buffer_t in = view(in_memory.data(), &in_dim), out = view(out_memory.data() + 7, &out_dim);
    Results r = run_both(lf, {&in, &out});
    EXPECT_EQ(r.jit, loom_error_code_bad_argument);
    EXPECT_EQ(r.interp, loom_error_code_bad_argument);
    EXPECT_NE(r.messages.find("Output buffer dense_out has stride -1 in dimension 0"), std::string::npos)
        << r.messages;
    for (int32_t x : out_memory) EXPECT_EQ(x, -1);
}

TEST(DenseStrideLower, DenseBuffersRunAndIndexWithConstantStride) {
    LoweredFunc lf = increment();
    const std::string text = to_string(lf.body);
    EXPECT_EQ(text.find("dense_input.stride.0"), std::string::npos) << text;
    EXPECT_EQ(text.find("dense_out.stride.0"), std::string::npos) << text;
    Runtime::Buffer<int> in(8), out(8);
    for (int i = 0; i < 8; i++) in(i) = i * i;
    Results r = run_both(lf, {in.raw_buffer(), out.raw_buffer()});
    EXPECT_EQ(r.jit, 0) << r.messages;
    EXPECT_EQ(r.interp, 0) << r.messages;
    for (int i = 0; i < 8; i++) EXPECT_EQ(out(i), i * i + 1);
}

}  // namespace
