// Helpers for the LLVM code generator's tests: building lowered IR by hand,
// running it through compile_jit (and the interpreter), and capturing what
// the pipeline reports through loom_error / loom_print.
#ifndef LOOM_TEST_CODEGEN_IR_CODEGENTESTUTIL_H
#define LOOM_TEST_CODEGEN_IR_CODEGENTESTUTIL_H

#include <string>
#include <vector>

#include "codegen/llvm/CodeGen_LLVM.h"
#include "ir/IR.h"
#include "ir/LoweredFunc.h"
#include "loom/Target.h"
#include "loom/runtime/loom_runtime.h"

namespace loom_test_ir {

using loom::Expr;
using loom::Stmt;
using loom::Type;
using namespace loom::internal;

inline Expr i32(int v) { return IntImm::make(loom::Int(32), v); }
inline Expr imm(Type t, int64_t v) {
    if (t.is_float()) return FloatImm::make(t, (double)v);
    if (t.is_uint()) return UIntImm::make(t, (uint64_t)v);
    return IntImm::make(t, v);
}
inline Expr f32(float v) { return FloatImm::make(loom::Float(32), v); }
inline Expr str(const std::string &s) { return StringImm::make(s); }
inline Expr var(const std::string &name, Type t = loom::Int(32)) { return Variable::make(t, name); }

/** The Handle variable "<b>.buffer" that stands for buffer argument b. */
inline Expr buffer_var(const std::string &b) { return Variable::make(loom::Handle(), b + ".buffer"); }

inline Expr buffer_call(const char *intrinsic_name, Type t, const std::string &b, int d) {
    std::vector<Expr> args = {buffer_var(b)};
    if (d >= 0) args.push_back(i32(d));
    return Call::make(t, intrinsic_name, args, CallType::PureIntrinsic);
}
inline Expr buffer_min(const std::string &b, int d) { return buffer_call(intrinsic::buffer_get_min, loom::Int(32), b, d); }
inline Expr buffer_extent(const std::string &b, int d) {
    return buffer_call(intrinsic::buffer_get_extent, loom::Int(32), b, d);
}
inline Expr buffer_stride(const std::string &b, int d) {
    return buffer_call(intrinsic::buffer_get_stride, loom::Int(32), b, d);
}

/** Wraps body in the LetStmts lowering makes for buffer b: the host pointer
 * "b" and "b.min.d", "b.extent.d", "b.stride.d" for each dimension. */
inline Stmt with_buffer_lets(const std::string &b, int dimensions, Stmt body) {
    for (int d = dimensions - 1; d >= 0; d--) {
        const std::string s = std::to_string(d);
        body = LetStmt::make(b + ".stride." + s, buffer_stride(b, d), body);
        body = LetStmt::make(b + ".extent." + s, buffer_extent(b, d), body);
        body = LetStmt::make(b + ".min." + s, buffer_min(b, d), body);
    }
    return LetStmt::make(b, buffer_call(intrinsic::buffer_get_host, loom::Handle(), b, -1), body);
}

/** The flat index of (coords...) in buffer b, using the lets above. */
inline Expr flat_index(const std::string &b, const std::vector<Expr> &coords) {
    Expr index;
    for (size_t d = 0; d < coords.size(); d++) {
        const std::string s = std::to_string(d);
        Expr term = Mul::make(Sub::make(coords[d], var(b + ".min." + s)), var(b + ".stride." + s));
        index = index.defined() ? Add::make(index, term) : term;
    }
    return index;
}

/** A loop over dimension d of buffer b, with loop variable name. */
inline Stmt loop_over(const std::string &name, const std::string &b, int d, Stmt body,
                      ForType type = ForType::Serial) {
    const std::string s = std::to_string(d);
    return For::make(name, var(b + ".min." + s), var(b + ".extent." + s), type, DeviceAPI::None, body);
}

inline LoweredArgument buffer_arg(const std::string &name, LoweredArgument::Kind kind, Type t, int dimensions) {
    LoweredArgument a;
    a.name = name;
    a.kind = kind;
    a.type = t;
    a.dimensions = dimensions;
    return a;
}

inline LoweredArgument scalar_arg(const std::string &name, Type t) {
    LoweredArgument a;
    a.name = name;
    a.kind = LoweredArgument::InputScalar;
    a.type = t;
    return a;
}

inline LoweredFunc make_func(const std::string &name, std::vector<LoweredArgument> args, Stmt body) {
    LoweredFunc f;
    f.name = name;
    f.args = std::move(args);
    f.body = std::move(body);
    return f;
}

inline loom::Target jit_target() { return loom::get_jit_target_from_environment(); }

/** A strided loom_buffer_t over caller-owned memory. */
struct RawBuffer {
    std::vector<loom_dimension_t> dims;
    loom_buffer_t buffer{};
    RawBuffer(void *host, loom_type_t type, std::vector<loom_dimension_t> d) : dims(std::move(d)) {
        buffer.host = static_cast<uint8_t *>(host);
        buffer.type = type;
        buffer.dimensions = (int32_t)dims.size();
        buffer.dim = dims.data();
    }
    RawBuffer(const RawBuffer &) = delete;
    RawBuffer &operator=(const RawBuffer &) = delete;
};

/** Captures loom_error / loom_print messages while it lives. */
class CapturedMessages {
public:
    CapturedMessages() {
        errors().clear();
        prints().clear();
        previous_error_ = loom_set_error_handler(&on_error);
        previous_print_ = loom_set_print_handler(&on_print);
    }
    ~CapturedMessages() {
        loom_set_error_handler(previous_error_);
        loom_set_print_handler(previous_print_);
    }
    CapturedMessages(const CapturedMessages &) = delete;
    CapturedMessages &operator=(const CapturedMessages &) = delete;

    /** Every error message so far, each followed by "\n". */
    static std::string &errors() {
        static std::string text;
        return text;
    }
    /** Everything printed so far, concatenated. */
    static std::string &prints() {
        static std::string text;
        return text;
    }

private:
    static void on_error(void *, const char *message) { errors() += std::string(message) + "\n"; }
    static void on_print(void *, const char *message) { prints() += message; }
    loom_error_handler_t previous_error_;
    loom_print_handler_t previous_print_;
};

}  // namespace loom_test_ir

#endif
