// Loading a model: parsing the protobuf, checking what the importer relies
// on, and describing its inputs and outputs.

#include <fstream>
#include <sstream>

#include "Importer.h"

namespace loom::onnx {

using namespace detail;

namespace detail {

ValueInfo value_info_of(const ::onnx::ValueInfoProto &info) {
    ValueInfo v;
    v.name = info.name();
    const ::onnx::TypeProto *type = &info.type();
    v.kind = ValueInfo::Kind::Tensor;
    if (type->has_optional_type()) {
        v.kind = ValueInfo::Kind::Optional;
        type = &type->optional_type().elem_type();
    }
    if (type->has_sequence_type()) {
        if (v.kind == ValueInfo::Kind::Tensor) v.kind = ValueInfo::Kind::Sequence;
        type = &type->sequence_type().elem_type();
    }
    if (type->has_tensor_type()) {
        v.element_type = type->tensor_type().elem_type();
        if (type->tensor_type().has_shape()) {
            v.has_shape = true;
            for (const auto &d : type->tensor_type().shape().dim()) {
                Dimension dim;
                if (d.has_dim_value()) dim.value = d.dim_value();
                if (d.has_dim_param()) dim.symbol = d.dim_param();
                v.shape.push_back(dim);
            }
        }
    } else if (v.kind == ValueInfo::Kind::Tensor) {
        v.kind = ValueInfo::Kind::Unknown;
    }
    return v;
}

namespace {
void collect_ops(const ::onnx::GraphProto &g, std::set<std::string> &ops) {
    for (const auto &n : g.node()) {
        ops.insert(n.op_type());
        for (const auto &a : n.attribute()) {
            if (a.has_g()) collect_ops(a.g(), ops);
            for (const auto &sub : a.graphs()) collect_ops(sub, ops);
        }
    }
}
}  // namespace

}  // namespace detail

const std::vector<ValueInfo> &Model::inputs() const { return contents_->inputs; }
const std::vector<ValueInfo> &Model::outputs() const { return contents_->outputs; }
int64_t Model::opset() const { return contents_->opset; }
std::string Model::producer() const { return contents_->proto.producer_name(); }
std::string Model::graph_name() const { return contents_->proto.graph().name(); }

std::set<std::string> Model::op_types() const {
    std::set<std::string> ops;
    collect_ops(contents_->proto.graph(), ops);
    return ops;
}

Model load_model_from_bytes(const std::string &bytes, const std::string &origin) {
    auto contents = std::make_shared<ModelContents>();
    contents->origin = origin;
    if (bytes.empty()) throw CompileError(origin + ": empty file, not an ONNX model");
    if (!contents->proto.ParseFromString(bytes))
        throw CompileError(origin + ": not a valid ONNX model (the protobuf does not parse: truncated or corrupt file?)");
    const auto &proto = contents->proto;
    if (!proto.has_graph()) throw CompileError(origin + ": the model has no graph");
    contents->opset = 0;
    for (const auto &op : proto.opset_import()) {
        if (op.domain().empty() || op.domain() == "ai.onnx") contents->opset = op.version();
    }
    if (proto.opset_import_size() == 0) contents->opset = 1;  // IR version 1-2 models name none
    if (contents->opset <= 0) throw CompileError(origin + ": the model imports no version of the default ONNX opset");
    std::set<std::string> initializers;
    for (const auto &t : proto.graph().initializer()) initializers.insert(t.name());
    for (const auto &i : proto.graph().input()) {
        // Inputs that are initializers too are constants with a default
        // (IR version < 4); they are not the model's inputs to feed.
        if (initializers.count(i.name())) continue;
        contents->inputs.push_back(value_info_of(i));
    }
    for (const auto &o : proto.graph().output()) contents->outputs.push_back(value_info_of(o));
    Model m;
    m.contents_ = contents;
    return m;
}

Model load_model(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw CompileError("cannot open ONNX model '" + path + "'");
    std::stringstream ss;
    ss << in.rdbuf();
    return load_model_from_bytes(ss.str(), path);
}

}  // namespace loom::onnx
