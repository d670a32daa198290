// The SPIR-V module builder: see SpirvModule.h.

#include "codegen/spirv/SpirvModule.h"

#include "loom/Error.h"

namespace loom {
namespace internal {
namespace spirv {

namespace {

// Loom's generator id in the module header: the upper 16 bits are the tool
// id (0 = unregistered), the lower 16 the tool's version.
constexpr uint32_t kGeneratorWord = 0;

}  // namespace

void SpirvModule::append_instruction(std::vector<uint32_t> &section, spv::Op op,
                                     const std::vector<uint32_t> &operands) {
    const size_t count = operands.size() + 1;
    if (count > 0xffff) throw InternalError("spirv: instruction with too many operands");
    section.push_back((uint32_t(count) << 16) | uint32_t(op));
    section.insert(section.end(), operands.begin(), operands.end());
}

void SpirvModule::append_string(std::vector<uint32_t> &words, const std::string &s) {
    // Four characters per word, low byte first, then a nul (padding with
    // more nuls to a whole word; a string whose length is a multiple of 4
    // takes one extra word of nuls).
    const size_t n = s.size() / 4 + 1;
    const size_t first = words.size();
    words.resize(first + n, 0);
    for (size_t i = 0; i < s.size(); i++) {
        words[first + i / 4] |= uint32_t(uint8_t(s[i])) << (8 * (i % 4));
    }
}

// ------------------------------------------------------------------ module-level sections

void SpirvModule::add_capability(spv::Capability c) { capabilities_.insert(c); }

void SpirvModule::add_extension(const std::string &name) { extensions_.insert(name); }

Id SpirvModule::glsl_std_450() {
    if (glsl_std_450_) return glsl_std_450_;
    glsl_std_450_ = reserve_id();
    std::vector<uint32_t> operands = {glsl_std_450_};
    append_string(operands, "GLSL.std.450");
    append_instruction(imports_, spv::Op::OpExtInstImport, operands);
    return glsl_std_450_;
}

void SpirvModule::add_entry_point(spv::ExecutionModel model, Id function, const std::string &name,
                                  const std::vector<Id> &interface) {
    std::vector<uint32_t> operands = {uint32_t(model), function};
    append_string(operands, name);
    operands.insert(operands.end(), interface.begin(), interface.end());
    append_instruction(entry_points_, spv::Op::OpEntryPoint, operands);
}

void SpirvModule::add_execution_mode(Id function, spv::ExecutionMode mode, const std::vector<uint32_t> &literals) {
    std::vector<uint32_t> operands = {function, uint32_t(mode)};
    operands.insert(operands.end(), literals.begin(), literals.end());
    append_instruction(execution_modes_, spv::Op::OpExecutionMode, operands);
}

void SpirvModule::add_name(Id id, const std::string &name) {
    named_.insert(id);
    std::vector<uint32_t> operands = {id};
    append_string(operands, name);
    append_instruction(names_, spv::Op::OpName, operands);
}

void SpirvModule::name_value(Id id, const std::string &name) {
    if (deduplicated_ids_.count(id) || !named_.insert(id).second) return;
    add_name(id, name);
}

void SpirvModule::add_member_name(Id struct_type, uint32_t member, const std::string &name) {
    std::vector<uint32_t> operands = {struct_type, member};
    append_string(operands, name);
    append_instruction(names_, spv::Op::OpMemberName, operands);
}

void SpirvModule::decorate(Id id, spv::Decoration d, const std::vector<uint32_t> &literals) {
    std::vector<uint32_t> operands = {id, uint32_t(d)};
    operands.insert(operands.end(), literals.begin(), literals.end());
    append_instruction(decorations_, spv::Op::OpDecorate, operands);
}

void SpirvModule::decorate_member(Id struct_type, uint32_t member, spv::Decoration d,
                                  const std::vector<uint32_t> &literals) {
    std::vector<uint32_t> operands = {struct_type, member, uint32_t(d)};
    operands.insert(operands.end(), literals.begin(), literals.end());
    append_instruction(decorations_, spv::Op::OpMemberDecorate, operands);
}

// ------------------------------------------------------------------ types and constants

Id SpirvModule::deduplicated(spv::Op op, bool has_result_type, Id result_type, const std::vector<uint32_t> &operands) {
    std::vector<uint32_t> key = {uint32_t(op), has_result_type ? result_type : 0};
    key.insert(key.end(), operands.begin(), operands.end());
    auto it = deduplicated_.find(key);
    if (it != deduplicated_.end()) return it->second;
    const Id id = reserve_id();
    std::vector<uint32_t> words;
    if (has_result_type) words.push_back(result_type);
    words.push_back(id);
    words.insert(words.end(), operands.begin(), operands.end());
    append_instruction(globals_section_, op, words);
    deduplicated_.emplace(std::move(key), id);
    deduplicated_ids_.insert(id);
    return id;
}

Id SpirvModule::type_void() { return deduplicated(spv::Op::OpTypeVoid, false, 0, {}); }
Id SpirvModule::type_bool() { return deduplicated(spv::Op::OpTypeBool, false, 0, {}); }
Id SpirvModule::type_int(int bits, bool is_signed) {
    return deduplicated(spv::Op::OpTypeInt, false, 0, {uint32_t(bits), is_signed ? 1u : 0u});
}
Id SpirvModule::type_float(int bits) { return deduplicated(spv::Op::OpTypeFloat, false, 0, {uint32_t(bits)}); }
Id SpirvModule::type_vector(Id component, int count) {
    if (count < 2 || count > 4) throw InternalError("spirv: vector of " + std::to_string(count) + " components");
    return deduplicated(spv::Op::OpTypeVector, false, 0, {component, uint32_t(count)});
}
Id SpirvModule::type_array(Id element, Id length_constant) {
    return deduplicated(spv::Op::OpTypeArray, false, 0, {element, length_constant});
}
Id SpirvModule::type_runtime_array(Id element) {
    return deduplicated(spv::Op::OpTypeRuntimeArray, false, 0, {element});
}
Id SpirvModule::type_struct(const std::vector<Id> &members) {
    const Id id = reserve_id();
    std::vector<uint32_t> words = {id};
    words.insert(words.end(), members.begin(), members.end());
    append_instruction(globals_section_, spv::Op::OpTypeStruct, words);
    return id;
}
Id SpirvModule::type_pointer(spv::StorageClass storage, Id pointee) {
    return deduplicated(spv::Op::OpTypePointer, false, 0, {uint32_t(storage), pointee});
}
Id SpirvModule::type_function(Id result, const std::vector<Id> &parameters) {
    std::vector<uint32_t> operands = {result};
    operands.insert(operands.end(), parameters.begin(), parameters.end());
    return deduplicated(spv::Op::OpTypeFunction, false, 0, operands);
}

Id SpirvModule::constant_bool(Id bool_type, bool value) {
    return deduplicated(value ? spv::Op::OpConstantTrue : spv::Op::OpConstantFalse, true, bool_type, {});
}
Id SpirvModule::constant(Id type, const std::vector<uint32_t> &literal_words) {
    return deduplicated(spv::Op::OpConstant, true, type, literal_words);
}
Id SpirvModule::constant_composite(Id type, const std::vector<Id> &parts) {
    return deduplicated(spv::Op::OpConstantComposite, true, type, parts);
}
Id SpirvModule::constant_null(Id type) { return deduplicated(spv::Op::OpConstantNull, true, type, {}); }

Id SpirvModule::global_variable(Id pointer_type, spv::StorageClass storage) {
    const Id id = reserve_id();
    append_instruction(globals_section_, spv::Op::OpVariable, {pointer_type, id, uint32_t(storage)});
    globals_.emplace_back(id, storage);
    return id;
}

// ------------------------------------------------------------------ functions

Id SpirvModule::begin_function(Id function, Id result_type, Id function_type) {
    if (in_function_) throw InternalError("spirv: begin_function inside a function");
    in_function_ = true;
    function_header_.clear();
    function_variables_.clear();
    function_preamble_.clear();
    function_body_.clear();
    append_instruction(function_header_, spv::Op::OpFunction,
                       {result_type, function, uint32_t(spv::FunctionControlMask::MaskNone), function_type});
    const Id entry = reserve_id();
    append_instruction(function_header_, spv::Op::OpLabel, {entry});
    return entry;
}

Id SpirvModule::local_variable(Id pointer_type) {
    if (!in_function_) throw InternalError("spirv: local variable outside a function");
    const Id id = reserve_id();
    append_instruction(function_variables_, spv::Op::OpVariable,
                       {pointer_type, id, uint32_t(spv::StorageClass::Function)});
    return id;
}

Id SpirvModule::emit_preamble(spv::Op op, Id result_type, const std::vector<uint32_t> &operands) {
    if (!in_function_) throw InternalError("spirv: instruction outside a function");
    const Id id = reserve_id();
    std::vector<uint32_t> words;
    if (result_type) words.push_back(result_type);
    words.push_back(id);
    words.insert(words.end(), operands.begin(), operands.end());
    append_instruction(function_preamble_, op, words);
    return id;
}

Id SpirvModule::emit(spv::Op op, Id result_type, const std::vector<uint32_t> &operands) {
    const Id id = reserve_id();
    emit_with_id(op, result_type, id, operands);
    return id;
}

void SpirvModule::emit_with_id(spv::Op op, Id result_type, Id result, const std::vector<uint32_t> &operands) {
    if (!in_function_) throw InternalError("spirv: instruction outside a function");
    std::vector<uint32_t> words;
    if (result_type) words.push_back(result_type);
    words.push_back(result);
    words.insert(words.end(), operands.begin(), operands.end());
    append_instruction(function_body_, op, words);
}

void SpirvModule::emit_void(spv::Op op, const std::vector<uint32_t> &operands) {
    if (!in_function_) throw InternalError("spirv: instruction outside a function");
    append_instruction(function_body_, op, operands);
}

void SpirvModule::emit_label(Id label) { emit_void(spv::Op::OpLabel, {label}); }

void SpirvModule::end_function() {
    if (!in_function_) throw InternalError("spirv: end_function outside a function");
    for (const auto *part : {&function_header_, &function_variables_, &function_preamble_, &function_body_}) {
        functions_.insert(functions_.end(), part->begin(), part->end());
    }
    append_instruction(functions_, spv::Op::OpFunctionEnd, {});
    in_function_ = false;
}

std::vector<uint32_t> SpirvModule::finish() const {
    if (in_function_) throw InternalError("spirv: finish() inside a function");
    std::vector<uint32_t> words = {spv::MagicNumber, version_, kGeneratorWord, next_id_, 0};
    for (spv::Capability c : capabilities_) append_instruction(words, spv::Op::OpCapability, {uint32_t(c)});
    for (const std::string &e : extensions_) {
        std::vector<uint32_t> operands;
        append_string(operands, e);
        append_instruction(words, spv::Op::OpExtension, operands);
    }
    words.insert(words.end(), imports_.begin(), imports_.end());
    append_instruction(words, spv::Op::OpMemoryModel,
                       {uint32_t(spv::AddressingModel::Logical), uint32_t(spv::MemoryModel::GLSL450)});
    for (const auto *section : {&entry_points_, &execution_modes_, &names_, &decorations_, &globals_section_,
                                &functions_}) {
        words.insert(words.end(), section->begin(), section->end());
    }
    return words;
}

}  // namespace spirv
}  // namespace internal
}  // namespace loom
