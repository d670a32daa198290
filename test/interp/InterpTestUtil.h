#ifndef LOOM_TEST_INTERP_TEST_UTIL_H
#define LOOM_TEST_INTERP_TEST_UTIL_H

// Helpers for the interpreter tests: hand-built lowered IR and runtime
// buffers that own their storage.

#include <cstring>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "ir/Interpreter.h"
#include "ir/LoweredFunc.h"
#include "loom/runtime/loom_runtime.h"

namespace loom {
namespace internal {
namespace interp_test {

inline Expr i32(int v) { return IntImm::make(Int(32), v); }
inline Expr var(const std::string &name, Type t = Int(32)) { return Variable::make(t, name); }
inline Expr buffer_var(const std::string &name) { return Variable::make(Handle(), name + ".buffer"); }

inline Expr buffer_field(const char *intrinsic, const std::string &name, int d) {
    return Call::make(Int(32), intrinsic, {buffer_var(name), i32(d)}, CallType::PureIntrinsic);
}
inline Expr buf_min(const std::string &name, int d) { return buffer_field(intrinsic::buffer_get_min, name, d); }
inline Expr buf_extent(const std::string &name, int d) { return buffer_field(intrinsic::buffer_get_extent, name, d); }
inline Expr buf_stride(const std::string &name, int d) { return buffer_field(intrinsic::buffer_get_stride, name, d); }

/** let name = buffer_get_host(name.buffer) in body. */
inline Stmt with_host(const std::string &name, Stmt body) {
    Expr host = Call::make(Handle(), intrinsic::buffer_get_host, {buffer_var(name)}, CallType::PureIntrinsic);
    return LetStmt::make(name, host, std::move(body));
}

inline Stmt serial_for(const std::string &name, Expr min, Expr extent, Stmt body) {
    return For::make(name, std::move(min), std::move(extent), ForType::Serial, DeviceAPI::None, std::move(body));
}

inline Expr error_call(int code, const std::vector<Expr> &pieces) {
    std::vector<Expr> args{i32(code)};
    args.insert(args.end(), pieces.begin(), pieces.end());
    return Call::make(Int(32), intrinsic::error, args, CallType::Intrinsic);
}

/** A runtime buffer owning zeroed storage; strides default to dense. */
struct TestBuffer {
    std::vector<uint8_t> storage;
    std::vector<loom_dimension_t> dims;
    loom_buffer_t buf{};
    int64_t host_offset = 0;  // bytes from storage start to the host pointer

    TestBuffer(Type t, const std::vector<int> &mins, const std::vector<int> &extents,
               std::vector<int> strides = {}) {
        if (strides.empty()) {
            int s = 1;
            for (int e : extents) {
                strides.push_back(s);
                s *= e;
            }
        }
        int64_t lo = 0, hi = 0;
        for (size_t d = 0; d < extents.size(); d++) {
            dims.push_back(loom_dimension_t{mins[d], extents[d], strides[d], 0});
            int64_t span = (int64_t)(extents[d] - 1) * strides[d];
            (span < 0 ? lo : hi) += span;
        }
        int bytes = t.bytes();
        storage.assign((size_t)(hi - lo + 1) * bytes, 0);
        host_offset = -lo * bytes;
        buf.host = storage.data() + host_offset;
        buf.type = t.to_runtime();
        buf.dimensions = (int32_t)dims.size();
        buf.dim = dims.data();
    }

    /** The element at coordinates (absolute, i.e. including the mins). */
    template<typename T>
    T &at(const std::vector<int> &coords) {
        int64_t index = 0;
        for (size_t d = 0; d < coords.size(); d++) index += (int64_t)(coords[d] - dims[d].min) * dims[d].stride;
        return reinterpret_cast<T *>(buf.host)[index];
    }
};

inline LoweredArgument buffer_arg(const std::string &name, Type t, int dims, bool output) {
    LoweredArgument a;
    a.name = name;
    a.kind = output ? LoweredArgument::OutputBuffer : LoweredArgument::InputBuffer;
    a.type = t;
    a.dimensions = dims;
    return a;
}

inline LoweredArgument scalar_arg(const std::string &name, Type t) {
    LoweredArgument a;
    a.name = name;
    a.kind = LoweredArgument::InputScalar;
    a.type = t;
    return a;
}

/** Captures loom_error / loom_print messages while alive. */
struct MessageCapture {
    static std::vector<std::string> &errors() {
        static std::vector<std::string> e;
        return e;
    }
    static std::vector<std::string> &prints() {
        static std::vector<std::string> p;
        return p;
    }
    loom_error_handler_t old_error;
    loom_print_handler_t old_print;
    MessageCapture() {
        errors().clear();
        prints().clear();
        old_error = loom_set_error_handler([](void *, const char *m) { errors().push_back(m); });
        old_print = loom_set_print_handler([](void *, const char *m) { prints().push_back(m); });
    }
    ~MessageCapture() {
        loom_set_error_handler(old_error);
        loom_set_print_handler(old_print);
    }
};

}  // namespace interp_test
}  // namespace internal
}  // namespace loom

#endif
