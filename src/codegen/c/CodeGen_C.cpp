// The C back end (CodeGen_C.h): the source file, each function with its
// argv wrapper and metadata, and the statements. Expressions are in
// CodeGen_C_Expr.cpp.

#include "codegen/c/CodeGen_C.h"
#include "codegen/StackAllocation.h"

#include <algorithm>
#include <optional>

#include "aot/AotArguments.h"
#include "aot/CHeader.h"
#include "aot/EmbeddedFiles.h"
#include "codegen/c/CodeGen_C_Internal.h"
#include "loom/Error.h"
#include "loom/runtime/loom_runtime.h"

namespace loom {
namespace internal {

namespace {


int32_t kind_code(LoweredArgument::Kind k) {
    switch (k) {
    case LoweredArgument::InputScalar: return loom_argument_input_scalar;
    case LoweredArgument::InputBuffer: return loom_argument_input_buffer;
    case LoweredArgument::OutputBuffer: return loom_argument_output_buffer;
    }
    return -1;
}

std::string sanitize(const std::string &name) {
    std::string result;
    for (char c : name) result += (isalnum((unsigned char)c) || c == '_') ? c : '_';
    if (result.size() > 40) result = result.substr(0, 40);
    return result;
}

}  // namespace

// ------------------------------------------------------------------ core

void CodeGenC::refuse(const std::string &thing, const std::string &hint) const {
    throw CompileError(what_ + ": the C back end (c_source) cannot emit " + thing + "; " + hint + ".");
}

std::string CodeGenC::scalar_type(Type t) const {
    t = t.element_of();
    switch (t.code()) {
    case TypeCode::Int:
        if (t.bits() == 8 || t.bits() == 16 || t.bits() == 32 || t.bits() == 64) {
            return "int" + std::to_string(t.bits()) + "_t";
        }
        break;
    case TypeCode::UInt:
        if (t.bits() == 1) return "bool";
        if (t.bits() == 8 || t.bits() == 16 || t.bits() == 32 || t.bits() == 64) {
            return "uint" + std::to_string(t.bits()) + "_t";
        }
        break;
    case TypeCode::Float:
        if (t.bits() == 32) return "float";
        if (t.bits() == 64) return "double";
        if (t.bits() == 16) return "loom_f16";  // the preamble's binary16
        break;
    case TypeCode::BFloat:
        // Lowering computes BFloat(16) in Float(32) on its UInt(16) bits
        // (lower/EmulateBFloat16.h); only scalar arguments keep the type.
        throw InternalError("codegen_c: a BFloat(16) value was not emulated by lowering");
    case TypeCode::Handle:
        return "void *";
    }
    throw InternalError("codegen_c: no C type for " + t.to_string());
}

std::string CodeGenC::c_type(Type t) const {
    if (t.is_scalar()) return scalar_type(t);
    return "loom_vec<" + scalar_type(t) + ", " + std::to_string(t.lanes()) + ">";
}

std::string CodeGenC::memory_type(Type t) const {
    if (t.is_bool()) return "uint8_t";
    if (is_half(t)) return "uint16_t";
    return scalar_type(t);
}

std::string CodeGenC::argument_type(const LoweredArgument &a) const {
    // Float(16) and BFloat(16) arrive as their bits, in an integer register
    // as the header's loom_float16_scalar_t / loom_bfloat16_scalar_t (a
    // two-byte struct in C++) are passed.
    if (a.type.is_float() && a.type.bits() == 16) return "uint16_t";
    return c_scalar_type(a.type, a.name);
}

// "v_" first: never a reserved name (_Upper), a keyword or a runtime symbol.
std::string CodeGenC::fresh(const std::string &hint) { return "v_" + sanitize(hint) + "_" + std::to_string(next_id_++); }

std::ostream &CodeGenC::line() {
    for (int i = 0; i < indent_; i++) out_ << "    ";
    return out_;
}

void CodeGenC::open_block(const std::string &head) {
    line() << head << (head.empty() ? "{\n" : " {\n");
    indent_++;
}

void CodeGenC::close_block(const std::string &tail) {
    indent_--;
    line() << "}" << tail << "\n";
}

std::string CodeGenC::lookup(const std::string &ir_name) const {
    const std::string *c = symbols_.find(ir_name);
    if (!c) throw InternalError("codegen_c: symbol '" + ir_name + "' is not in scope");
    return *c;
}

void CodeGenC::emit_return(const std::string &code) { line() << "return (int)" << code << ";\n"; }

std::string CodeGenC::extern_declarations() const {
    std::string text;
    for (const auto &[name, declaration] : extern_declarations_) text += declaration + "\n";
    return text;
}

// ------------------------------------------------------------------ functions

void CodeGenC::compile(const LoweredFunc &f) {
    if (!f.kernels.empty()) {
        refuse("GPU schedules (function '" + f.name + "' launches " + std::to_string(f.kernels.size()) +
                   " GPU kernels)",
               "schedule it for the CPU, or compile with compile_to_object");
    }
    emit_function(f);
    emit_argv_wrapper(f);
    emit_metadata(f);
}

void CodeGenC::emit_function(const LoweredFunc &f) {
    std::string params;
    std::vector<std::string> names;
    for (size_t i = 0; i < f.args.size(); i++) {
        const LoweredArgument &a = f.args[i];
        const std::string name = "arg" + std::to_string(i) + "_" + sanitize(a.name);
        names.push_back(name);
        params += i ? ", " : "";
        if (a.is_buffer()) {
            params += "loom_buffer_t *" + name;
            continue;
        }
        params += argument_type(a) + " " + name;
    }
    out_ << "extern \"C\" int " << f.name << "(" << (params.empty() ? "void" : params) << ") {\n";
    indent_ = 1;
    for (size_t i = 0; i < f.args.size(); i++) {
        const LoweredArgument &a = f.args[i];
        if (a.is_buffer()) {
            const std::string handle = fresh(a.name + "_buffer");
            line() << "[[maybe_unused]] void *const " << handle << " = " << names[i] << ";\n";
            bind(a.name + ".buffer", handle);
        } else if (is_half(a.type)) {
            const std::string value = fresh(a.name);
            line() << "[[maybe_unused]] const loom_f16 " << value << " = loom_f16_from_bits(" << names[i] << ");\n";
            bind(a.name, value);
        } else {
            bind(a.name, names[i]);  // a BFloat(16) is its bits (UInt(16)) in the lowered code
        }
    }
    emit(f.body);
    line() << "return 0;\n";
    indent_ = 0;
    out_ << "}\n\n";
    for (const LoweredArgument &a : f.args) unbind(a.is_buffer() ? a.name + ".buffer" : a.name);
}

void CodeGenC::emit_argv_wrapper(const LoweredFunc &f) {
    out_ << "extern \"C\" int " << f.name << "_argv(void **args) {\n";
    out_ << "    return " << f.name << "(";
    for (size_t i = 0; i < f.args.size(); i++) {
        const LoweredArgument &a = f.args[i];
        out_ << (i ? ", " : "");
        const std::string slot = "args[" + std::to_string(i) + "]";
        if (a.is_buffer()) {
            out_ << "(loom_buffer_t *)" << slot;
        } else if (a.type.is_bool()) {
            out_ << "*(const uint8_t *)" << slot << " != 0";
        } else {
            const std::string type = argument_type(a);
            out_ << "*(" << type << (type.back() == '*' ? "" : " ") << "const *)" << slot;
        }
    }
    out_ << ");\n}\n\n";
}

void CodeGenC::emit_metadata(const LoweredFunc &f) {
    const std::string arguments = f.args.empty() ? "nullptr" : "loom_" + f.name + "_arguments";
    if (!f.args.empty()) {
        out_ << "static const loom_argument_info_t " << arguments << "[] = {\n";
        for (const LoweredArgument &a : f.args) {
            const loom_type_t t = a.type.to_runtime();
            out_ << "    {" << c_string_literal(a.name) << ", " << kind_code(a.kind) << ", "
                 << (a.is_buffer() ? a.dimensions : 0) << ", {" << (int)t.code << ", " << (int)t.bits << ", "
                 << (int)t.lanes << "}},\n";
        }
        out_ << "};\n";
    }
    out_ << "static const loom_pipeline_metadata_t loom_" << f.name << "_metadata_value = {"
         << LOOM_PIPELINE_METADATA_VERSION << ", " << f.args.size() << ", " << arguments << ", "
         << c_string_literal(target_.to_string()) << ", " << c_string_literal(f.name) << "};\n";
    out_ << "extern \"C\" const loom_pipeline_metadata_t *" << f.name << "_metadata(void) { return &loom_" << f.name
         << "_metadata_value; }\n\n";
}

// ------------------------------------------------------------------ statements

void CodeGenC::emit(const Stmt &s) {
    if (s.defined()) s.accept(this);
}

void CodeGenC::visit(const LetStmt *op) {
    const std::string value = emit(op->value);
    const std::string name = fresh(op->name);
    line() << "[[maybe_unused]] " << c_type(op->value.type()) << " const " << name << " = " << value << ";\n";
    bind(op->name, name);
    emit(op->body);
    unbind(op->name);
}

void CodeGenC::visit(const AssertStmt *op) {
    const std::string condition = reduce_condition(operand(op->condition), /*all_lanes=*/true);
    open_block("if (!" + condition + ")");
    emit_return(emit(op->message));
    close_block();
}

void CodeGenC::visit(const ProducerConsumer *op) {
    line() << "// " << (op->is_producer ? "produce " : "consume ") << sanitize(op->name) << "\n";
    emit(op->body);
}

void CodeGenC::visit(const For *op) {
    if (op->for_type == ForType::GPUBlock || op->for_type == ForType::GPUThread) {
        refuse("the GPU loop '" + op->name + "'", "schedule it for the CPU, or compile with compile_to_object");
    }
    if (op->min.type() != Int(32) || op->extent.type() != Int(32)) {
        throw InternalError("codegen_c: loop " + op->name + " is not over Int(32)");
    }
    open_block("");
    const std::string min = declare(Int(32), emit(op->min), op->name + "_min");
    const std::string extent = declare(Int(32), emit(op->extent), op->name + "_extent");
    const std::string var = fresh(op->name);
    bind(op->name, var);
    if (op->for_type == ForType::Parallel) {
        // The body is a lambda that loom_do_par_for calls with each value of
        // the loop variable; it sees everything outside by reference, and a
        // return in it (an error) ends that iteration with the code.
        const std::string body = fresh(op->name + "_body");
        open_block("auto " + body + " = [&](int32_t " + var + ") -> int");
        emit(op->body);
        line() << "return 0;\n";
        close_block(";");
        const std::string result = fresh("par_for_result");
        line() << "const int " << result << " = loom_par_for(" << min << ", " << extent << ", " << body << ");\n";
        line() << "if (" << result << " != 0) return " << result << ";\n";
    } else {
        // Counted in 64 bits: min + extent may not fit in 32.
        const std::string counter = fresh(op->name + "_counter");
        open_block("for (int64_t " + counter + " = " + min + "; " + counter + " < (int64_t)" + min + " + " +
                   extent + "; " + counter + "++)");
        line() << "const int32_t " << var << " = (int32_t)" << counter << ";\n";
        emit(op->body);
        close_block();
    }
    unbind(op->name);
    close_block();
}

void CodeGenC::visit(const While *op) {
    open_block("while (true)");
    const std::string condition = emit(op->condition);
    line() << "if (!" << condition << ") break;\n";
    emit(op->body);
    close_block();
}

void CodeGenC::visit(const Store *op) {
    if (const Call *c = op->value.as<Call>(); c && c->is_intrinsic(intrinsic::atomic_update)) {
        refuse("an atomic update (Stage::atomic)", "remove atomic(), or compile with compile_to_object");
    }
    const std::string pointer = lookup(op->name);
    const Type t = op->value.type();
    const Operand value = operand(op->value);
    const Operand index = operand(op->index);
    const std::string memory = memory_type(t);
    const std::string element = "((" + memory + " *)" + pointer + ")";
    auto lane = [&](const Operand &o) { return o.type.is_vector() ? o.value + ".v[loom_l]" : o.value; };
    std::string predicate;
    if (op->predicate.defined()) predicate = emit(op->predicate);
    std::string stored = lane(value);
    if (t.is_bool()) stored = "(uint8_t)" + stored;
    if (is_half(t)) stored += ".bits";
    std::string assignment = element + "[" + lane(index) + "] = " + stored + ";";
    if (!predicate.empty()) {
        const std::string p = op->predicate.type().is_vector() ? predicate + ".v[loom_l]" : predicate;
        assignment = "if (" + p + ") " + assignment;
    }
    if (t.is_scalar()) {
        line() << assignment << "\n";
        return;
    }
    line() << "for (int loom_l = 0; loom_l < " << t.lanes() << "; loom_l++) " << assignment << "\n";
}

void CodeGenC::visit(const Provide *op) {
    throw InternalError("codegen_c: Provide to '" + op->name + "' should have been flattened");
}

void CodeGenC::visit(const Realize *op) {
    throw InternalError("codegen_c: Realize of '" + op->name + "' should have been flattened");
}

void CodeGenC::visit(const Allocate *op) {
    const int64_t element_bytes = int64_t(op->type.bytes()) * op->type.lanes();
    memory_type(op->type);  // refuses types C cannot hold
    const std::optional<int64_t> constant_bytes = stack_allocation_bytes(op);
    open_block("");
    const std::string pointer = fresh(op->name);
    if (constant_bytes) {
        const std::string storage = fresh(op->name + "_storage");
        line() << "alignas(32) uint8_t " << storage << "[" << std::max<int64_t>(*constant_bytes, 1) << "];\n";
        line() << "void *const " << pointer << " = " << storage << ";\n";
        bind(op->name, pointer);
        emit(op->body);
        unbind(op->name);
        close_block();
        return;
    }
    std::string size = "(int64_t)" + std::to_string(element_bytes);
    for (const Expr &e : op->extents) size = "loom_mul(" + size + ", (int64_t)" + emit(e) + ")";
    const std::string allocation = fresh(op->name + "_allocation");
    line() << "loom_heap_allocation " << allocation << ";\n";
    std::string wanted;
    if (op->condition.defined() && !(op->condition.as<UIntImm>() && op->condition.as<UIntImm>()->value)) {
        wanted = emit(op->condition);
        open_block("if (" + wanted + ")");
    } else {
        open_block("");
    }
    line() << allocation << ".p = loom_malloc(nullptr, (size_t)" << size << ");\n";
    open_block("if (" + allocation + ".p == nullptr)");
    line() << "loom_error(nullptr, " << c_string_literal("Out of memory allocating " + op->name) << ");\n";
    line() << "return loom_error_code_out_of_memory;\n";
    close_block();
    close_block();
    line() << "void *const " << pointer << " = " << allocation << ".p;\n";
    bind(op->name, pointer);
    heap_allocations_.push(op->name, allocation);
    emit(op->body);
    heap_allocations_.pop(op->name);
    unbind(op->name);
    close_block();
}

void CodeGenC::visit(const Free *op) {
    if (const std::string *allocation = heap_allocations_.find(op->name)) {
        line() << allocation->c_str() << ".release();\n";
        return;
    }
    if (!symbols_.contains(op->name)) {
        throw InternalError("codegen_c: Free of '" + op->name + "', which is not allocated here");
    }
    // Stack memory: nothing to free.
}

void CodeGenC::visit(const Block *op) {
    emit(op->first);
    emit(op->rest);
}

void CodeGenC::visit(const IfThenElse *op) {
    const std::string condition = emit(op->condition);
    open_block("if (" + condition + ")");
    emit(op->then_case);
    if (op->else_case.defined()) {
        indent_--;
        line() << "} else {\n";
        indent_++;
        emit(op->else_case);
    }
    close_block();
}

void CodeGenC::visit(const Evaluate *op) {
    const std::string value = emit(op->value);
    if (value.find('(') != std::string::npos || value == "true" || value == "false") return;  // a constant
    line() << "(void)" << value << ";\n";
}

void CodeGenC::visit(const Fork *) {
    refuse("Func::async (a fork of concurrent producers)", "remove async(), or compile with compile_to_object");
}

// ------------------------------------------------------------------ the file

std::string codegen_c(const std::vector<const LoweredFunc *> &funcs, const Target &target, const std::string &what) {
    if (target.bits != 64) {
        throw CompileError(what + ": the C back end (c_source) emits code for 64-bit targets only, not " +
                           target.to_string() + "; use compile_to_object for 32-bit targets.");
    }
    if (target.has_feature(Target::LargeBuffers)) {
        throw CompileError(what + ": the C back end (c_source) does not support the large_buffers feature (its "
                           "element indices are 32-bit); remove it, or use compile_to_object.");
    }
    if (target.has_gpu_feature()) {
        throw CompileError(what + ": the C back end (c_source) cannot emit code for " + target.to_string() +
                           ", whose GPU feature needs the device runtime; remove the feature, or use "
                           "compile_to_object.");
    }
    std::string definitions;
    std::string declarations;
    std::string names;
    for (const LoweredFunc *f : funcs) {
        CodeGenC codegen(target, what);
        codegen.compile(*f);
        definitions += codegen.definitions();
        declarations += codegen.extern_declarations();
        names += (names.empty() ? "" : ", ") + f->name;
    }
    std::string text = "// Generated by Loom's C back end for target " + target.to_string() + ": " + names +
                       ".\n// Do not edit. Compile as C++17 or later and link with a Loom runtime.\n\n";
    text += "/* ---- loom_runtime.h ---- */\n";
    text += std::string(embedded_runtime_header()) + "\n";
    text += c_backend_preamble();
    if (!declarations.empty()) text += declarations + "\n";
    return text + definitions;
}

}  // namespace internal
}  // namespace loom
