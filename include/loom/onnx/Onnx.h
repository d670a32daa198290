#ifndef LOOM_ONNX_ONNX_H
#define LOOM_ONNX_ONNX_H

/** \file
 * Importing ONNX models into Loom (docs/ONNX.md).
 *
 * A Model is a parsed .onnx file. compile() turns it into a Loom Pipeline
 * specialised to concrete input shapes (and, where an input's value decides a
 * shape, a trip count or a branch, to that value); run() realizes it with
 * loom::Buffers. A Session caches compiled models by input shapes and
 * recompiles when they change.
 *
 * \code
 * loom::onnx::Model model = loom::onnx::load_model("model.onnx");
 * loom::onnx::Session session(model);
 * std::map<std::string, loom::onnx::Value> inputs;
 * inputs["x"] = loom::onnx::Value::from_tensor(loom::onnx::read_value_file("x.npy").tensor);
 * std::vector<loom::onnx::Value> outputs = session.run(inputs);
 * \endcode
 *
 * Tensors travel as loom::Buffer<> in Loom's layout: dimension 0 is the last
 * (innermost) ONNX axis, so a dense ONNX tensor of shape [a, b, c] is a
 * Buffer of extents {c, b, a} over the same bytes. A rank-0 tensor is a
 * Buffer of one dimension of extent 1 (shape_of() keeps the ONNX rank in
 * Value::shape).
 *
 * Errors: loom::CompileError for a malformed file, an unsupported op (the
 * message names op type, node name and the supported set), a shape that
 * cannot be known when compiling, a bad graph; loom::RuntimeError for inputs
 * whose shape or type differ from what a CompiledModel was compiled for.
 */

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "loom/Buffer.h"
#include "loom/Target.h"
#include "loom/Type.h"

namespace loom::onnx {

/** ONNX TensorProto data types (the numbers of onnx.proto). */
enum ElementType : int {
    Undefined = 0, Float32 = 1, UInt8 = 2, Int8 = 3, UInt16 = 4, Int16 = 5, Int32 = 6, Int64 = 7,
    String = 8, Boolean = 9, Float16 = 10, Float64 = 11, UInt32 = 12, UInt64 = 13
};

/** The Loom type of an ONNX element type. \throws CompileError for strings,
 * complex and other types Loom has no scalar for. */
Type loom_type_of(int element_type);
/** The ONNX element type of a Loom type (0 if none). */
int element_type_of(const Type &type);
/** "float32", "int64", ... */
std::string element_type_name(int element_type);

/** One dimension of a declared shape: a number, a symbol ("N") or unknown. */
struct Dimension {
    int64_t value = -1;  // -1 when not a number
    std::string symbol;
};

/** What a graph input or output declares. */
struct ValueInfo {
    enum class Kind { Tensor, Sequence, Optional, Unknown };
    std::string name;
    Kind kind = Kind::Tensor;
    int element_type = 0;    // of the tensor, or of the sequence's / optional's tensors
    bool has_shape = false;  // false: the rank is unknown too
    std::vector<Dimension> shape;
    /** "float32[N, 3]", "seq(float32)", "optional(seq(float32))". */
    std::string to_string() const;
};

/** A run-time value: a tensor, a sequence of tensors, or an absent optional. */
struct Value {
    enum class Kind { Tensor, Sequence, None };
    std::string name;
    Kind kind = Kind::None;
    int element_type = 0;
    std::vector<int64_t> shape;  // tensor: ONNX shape, outermost first
    Buffer<> tensor;             // Loom layout (see the file comment)
    std::vector<Value> elements; // sequence: its tensors

