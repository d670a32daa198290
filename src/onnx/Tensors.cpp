// Element types, buffers in Loom layout for ONNX shapes, and the public Value.

#include <cstdlib>
#include <cstring>
#include <sstream>

#include "Importer.h"

namespace loom::onnx {

Type loom_type_of(int element_type) {
    switch (element_type) {
    case Float32: return Float(32);
    case UInt8: return UInt(8);
    case Int8: return Int(8);
    case UInt16: return UInt(16);
    case Int16: return Int(16);
    case Int32: return Int(32);
    case Int64: return Int(64);
    case Boolean: return Bool();
    case Float16: return Float(16);
    case Float64: return Float(64);
    case UInt32: return UInt(32);
    case UInt64: return UInt(64);
    default: break;
    }
    throw CompileError("ONNX element type " + element_type_name(element_type) +
                       " has no Loom type (supported: bool, int8-64, uint8-64, float16/32/64)");
}

int element_type_of(const Type &t) {
    if (t.is_bool()) return Boolean;
    if (t.is_float()) return t.bits() == 16 ? Float16 : t.bits() == 32 ? Float32 : t.bits() == 64 ? Float64 : 0;
    if (t.is_int()) return t.bits() == 8 ? Int8 : t.bits() == 16 ? Int16 : t.bits() == 32 ? Int32 : t.bits() == 64 ? Int64 : 0;
    if (t.is_uint())
        return t.bits() == 8 ? UInt8 : t.bits() == 16 ? UInt16 : t.bits() == 32 ? UInt32 : t.bits() == 64 ? UInt64 : 0;
    return 0;
}

std::string element_type_name(int e) {
    static const char *names[] = {"undefined", "float32", "uint8", "int8",   "uint16",    "int16",      "int32",
                                  "int64",     "string",  "bool",  "float16", "float64",  "uint32",     "uint64",
                                  "complex64", "complex128", "bfloat16"};
    if (e >= 0 && e < (int)(sizeof(names) / sizeof(names[0]))) return names[e];
    return "type#" + std::to_string(e);
}

std::string ValueInfo::to_string() const {
    std::string t = element_type_name(element_type);
    if (has_shape) {
        t += "[";
        for (size_t i = 0; i < shape.size(); i++) {
            if (i) t += ", ";
            t += shape[i].value >= 0 ? std::to_string(shape[i].value) : shape[i].symbol.empty() ? "?" : shape[i].symbol;
        }
        t += "]";
    }
    if (kind == Kind::Sequence) return "seq(" + t + ")";
    if (kind == Kind::Optional) return "optional(" + t + ")";
    if (kind == Kind::Unknown) return "unknown";
    return t;
}

namespace detail {

Type loom_type(int element_type) { return loom_type_of(element_type); }

int64_t num_elements(const Shape &shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

std::string shape_string(const Shape &shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); i++) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

Buffer<> new_buffer(int element_type, const Shape &shape) {
    std::vector<int> sizes;
    for (auto it = shape.rbegin(); it != shape.rend(); ++it) sizes.push_back((int)*it);
    if (sizes.empty()) sizes.push_back(1);
    return Buffer<>(loom_type_of(element_type), sizes);
}

Buffer<> new_uninitialized_buffer(int element_type, const Shape &shape) {
    std::vector<int> sizes;
    for (auto it = shape.rbegin(); it != shape.rend(); ++it) sizes.push_back((int)*it);
    if (sizes.empty()) sizes.push_back(1);
    Buffer<> b(loom_type_of(element_type), nullptr, sizes);
    b.allocate(std::malloc, std::free);  // a caller's allocator: not zeroed
    return b;
}

namespace {
template<typename F>
auto with_element(const Buffer<> &b, int64_t i, F f) {
    uint8_t *p = b.raw_buffer()->host;
    Type t = b.type();
    if (t.is_float() && t.bits() == 32) return f(reinterpret_cast<float *>(p) + i);
    if (t.is_float() && t.bits() == 64) return f(reinterpret_cast<double *>(p) + i);
    if (t.is_float() && t.bits() == 16) return f(reinterpret_cast<loom::float16_t *>(p) + i);
    if (t.is_bool()) return f(reinterpret_cast<bool *>(p) + i);
    if (t.is_int() && t.bits() == 8) return f(reinterpret_cast<int8_t *>(p) + i);
    if (t.is_int() && t.bits() == 16) return f(reinterpret_cast<int16_t *>(p) + i);
    if (t.is_int() && t.bits() == 32) return f(reinterpret_cast<int32_t *>(p) + i);
    if (t.is_int() && t.bits() == 64) return f(reinterpret_cast<int64_t *>(p) + i);
    if (t.is_uint() && t.bits() == 8) return f(reinterpret_cast<uint8_t *>(p) + i);
    if (t.is_uint() && t.bits() == 16) return f(reinterpret_cast<uint16_t *>(p) + i);
    if (t.is_uint() && t.bits() == 32) return f(reinterpret_cast<uint32_t *>(p) + i);
    return f(reinterpret_cast<uint64_t *>(p) + i);
}
}  // namespace

double buffer_double(const Buffer<> &b, int64_t i) {
    return with_element(b, i, [](auto *p) { return (double)*p; });
}
int64_t buffer_int(const Buffer<> &b, int64_t i) {
    return with_element(b, i, [](auto *p) {
        if constexpr (std::is_same_v<std::remove_const_t<std::remove_pointer_t<decltype(p)>>, loom::float16_t>)
            return (int64_t)(double)*p;
        else
            return (int64_t)*p;
    });
}
void buffer_set(Buffer<> &b, int64_t i, double v) {
    with_element(b, i, [&](auto *p) {
        using T = std::remove_pointer_t<decltype(p)>;
        *p = T(v);
        return 0;
    });
}
void buffer_set_int(Buffer<> &b, int64_t i, int64_t v) {
    with_element(b, i, [&](auto *p) {
        using T = std::remove_pointer_t<decltype(p)>;
        if constexpr (std::is_same_v<T, loom::float16_t>)
            *p = T((double)v);
        else
            *p = (T)v;
        return 0;
    });
}

}  // namespace detail

using namespace detail;

Value Value::from_buffer(const Buffer<> &buffer, const std::vector<int64_t> &shape) {
    Value v;
    v.kind = Kind::Tensor;
    v.element_type = element_type_of(buffer.type());
    v.shape = shape;
    v.tensor = buffer;
    return v;
}

Value Value::from_tensor(const Buffer<> &buffer) {
    std::vector<int64_t> shape;
    for (int d = buffer.dimensions() - 1; d >= 0; d--) shape.push_back(buffer.dim(d).extent());
    if (buffer.dimensions() == 0) {
        // A 0-d Buffer: give it the one dimension of extent 1 Loom uses.
        Buffer<> b(buffer.type(), std::vector<int>{1});
        std::memcpy(b.raw_buffer()->host, buffer.raw_buffer()->host, buffer.type().bytes());
        return from_buffer(b, {});
    }
    return from_buffer(buffer, shape);
}

Value Value::sequence_of(int element_type, const std::vector<Value> &tensors) {
    Value v;
    v.kind = Kind::Sequence;
    v.element_type = element_type;
    v.elements = tensors;
    return v;
}

Value Value::none() { return Value(); }

Value Value::zeros(int element_type, const std::vector<int64_t> &shape) {
    return from_buffer(new_buffer(element_type, shape), shape);
}

int64_t Value::num_elements() const { return detail::num_elements(shape); }

double Value::at(int64_t i) const { return buffer_double(tensor, i); }

std::string Value::describe() const {
    if (kind == Kind::None) return "none";
    if (kind == Kind::Sequence)
        return "seq(" + std::to_string(elements.size()) + " x " + element_type_name(element_type) + ")";
    return element_type_name(element_type) + shape_string(shape);
}

}  // namespace loom::onnx
