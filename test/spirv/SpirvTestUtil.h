// Helpers for the SPIR-V code generator's tests: kernels built from
// hand-written IR, targets with chosen Vulkan features, and assertions that
// the module validates.
#ifndef LOOM_TEST_SPIRV_SPIRVTESTUTIL_H
#define LOOM_TEST_SPIRV_SPIRVTESTUTIL_H

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codegen/spirv/CodeGen_SPIRV.h"
#include "ir/IR.h"
#include "loom/IROperator.h"
#include "loom/Error.h"
#include "loom/Target.h"

namespace loom_test_spirv {

using loom::Expr;
using loom::Stmt;
using loom::Target;
using loom::Type;
using namespace loom::internal;

/** x86-64-linux-vulkan plus the given features ("vk_int8-vk_v12"...). */
inline Target vulkan_target(const std::string &features = "") {
    return Target("x86-64-linux-vulkan" + (features.empty() ? std::string() : "-" + features));
}

/** Every Vulkan type feature, for the given environment ("" = 1.0, "vk_v12", "vk_v13"). */
inline Target full_vulkan_target(const std::string &version = "") {
    std::string f = "vk_int8-vk_int16-vk_int64-vk_float16-vk_float64";
    if (!version.empty()) f += "-" + version;
    return vulkan_target(f);
}

/** The three environments, for tests that run in each. */
inline std::vector<std::string> vulkan_versions() { return {"", "vk_v12", "vk_v13"}; }

/** "int32", "uint8x4", "bool"... */
inline std::string type_name(Type t) {
    if (!t.is_bool()) return t.to_string();
    return t.is_scalar() ? "bool" : "boolx" + std::to_string(t.lanes());
}

inline Expr i32(int v) { return IntImm::make(loom::Int(32), v); }
inline Expr imm(Type t, int64_t v) {
    if (t.is_float()) return FloatImm::make(t, (double)v);
    if (t.is_uint()) return UIntImm::make(t, (uint64_t)v);
    return IntImm::make(t, v);
}
inline Expr var(const std::string &name, Type t = loom::Int(32)) { return Variable::make(t, name); }

inline Expr block_id(int d) {
    return Call::make(loom::Int(32), intrinsic::gpu_block_id, {i32(d)}, CallType::PureIntrinsic);
}
inline Expr thread_id(int d) {
    return Call::make(loom::Int(32), intrinsic::gpu_thread_id, {i32(d)}, CallType::PureIntrinsic);
}
inline Stmt barrier() {
    return Evaluate::make(Call::make(loom::Int(32), intrinsic::gpu_barrier, {}, CallType::Intrinsic));
}
inline Expr intrinsic_call(Type t, const char *name, const std::vector<Expr> &args) {
    return Call::make(t, name, args, CallType::PureIntrinsic);
}
inline Expr math_call(Type t, const std::string &name, const std::vector<Expr> &args) {
    return Call::make(t, name, args, CallType::PureExtern);
}

inline GPUKernelArgument buffer_arg(const std::string &name, Type t, bool read, bool written) {
    GPUKernelArgument a;
    a.name = name;
    a.type = t;
    a.is_buffer = true;
    a.read = read;
    a.written = written;
    return a;
}
inline GPUKernelArgument scalar_arg(const std::string &name, Type t) {
    GPUKernelArgument a;
    a.name = name;
    a.type = t;
    return a;
}

/** The global index of this invocation in dimension 0: block * 64 + thread. */
inline Expr global_x() { return Add::make(Mul::make(block_id(0), i32(64)), thread_id(0)); }

/** A kernel `name` with workgroup 64x1x1: out[x] = value (value may use
 * Load(in...) and the variable "x"), with the given arguments. */
inline GPUKernel elementwise_kernel(const std::string &name, Type out_type, Expr value,
                                    std::vector<GPUKernelArgument> args) {
    GPUKernel k;
    k.name = name;
    k.args = std::move(args);
    k.args.push_back(buffer_arg("out", out_type, false, true));
    k.workgroup_size[0] = 64;
    k.body = LetStmt::make("x", global_x(), Store::make("out", value, var("x")));
    return k;
}

/** A load of element index of buffer name (type t). */
inline Expr load(Type t, const std::string &name, Expr index, Expr predicate = Expr()) {
    return Load::make(t, name, std::move(index), std::move(predicate));
}

/** Compiles (which validates) and asserts the result is a SPIR-V module. */
inline std::vector<uint32_t> compile_ok(const GPUKernel &k, const Target &t) {
    std::vector<uint32_t> words;
    try {
        words = compile_kernel_to_spirv(k, t);
    } catch (const loom::Error &e) {
        ADD_FAILURE() << "kernel " << k.name << " on " << t.to_string() << ": " << e.what();
        return {};
    }
    EXPECT_GT(words.size(), 5u);
    if (!words.empty()) {
        EXPECT_EQ(words[0], 0x07230203u);
    }
    EXPECT_EQ(validate_spirv(words, t), "");
    return words;
}

/** The message of the CompileError compiling k raises ("" if none). */
inline std::string compile_error_of(const GPUKernel &k, const Target &t) {
    try {
        compile_kernel_to_spirv(k, t);
    } catch (const loom::CompileError &e) {
        return e.what();
    }
    return "";
}

}  // namespace loom_test_spirv

#endif
