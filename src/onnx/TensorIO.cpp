// Tensors in and out of files: TensorProto / SequenceProto / OptionalProto
// (.pb, as the ONNX backend tests store them) and NumPy's .npy.

#include <cstring>
#include <fstream>
#include <sstream>

#include <onnx/onnx-data_pb.h>

#include "Importer.h"

namespace loom::onnx {

using namespace detail;

namespace {

// Refuse tensors beyond this many bytes: a corrupt dims field must not
// allocate gigabytes.
constexpr int64_t max_tensor_bytes = int64_t(1) << 31;

std::string read_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw CompileError("cannot open '" + path + "'");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

Value value_from_proto(const ::onnx::TensorProto &proto, const std::string &origin) {
    Tensor t = tensor_from_proto(proto, origin);
    return Value::from_buffer(t.known, t.shape);
}

Value sequence_from_proto(const ::onnx::SequenceProto &proto, const std::string &origin) {
    if (proto.elem_type() != ::onnx::SequenceProto::TENSOR)
        throw CompileError(origin + ": only sequences of tensors are supported");
    std::vector<Value> elements;
    int element_type = 0;
    for (const auto &t : proto.tensor_values()) {
        elements.push_back(value_from_proto(t, origin));
        element_type = elements.back().element_type;
    }
    return Value::sequence_of(element_type, elements);
}

}  // namespace

namespace detail {

Tensor tensor_from_proto(const ::onnx::TensorProto &proto, const std::string &where) {
    const std::string what = where + ": tensor '" + proto.name() + "'";
    if (proto.data_location() == ::onnx::TensorProto::EXTERNAL)
        throw CompileError(what + " keeps its data in an external file, which loom-onnx does not read");
    int e = proto.data_type();
    if (e == String) throw CompileError(what + " holds strings, which Loom cannot compute with");
    Type type = loom_type_of(e);
    Shape shape;
    int64_t n = 1;
    for (int64_t d : proto.dims()) {
        if (d < 0 || d > max_tensor_bytes) throw CompileError(what + " has a bad dimension " + std::to_string(d));
        shape.push_back(d);
        n *= d;
        if (n * type.bytes() > max_tensor_bytes) throw CompileError(what + " is larger than 2 GiB");
    }
    auto count_error = [&](int64_t got) {
        return CompileError(what + " has " + std::to_string(got) + " values for shape " + shape_string(shape) + " (" +
                            std::to_string(n) + " elements)");
    };
    // Check the number of values before allocating anything.
    int64_t given = proto.has_raw_data() ? (int64_t)proto.raw_data().size() / std::max(1, type.bytes())
                    : e == Float32                 ? proto.float_data_size()
                    : e == Float64                 ? proto.double_data_size()
                    : e == Int64                   ? proto.int64_data_size()
                    : (e == UInt32 || e == UInt64) ? proto.uint64_data_size()
                                                   : proto.int32_data_size();
    if (given != n || (proto.has_raw_data() && (int64_t)proto.raw_data().size() != n * type.bytes()))
        throw count_error(given);
    Buffer<> b = new_buffer(e, shape);
    uint8_t *host = b.raw_buffer()->host;
    if (proto.has_raw_data()) {
        const std::string &raw = proto.raw_data();
        if ((int64_t)raw.size() != n * type.bytes()) throw count_error((int64_t)raw.size() / std::max(1, type.bytes()));
        if (n) std::memcpy(host, raw.data(), raw.size());
    } else if (e == Float32) {
        if (proto.float_data_size() != n) throw count_error(proto.float_data_size());
        if (n) std::memcpy(host, proto.float_data().data(), n * 4);
    } else if (e == Float64) {
        if (proto.double_data_size() != n) throw count_error(proto.double_data_size());
        if (n) std::memcpy(host, proto.double_data().data(), n * 8);
    } else if (e == Int64) {
        if (proto.int64_data_size() != n) throw count_error(proto.int64_data_size());
        if (n) std::memcpy(host, proto.int64_data().data(), n * 8);
    } else if (e == UInt32 || e == UInt64) {
        if (proto.uint64_data_size() != n) throw count_error(proto.uint64_data_size());
        for (int64_t i = 0; i < n; i++) buffer_set_int(b, i, (int64_t)proto.uint64_data((int)i));
    } else if (e == Float16) {
        if (proto.int32_data_size() != n) throw count_error(proto.int32_data_size());
        for (int64_t i = 0; i < n; i++) reinterpret_cast<uint16_t *>(host)[i] = (uint16_t)proto.int32_data((int)i);
    } else {
        if (proto.int32_data_size() != n) throw count_error(proto.int32_data_size());
        for (int64_t i = 0; i < n; i++) buffer_set_int(b, i, proto.int32_data((int)i));
    }
    if (e == Boolean) {
        for (int64_t i = 0; i < n; i++) host[i] = host[i] ? 1 : 0;
    }
    return known_tensor(e, shape, b, proto.name().empty() ? "constant" : proto.name());
}

}  // namespace detail

Value parse_tensor_proto(const std::string &bytes, const std::string &origin) {
    ::onnx::TensorProto proto;
    if (!proto.ParseFromString(bytes)) throw CompileError(origin + ": not a valid TensorProto");
    return value_from_proto(proto, origin);
}

std::string serialize_tensor_proto(const Value &v) {
    if (v.kind != Value::Kind::Tensor) throw CompileError("serialize_tensor_proto: " + v.name + " is not a tensor");
    ::onnx::TensorProto proto;
    proto.set_name(v.name);
    proto.set_data_type(v.element_type);
    for (int64_t d : v.shape) proto.add_dims(d);
    proto.set_raw_data(std::string(reinterpret_cast<const char *>(v.tensor.raw_buffer()->host),
                                   v.num_elements() * v.tensor.type().bytes()));
    return proto.SerializeAsString();
}

namespace {

// ---- .npy ----------------------------------------------------------------

const char *npy_descr(int e) {
    switch (e) {
    case Float32: return "<f4";
    case Float64: return "<f8";
    case Float16: return "<f2";
    case Int8: return "|i1";
    case Int16: return "<i2";
    case Int32: return "<i4";
    case Int64: return "<i8";
    case UInt8: return "|u1";
    case UInt16: return "<u2";
    case UInt32: return "<u4";
    case UInt64: return "<u8";
    case Boolean: return "|b1";
    default: return nullptr;
    }
}

int npy_element_type(std::string d, const std::string &path) {
    if (!d.empty() && d[0] == '=') d[0] = '<';
    for (int e : {Float32, Float64, Float16, Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64, Boolean}) {
        std::string mine = npy_descr(e);
        if (d == mine || (mine[0] == '|' && d.size() == 3 && d.substr(1) == mine.substr(1))) return e;
    }
    throw CompileError(path + ": unsupported .npy dtype '" + d + "' (little-endian numbers and bools only)");
}

std::string header_field(const std::string &header, const std::string &key, const std::string &path) {
    size_t k = header.find("'" + key + "'");
    if (k == std::string::npos) throw CompileError(path + ": .npy header has no '" + key + "'");
    size_t colon = header.find(':', k);
    if (colon == std::string::npos) throw CompileError(path + ": malformed .npy header");
    return header.substr(colon + 1);
}

Value read_npy(const std::string &bytes, const std::string &path) {
    if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) throw CompileError(path + ": not a .npy file");
    int major = (uint8_t)bytes[6];
    size_t header_len, start;
    if (major == 1) {
        header_len = (uint8_t)bytes[8] | ((uint8_t)bytes[9] << 8);
        start = 10;
    } else {
        if (bytes.size() < 12) throw CompileError(path + ": truncated .npy header");
        header_len = 0;
        for (int i = 0; i < 4; i++) header_len |= (size_t)(uint8_t)bytes[8 + i] << (8 * i);
        start = 12;
    }
    if (start + header_len > bytes.size()) throw CompileError(path + ": truncated .npy header");
    std::string header = bytes.substr(start, header_len);
    std::string descr = header_field(header, "descr", path);
    size_t q1 = descr.find('\''), q2 = descr.find('\'', q1 + 1);
    if (q1 == std::string::npos || q2 == std::string::npos) throw CompileError(path + ": malformed .npy descr");
    int e = npy_element_type(descr.substr(q1 + 1, q2 - q1 - 1), path);
    std::string order = header_field(header, "fortran_order", path);
    if (order.find("True") < order.find(',')) throw CompileError(path + ": Fortran-order .npy files are not supported");
    std::string shape_text = header_field(header, "shape", path);
    size_t open = shape_text.find('('), close = shape_text.find(')');
    if (open == std::string::npos || close == std::string::npos) throw CompileError(path + ": malformed .npy shape");
    Shape shape;
    std::stringstream ss(shape_text.substr(open + 1, close - open - 1));
    std::string item;
    while (std::getline(ss, item, ',')) {
        if (item.find_first_not_of(" ") == std::string::npos) continue;
        shape.push_back(std::stoll(item));
        if (shape.back() < 0) throw CompileError(path + ": negative .npy dimension");
    }
    int64_t bytes_needed = num_elements(shape) * loom_type_of(e).bytes();
    size_t data = start + header_len;
    if ((int64_t)(bytes.size() - data) < bytes_needed) throw CompileError(path + ": truncated .npy data");
    Buffer<> b = new_buffer(e, shape);
    if (bytes_needed) std::memcpy(b.raw_buffer()->host, bytes.data() + data, bytes_needed);
    return Value::from_buffer(b, shape);
}

}  // namespace