    /** A tensor of ONNX shape `shape` (its rank may be 0) over buffer. */
    static Value from_buffer(const Buffer<> &buffer, const std::vector<int64_t> &shape);
    /** A tensor whose ONNX shape is buffer's extents reversed. */
    static Value from_tensor(const Buffer<> &buffer);
    static Value sequence_of(int element_type, const std::vector<Value> &tensors);
    static Value none();
    /** New zeroed tensor. */
    static Value zeros(int element_type, const std::vector<int64_t> &shape);
    int64_t num_elements() const;
    /** Element i in row-major order, converted to double. */
    double at(int64_t i) const;
    /** "float32[2, 3]", "seq(2 x float32)", "none". */
    std::string describe() const;
};

namespace detail {
struct ModelContents;
}

/** A parsed ONNX model. */
class Model {
public:
    Model() = default;
    const std::vector<ValueInfo> &inputs() const;
    const std::vector<ValueInfo> &outputs() const;
    /** The default-domain opset the model imports. */
    int64_t opset() const;
    std::string producer() const;
    std::string graph_name() const;
    /** Every op type the graph and its subgraphs use. */
    std::set<std::string> op_types() const;
    const std::shared_ptr<const detail::ModelContents> &contents() const { return contents_; }

private:
    friend Model load_model_from_bytes(const std::string &, const std::string &);
    std::shared_ptr<const detail::ModelContents> contents_;
};

/** \throws CompileError if the file cannot be read or is not a valid model. */
Model load_model(const std::string &path);
/** `origin` names the bytes in error messages. */
Model load_model_from_bytes(const std::string &bytes, const std::string &origin = "<bytes>");

/** The op types compile() supports, sorted. */
std::vector<std::string> supported_ops();

struct CompileOptions {
    Target target = get_jit_target_from_environment();
    /** Inputs whose values (not only shapes) are compiled in: needed where a
     * value decides a shape, a trip count, a branch of different shape or a
     * sequence index. A Session adds them by itself when compile() asks. */
    std::set<std::string> specialize;
    /** Loop and Scan as update definitions over an RDom where the body
     * allows it (docs/ONNX.md); false instantiates every body per iteration. */
    bool loops_as_recurrences = true;
    /** The most iterations a Loop or Scan instantiated per iteration may take
     * (CompileError beyond). */
    int64_t max_unrolled_iterations = 4096;
    /** If >= 0, every Loop and Scan compiled as update definitions stops
     * after this many iterations even if its trip count or condition says
     * more (for untrusted models, e.g. the fuzzer); -1: no limit. */
    int64_t max_loop_iterations = -1;
    /** The most elements any one value may have (CompileError beyond). */
    int64_t max_tensor_elements = int64_t(1) << 28;
};

namespace detail {
struct CompiledContents;
}

/** A model compiled for one set of input shapes. */
class CompiledModel {
public:
    CompiledModel() = default;
    bool defined() const { return contents_ != nullptr; }
    /** \throws RuntimeError if an input is missing or its kind, type or shape
     * (or a specialised value) differs from the compiled one. Outputs come
     * in the model's output order. */
    std::vector<Value> run(const std::map<std::string, Value> &inputs) const;
    /** The loop nest of the pipeline (Pipeline::print_loop_nest). */
    void print_loop_nest() const;
    /** DIR/NAME.a and DIR/NAME.h: a C function NAME taking the inputs that
     * are not compiled in (model order, sequences one buffer per element),
     * then the outputs. \throws CompileError if an output is not a tensor. */
    void compile_to_static_library(const std::string &dir, const std::string &name,
                                   const Target &target = get_target_from_environment()) const;
    /** One line per Loop and Scan: mapped to update definitions over an
     * RDom, or instantiated per iteration and why. */
    std::vector<std::string> loop_notes() const;
    /** Names of the C function's buffer arguments, in order. */
    std::vector<std::string> argument_names() const;
    const std::shared_ptr<detail::CompiledContents> &contents() const { return contents_; }

private:
    friend CompiledModel compile(const Model &, const std::map<std::string, Value> &, const CompileOptions &);
    std::shared_ptr<detail::CompiledContents> contents_;
};

/** Compiles `model` for the kinds, types and shapes of `inputs` (and the
 * values of options.specialize). \throws CompileError */
CompiledModel compile(const Model &model, const std::map<std::string, Value> &inputs,
                      const CompileOptions &options = {});

/** Compiles on first use and again whenever the input shapes change (one
 * CompiledModel per shape signature); specialises inputs on values where
 * the importer needs them. */
class Session {
public:
    explicit Session(Model model, CompileOptions options = {});
    std::vector<Value> run(const std::map<std::string, Value> &inputs);
    /** The CompiledModel for these inputs (compiling it if new). */
    const CompiledModel &compiled_for(const std::map<std::string, Value> &inputs);
    int compilations() const { return compilations_; }
    const Model &model() const { return model_; }

private:
    Model model_;
    CompileOptions options_;
    std::map<std::string, CompiledModel> cache_;
    int compilations_ = 0;
};

/** \name Tensor files
 * .pb: a serialized TensorProto, SequenceProto or OptionalProto (as the ONNX
 * backend tests store them; `expected` says which, Tensor if null); .npy:
 * NumPy's format, version 1-3, little-endian, C order. \throws CompileError
 * on a malformed file. */
///@{
Value read_value_file(const std::string &path, const ValueInfo *expected = nullptr);
Value parse_tensor_proto(const std::string &bytes, const std::string &origin = "<bytes>");
void write_npy(const std::string &path, const Value &tensor);
std::string serialize_tensor_proto(const Value &tensor);
///@}

}  // namespace loom::onnx

#endif