void write_npy(const std::string &path, const Value &v) {
    if (v.kind != Value::Kind::Tensor) throw CompileError("write_npy: " + v.name + " is not a tensor");
    const char *descr = npy_descr(v.element_type);
    if (!descr) throw CompileError("write_npy: no .npy dtype for " + element_type_name(v.element_type));
    std::string shape = "(";
    for (int64_t d : v.shape) shape += std::to_string(d) + ", ";
    if (v.shape.size() > 1) shape.resize(shape.size() - 2);
    if (v.shape.size() == 1) shape.resize(shape.size() - 1);
    shape += ")";
    std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    while ((10 + header.size() + 1) % 64) header += ' ';
    header += '\n';
    std::ofstream out(path, std::ios::binary);
    if (!out) throw CompileError("cannot write '" + path + "'");
    out.write("\x93NUMPY\x01\x00", 8);
    uint16_t len = (uint16_t)header.size();
    out.put((char)(len & 0xff));
    out.put((char)(len >> 8));
    out << header;
    out.write(reinterpret_cast<const char *>(v.tensor.raw_buffer()->host), v.num_elements() * v.tensor.type().bytes());
}

Value read_value_file(const std::string &path, const ValueInfo *expected) {
    std::string bytes = read_file(path);
    if (path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0) return read_npy(bytes, path);
    if (expected && expected->kind == ValueInfo::Kind::Sequence) {
        ::onnx::SequenceProto proto;
        if (!proto.ParseFromString(bytes)) throw CompileError(path + ": not a valid SequenceProto");
        Value v = sequence_from_proto(proto, path);
        if (v.elements.empty()) v.element_type = expected->element_type;
        return v;
    }
    if (expected && expected->kind == ValueInfo::Kind::Optional) {
        ::onnx::OptionalProto proto;
        if (!proto.ParseFromString(bytes)) throw CompileError(path + ": not a valid OptionalProto");
        if (proto.has_tensor_value()) return value_from_proto(proto.tensor_value(), path);
        if (proto.has_sequence_value()) {
            Value v = sequence_from_proto(proto.sequence_value(), path);
            if (v.elements.empty()) v.element_type = expected->element_type;
            return v;
        }
        Value none = Value::none();
        none.element_type = expected->element_type;
        return none;
    }
    return parse_tensor_proto(bytes, path);
}

}  // namespace loom::onnx
