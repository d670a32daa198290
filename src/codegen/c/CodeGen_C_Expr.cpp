// The C back end's expressions: constants, arithmetic (through the
// preamble's loom_add, loom_div, loom_cast, ...), vectors lane by lane,
// loads, and calls (intrinsics, messages, math and C functions).

#include <cctype>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "codegen/c/CodeGen_C_Internal.h"
#include "ir/LowerBitIntrinsics.h"
#include "loom/Error.h"
#include "loom/runtime/float16.h"
#include "lower/ExternStages.h"
#include "lower/Memoize.h"

namespace loom {
namespace internal {

namespace {

/** Replaces $0, $1, ... in pattern by pieces[i]. */
std::string substitute(const std::string &pattern, const std::vector<std::string> &pieces) {
    std::string result;
    for (size_t i = 0; i < pattern.size(); i++) {
        if (pattern[i] == '$' && i + 1 < pattern.size() && isdigit((unsigned char)pattern[i + 1])) {
            size_t j = i + 1;
            size_t index = 0;
            while (j < pattern.size() && isdigit((unsigned char)pattern[j])) index = index * 10 + (pattern[j++] - '0');
            if (index >= pieces.size()) throw InternalError("codegen_c: pattern " + pattern + " has too few operands");
            result += pieces[index];
            i = j - 1;
            continue;
        }
        result += pattern[i];
    }
    return result;
}

}  // namespace

std::string c_string_literal(const std::string &s) {
    std::string result = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            result += '\\';
            result += (char)c;
        } else if (c >= 0x20 && c < 0x7f) {
            result += (char)c;
        } else {
            char octal[8];
            std::snprintf(octal, sizeof octal, "\\%03o", c);  // always 3 digits: a digit after it stays text
            result += octal;
        }
    }
    return result + "\"";
}

// ------------------------------------------------------------------ helpers

std::string CodeGenC::emit(const Expr &e) {
    if (!e.defined()) throw InternalError("codegen_c: undefined Expr");
    value_.clear();
    e.accept(this);
    if (value_.empty()) throw InternalError("codegen_c: no value for an Expr node");
    std::string v = value_;
    value_.clear();
    return v;
}

std::string CodeGenC::declare(Type t, const std::string &value, const std::string &hint) {
    const std::string name = fresh(hint);
    line() << c_type(t) << " const " << name << " = " << value << ";\n";
    return name;
}

std::string CodeGenC::lanewise(Type t, const std::string &pattern, const std::vector<Operand> &operands) {
    std::vector<std::string> pieces;
    if (t.is_scalar()) {
        for (const Operand &o : operands) {
            if (o.type.is_vector()) throw InternalError("codegen_c: vector operand of a scalar " + pattern);
            pieces.push_back(o.value);
        }
        return declare(t, substitute(pattern, pieces));
    }
    for (const Operand &o : operands) {
        if (o.type.is_vector() && o.type.lanes() != t.lanes()) {
            throw InternalError("codegen_c: operand lanes differ from the result's in " + pattern);
        }
        pieces.push_back(o.type.is_vector() ? o.value + ".v[loom_l]" : o.value);
    }
    const std::string name = fresh("v");
    line() << c_type(t) << " " << name << ";\n";
    line() << "for (int loom_l = 0; loom_l < " << t.lanes() << "; loom_l++) " << name
           << ".v[loom_l] = " << substitute(pattern, pieces) << ";\n";
    return name;
}

std::string CodeGenC::reduce_condition(const Operand &condition, bool all_lanes) {
    if (condition.type.is_scalar()) return condition.value;
    const std::string name = fresh(all_lanes ? "all" : "any");
    line() << "bool " << name << " = " << (all_lanes ? "true" : "false") << ";\n";
    line() << "for (int loom_l = 0; loom_l < " << condition.type.lanes() << "; loom_l++) " << name
           << (all_lanes ? " = " + name + " && " : " = " + name + " || ") << condition.value << ".v[loom_l];\n";
    return name;
}

// ------------------------------------------------------------------ constants

std::string CodeGenC::literal(const Expr &e) const {
    if (const IntImm *i = e.as<IntImm>()) {
        const std::string type = scalar_type(e.type());
        if (e.type().bits() == 64 && i->value == INT64_MIN) return "(int64_t)(-9223372036854775807LL - 1)";
        return "(" + type + ")" + std::to_string(i->value) + (e.type().bits() == 64 ? "LL" : "");
    }
    if (const UIntImm *u = e.as<UIntImm>()) {
        if (e.type().is_bool()) return u->value ? "true" : "false";
        return "(" + scalar_type(e.type()) + ")" + std::to_string(u->value) + "ULL";
    }
    if (const FloatImm *f = e.as<FloatImm>()) {
        const bool single = e.type().bits() == 32;
        char text[64];
        if (is_half(e.type())) {
            const unsigned bits = float16_t::bits_from_double(f->value);  // as LLVM rounds a half constant
            std::snprintf(text, sizeof text, "loom_f16_from_bits(0x%04x)", bits);
            return text;
        }
        if (std::isfinite(f->value)) {
            // Hexadecimal: exact, whatever the compiler's decimal rounding.
            std::snprintf(text, sizeof text, "%a", single ? (double)(float)f->value : f->value);
            return std::string("(") + text + (single ? "f)" : ")");
        }
        if (single) {
            const float x = (float)f->value;
            uint32_t bits;
            std::memcpy(&bits, &x, sizeof bits);
            std::snprintf(text, sizeof text, "loom_float_from_bits(0x%08" PRIx32 "u)", bits);
        } else {
            uint64_t bits;
            std::memcpy(&bits, &f->value, sizeof bits);
            std::snprintf(text, sizeof text, "loom_double_from_bits(0x%016" PRIx64 "ULL)", bits);
        }
        return text;
    }
    throw InternalError("codegen_c: not a constant");
}

void CodeGenC::visit(const IntImm *op) {
    scalar_type(op->type);  // refuses what C cannot hold
    value_ = literal(op);
}

void CodeGenC::visit(const UIntImm *op) {
    scalar_type(op->type);
    value_ = literal(op);
}

void CodeGenC::visit(const FloatImm *op) {
    scalar_type(op->type);
    value_ = literal(op);
}

void CodeGenC::visit(const StringImm *op) { value_ = "((void *)" + c_string_literal(op->value) + ")"; }

// ------------------------------------------------------------------ conversions

void CodeGenC::visit(const Cast *op) {
    const Operand v = operand(op->value);
    value_ = lanewise(op->type,
                      "loom_cast<" + scalar_type(op->type.element_of()) + ", " +
                          scalar_type(op->value.type().element_of()) + ">($0)",
                      {v});
}

void CodeGenC::visit(const Reinterpret *op) {
    const Operand v = operand(op->value);
    if (op->type.is_handle() && op->type.is_scalar()) {
        value_ = declare(op->type, "(void *)(uintptr_t)" + v.value);
        return;
    }
    if (op->value.type().is_handle() && op->value.type().is_scalar()) {
        value_ = declare(op->type, "(" + scalar_type(op->type) + ")(uintptr_t)" + v.value);
        return;
    }
    value_ = declare(op->type, "loom_reinterpret<" + c_type(op->type) + ">(" + v.value + ")");
}

// ------------------------------------------------------------------ variables

void CodeGenC::visit(const Variable *op) { value_ = lookup(op->name); }

void CodeGenC::visit(const Let *op) {
    const std::string value = emit(op->value);
    const std::string name = fresh(op->name);
    line() << "[[maybe_unused]] " << c_type(op->value.type()) << " const " << name << " = " << value << ";\n";
    bind(op->name, name);
    value_ = emit(op->body);
    unbind(op->name);
}

// ------------------------------------------------------------------ arithmetic

#define LOOM_C_BINARY(NODE, PATTERN)                                                   \
    void CodeGenC::visit(const NODE *op) {                                             \
        const Operand a = operand(op->a), b = operand(op->b);                          \
        value_ = lanewise(op->type, PATTERN, {a, b});                                  \
    }

LOOM_C_BINARY(Add, "loom_add($0, $1)")
LOOM_C_BINARY(Sub, "loom_sub($0, $1)")
LOOM_C_BINARY(Mul, "loom_mul($0, $1)")
LOOM_C_BINARY(Div, "loom_div($0, $1)")
LOOM_C_BINARY(Mod, "loom_mod($0, $1)")
LOOM_C_BINARY(Min, "loom_min($0, $1)")
LOOM_C_BINARY(Max, "loom_max($0, $1)")
LOOM_C_BINARY(EQ, "($0 == $1)")
LOOM_C_BINARY(NE, "($0 != $1)")
LOOM_C_BINARY(LT, "($0 < $1)")
LOOM_C_BINARY(LE, "($0 <= $1)")
LOOM_C_BINARY(GT, "($0 > $1)")
LOOM_C_BINARY(GE, "($0 >= $1)")
LOOM_C_BINARY(And, "($0 && $1)")
LOOM_C_BINARY(Or, "($0 || $1)")
#undef LOOM_C_BINARY

void CodeGenC::visit(const Not *op) { value_ = lanewise(op->type, "(!$0)", {operand(op->a)}); }

void CodeGenC::visit(const Select *op) {
    const Operand c = operand(op->condition), t = operand(op->true_value), f = operand(op->false_value);
    value_ = lanewise(op->type, "($0 ? $1 : $2)", {c, t, f});
}

// ------------------------------------------------------------------ vectors

void CodeGenC::visit(const Ramp *op) {
    const Operand base = operand(op->base), stride = operand(op->stride);
    const std::string element = scalar_type(op->type.element_of());
    if (op->base.type().is_scalar()) {
        value_ = lanewise(op->type, "loom_add($0, loom_mul($1, (" + element + ")loom_l))", {base, stride});
        return;
    }
    // A ramp of vectors: base, base + stride, ... concatenated.
    const int inner = op->base.type().lanes();
    const std::string name = fresh("ramp");
    line() << c_type(op->type) << " " << name << ";\n";
    line() << "for (int loom_i = 0; loom_i < " << op->lanes << "; loom_i++)\n";
    line() << "    for (int loom_l = 0; loom_l < " << inner << "; loom_l++) " << name << ".v[loom_i * " << inner
           << " + loom_l] = loom_add(" << base.value << ".v[loom_l], loom_mul(" << stride.value << ".v[loom_l], ("
           << element << ")loom_i));\n";
    value_ = name;
}

void CodeGenC::visit(const Broadcast *op) {
    const Operand v = operand(op->value);
    if (v.type.is_scalar()) {
        value_ = lanewise(op->type, "$0", {v});
        return;
    }
    const std::string name = fresh("broadcast");
    line() << c_type(op->type) << " " << name << ";\n";
    line() << "for (int loom_l = 0; loom_l < " << op->type.lanes() << "; loom_l++) " << name << ".v[loom_l] = "
           << v.value << ".v[loom_l % " << v.type.lanes() << "];\n";
    value_ = name;
}

void CodeGenC::visit(const Shuffle *op) {
    std::vector<Operand> vectors;
    std::vector<std::pair<size_t, int>> lanes;  // (vector, lane) of each concatenated lane
    for (const Expr &v : op->vectors) {
        vectors.push_back(operand(v));
        for (int l = 0; l < v.type().lanes(); l++) lanes.push_back({vectors.size() - 1, l});
    }
    auto lane = [&](int index) {
        if (index < 0 || (size_t)index >= lanes.size()) throw InternalError("codegen_c: shuffle index out of range");
        const Operand &v = vectors[lanes[index].first];
        return v.type.is_scalar() ? v.value : v.value + ".v[" + std::to_string(lanes[index].second) + "]";
    };
    if (op->type.is_scalar()) {
        value_ = declare(op->type, lane(op->indices.at(0)));
        return;
    }
    const std::string name = fresh("shuffle");
    line() << c_type(op->type) << " " << name << ";\n";
    for (size_t i = 0; i < op->indices.size(); i++) {
        line() << name << ".v[" << i << "] = " << lane(op->indices[i]) << ";\n";
    }
    value_ = name;
}

// Lanes are combined in order within each group, as the LLVM back end does.
void CodeGenC::visit(const VectorReduce *op) {
    const Operand v = operand(op->value);
    const int groups = op->type.lanes();
    const int size = v.type.lanes() / groups;
    std::string pattern;
    switch (op->op) {
    case VectorReduce::Add: pattern = "loom_add($0, $1)"; break;
    case VectorReduce::Mul: pattern = "loom_mul($0, $1)"; break;
    case VectorReduce::Min: pattern = "loom_min($0, $1)"; break;
    case VectorReduce::Max: pattern = "loom_max($0, $1)"; break;
    case VectorReduce::And: pattern = "($0 && $1)"; break;
    case VectorReduce::Or: pattern = "($0 || $1)"; break;
    }
    const std::string element = scalar_type(op->type.element_of());
    const std::string name = fresh("reduce");
    line() << c_type(op->type) << " " << name << ";\n";
    open_block("for (int loom_g = 0; loom_g < " + std::to_string(groups) + "; loom_g++)");
    line() << element << " loom_acc = " << v.value << ".v[loom_g * " << size << "];\n";
    line() << "for (int loom_k = 1; loom_k < " << size << "; loom_k++) loom_acc = "
           << substitute(pattern, {"loom_acc", v.value + ".v[loom_g * " + std::to_string(size) + " + loom_k]"})
           << ";\n";
    line() << (op->type.is_scalar() ? name : name + ".v[loom_g]") << " = loom_acc;\n";
    close_block();
    value_ = name;
}

// ------------------------------------------------------------------ memory

void CodeGenC::visit(const Load *op) {
    const std::string pointer = lookup(op->name);
    const Operand index = operand(op->index);
    const std::string memory = memory_type(op->type);
    const std::string element = scalar_type(op->type.element_of());
    std::string read = "((const " + memory + " *)" + pointer + ")[$0]";
    if (op->type.is_bool()) read = "(" + read + " != 0)";
    if (is_half(op->type)) read = "loom_f16_from_bits(" + read + ")";
    if (!op->predicate.defined()) {
        value_ = lanewise(op->type, read, {index});
        return;
    }
    const Operand predicate = operand(op->predicate);
    value_ = lanewise(op->type, "($1 ? " + read + " : " + element + "())", {index, predicate});
}

// ------------------------------------------------------------------ calls

namespace {

// <math.h> functions the front end calls (lang/IROperator.cpp): each with
// its float ("f") and double name.
const char *const math_functions[] = {
    "sqrt", "exp",   "log",   "pow",   "sin",   "cos",   "tan",  "asin",  "acos",      "atan",     "atan2",
    "sinh", "cosh",  "tanh",  "acosh", "asinh", "atanh", "floor", "ceil", "nearbyint", "trunc",    "round",
    "rint", "fabs",  "fmin",  "fmax",  "copysign", "exp2", "log2", "log10", "expm1",   "log1p",    "fmod",
    "hypot", "cbrt", "erf",   "erfc",  "tgamma", "lgamma",
};

/** The <math.h> name to call for a math Call, or "". */
std::string math_function(const Call *op) {
    if (!op->type.is_float()) return "";
    std::string name = op->name;
    // roundeven is C23; nearbyint rounds the same in the default mode.
    if (name == "roundevenf") return "nearbyintf";
    if (name == "roundeven") return "nearbyint";
    const bool single = op->type.bits() == 32;
    for (const char *base : math_functions) {
        if (name == std::string(base) + (single ? "f" : "")) return name;
    }
    return "";
}

}  // namespace

void CodeGenC::visit(const Call *op) {
    switch (op->call_type) {
    case CallType::Image:
    case CallType::Func:
        throw InternalError("codegen_c: call to '" + op->name + "' should have been lowered to a Load");
    case CallType::Intrinsic:
    case CallType::PureIntrinsic:
        value_ = emit_intrinsic(op);
        return;
    case CallType::Extern:
    case CallType::PureExtern:
        value_ = emit_extern_call(op);
        return;
    }
    throw InternalError("codegen_c: unknown call type for '" + op->name + "'");
}

std::string CodeGenC::emit_extern_call(const Call *op) {
    if (is_half(op->type)) {
        // A Float(16) math call (the front end never makes one: it computes
        // math on halves in Float(32)): the Float(32) call of the same name
        // on the arguments converted exactly, rounded back to half, as the
        // LLVM back end does.
        std::vector<Expr> wide_args;
        for (const Expr &a : op->args) {
            wide_args.push_back(is_half(a.type()) ? Cast::make(a.type().with_bits(32), a) : a);
        }
        const Expr wide = Call::make(op->type.with_bits(32), op->name, wide_args, op->call_type);
        if (!math_function(wide.as<Call>()).empty()) {
            return lanewise(op->type, "loom_f16_from_float($0)", {operand(wide)});
        }
    }
    std::vector<Operand> args;
    for (const Expr &a : op->args) args.push_back(operand(a));
    std::string pattern;
    for (size_t i = 0; i < args.size(); i++) pattern += (i ? ", $" : "$") + std::to_string(i);
    const std::string math = math_function(op);
    if (!math.empty()) return lanewise(op->type, "::" + math + "(" + pattern + ")", args);
    if (op->name.rfind("loom_", 0) == 0) {
        refuse("the runtime call " + op->name + "() (a feature of the target or schedule that the C back end "
               "does not support)",
               "compile this pipeline with compile_to_object or compile_to_static_library instead");
    }
    // Any other C function: declared here as C would call it, lane by lane
    // for vector arguments.
    std::string declaration = "extern \"C\" " + scalar_type(op->type.element_of()) + " " + op->name + "(";
    for (size_t i = 0; i < args.size(); i++) {
        declaration += (i ? ", " : "") + scalar_type(args[i].type.element_of());
    }
    declaration += ");";
    auto [it, inserted] = extern_declarations_.emplace(op->name, declaration);
    if (!inserted && it->second != declaration) {
        refuse("the C function " + op->name + "() called with two different signatures",
               "call it with the same argument types everywhere");
    }
    return lanewise(op->type, op->name + "(" + pattern + ")", args);
}

std::string CodeGenC::emit_buffer_intrinsic(const Call *op) {
    const std::string &n = op->name;
    if (op->args.empty()) throw InternalError("codegen_c: " + n + " needs a buffer");
    const std::string buffer = "((loom_buffer_t *)" + emit(op->args[0]) + ")";
    auto dimension = [&](const char *field) {
        if (op->args.size() != 2) throw InternalError("codegen_c: " + n + " takes a buffer and a dimension");
        return declare(op->type, buffer + "->dim[" + emit(op->args[1]) + "]." + field);
    };
    if (n == intrinsic::buffer_get_host) return declare(op->type, "(void *)" + buffer + "->host");
    if (n == intrinsic::buffer_get_min) return dimension("min");
    if (n == intrinsic::buffer_get_extent) return dimension("extent");
    if (n == intrinsic::buffer_get_stride) return dimension("stride");
    if (n == intrinsic::buffer_get_dimensions) return declare(op->type, buffer + "->dimensions");
    if (n == intrinsic::buffer_get_type_code) return declare(op->type, buffer + "->type.code");
    if (n == intrinsic::buffer_get_type_bits) return declare(op->type, buffer + "->type.bits");
    if (n == intrinsic::buffer_is_null) return declare(op->type, "(" + buffer + " == nullptr)");
    if (n == intrinsic::buffer_host_is_null) return declare(op->type, "(" + buffer + "->host == nullptr)");
    if (n == intrinsic::buffer_set_bounds) {
        if (op->args.size() != 4) throw InternalError("codegen_c: buffer_set_bounds takes 4 arguments");
        const std::string d = emit(op->args[1]), min = emit(op->args[2]), extent = emit(op->args[3]);
        return declare(op->type, "loom_buffer_set_bounds(" + buffer + ", " + d + ", " + min + ", " + extent + ")");
    }
    throw InternalError("codegen_c: unknown buffer intrinsic '" + n + "'");
}

std::string CodeGenC::emit_message(const std::vector<Expr> &pieces, size_t first, const std::string &separator,
                                   const std::string &suffix, const Operand *leading_value) {
    std::string format;
    std::vector<std::string> values;
    auto literal_text = [&](const std::string &text) {
        for (char c : text) {
            format += c;
            if (c == kCMessageValueMarker) format += c;
        }
    };
    auto add_value = [&](const Operand &v) {
        const int lanes = v.type.lanes();
        if (lanes > 1) format += '[';
        for (int l = 0; l < lanes; l++) {
            if (l > 0) format += ", ";
            const std::string x = lanes > 1 ? v.value + ".v[" + std::to_string(l) + "]" : v.value;
            format += kCMessageValueMarker;
            const Type t = v.type.element_of();
            if (is_half(t)) {
                format += 'f';
                values.push_back("loom_double_bits((double)loom_f16_to_float(" + x + "))");
            } else if (t.is_float()) {
                format += 'f';
                values.push_back("loom_double_bits((double)" + x + ")");
            } else if (t.is_int()) {
                format += 'i';
                values.push_back("(uint64_t)(int64_t)" + x);
            } else if (t.is_uint()) {
                format += 'u';
                values.push_back("(uint64_t)" + x);
            } else {
                format += 'p';
                values.push_back("(uint64_t)(uintptr_t)" + x);
            }
        }
        if (lanes > 1) format += ']';
    };
    bool first_piece = true;
    if (leading_value) {
        add_value(*leading_value);
        first_piece = false;
    }
    for (size_t i = first; i < pieces.size(); i++) {
        if (!first_piece) literal_text(separator);
        first_piece = false;
        if (const StringImm *s = pieces[i].as<StringImm>()) {
            literal_text(s->value);
        } else {
            add_value(operand(pieces[i]));
        }
    }
    literal_text(suffix);
    const std::string buffer = fresh("message");
    std::string array = "nullptr";
    if (!values.empty()) {
        array = fresh("message_values");
        line() << "const uint64_t " << array << "[" << values.size() << "] = {";
        for (size_t i = 0; i < values.size(); i++) out_ << (i ? ", " : "") << values[i];
        out_ << "};\n";
    }
    line() << "char " << buffer << "[" << kCMessageCapacity << "];\n";
    line() << "loom_msg_format(" << buffer << ", sizeof " << buffer << ", " << c_string_literal(format) << ", "
           << array << ");\n";
    return buffer;
}

std::string CodeGenC::emit_intrinsic(const Call *op) {
    const std::string &n = op->name;
    auto arity = [&](size_t count) {
        if (op->args.size() != count) {
            throw InternalError("codegen_c: intrinsic " + n + " takes " + std::to_string(count) + " arguments");
        }
    };
    if (n.rfind("buffer_", 0) == 0) return emit_buffer_intrinsic(op);
    if (n == intrinsic::likely || n == intrinsic::promise_clamped) {
        if (op->args.empty()) throw InternalError("codegen_c: " + n + " needs an argument");
        return emit(op->args[0]);
    }
    if (n == intrinsic::prefetch) return "(int32_t)0";  // a hint only
    if (n == intrinsic::abs) {
        arity(1);
        return lanewise(op->type, "loom_abs<" + scalar_type(op->type.element_of()) + ">($0)", {operand(op->args[0])});
    }
    if (n == intrinsic::is_nan) {
        arity(1);
        return lanewise(op->type, "($0 != $0)", {operand(op->args[0])});
    }
    if (n == intrinsic::bitwise_and || n == intrinsic::bitwise_or || n == intrinsic::bitwise_xor) {
        arity(2);
        const char *c_op = n == intrinsic::bitwise_and ? " & " : n == intrinsic::bitwise_or ? " | " : " ^ ";
        const Operand a = operand(op->args[0]), b = operand(op->args[1]);
        return lanewise(op->type, "(" + scalar_type(op->type.element_of()) + ")($0" + c_op + "$1)", {a, b});
    }
    if (n == intrinsic::bitwise_not) {
        arity(1);
        const std::string element = scalar_type(op->type.element_of());
        if (op->type.is_bool()) return lanewise(op->type, "(!$0)", {operand(op->args[0])});
        return lanewise(op->type, "(" + element + ")(~$0)", {operand(op->args[0])});
    }
    if (n == intrinsic::shift_left || n == intrinsic::shift_right) {
        arity(2);
        const Operand a = operand(op->args[0]), b = operand(op->args[1]);
        return lanewise(op->type, std::string(n == intrinsic::shift_left ? "loom_shift_left" : "loom_shift_right") +
                                      "($0, $1)",
                        {a, b});
    }
    if (n == intrinsic::fma) {
        arity(3);
        const Operand a = operand(op->args[0]), b = operand(op->args[1]), c = operand(op->args[2]);
        if (is_half(op->type)) {
            // As LLVM legalizes a half fma on x86: in float, rounded to half.
            return lanewise(op->type,
                            "loom_f16_from_float(std::fma(loom_f16_to_float($0), loom_f16_to_float($1), "
                            "loom_f16_to_float($2)))",
                            {a, b, c});
        }
        return lanewise(op->type, "std::fma($0, $1, $2)", {a, b, c});
    }
    if (is_bit_intrinsic(op)) {
        Expr plain = lower_bit_intrinsic(op);
        if (!plain.defined()) throw InternalError("codegen_c: no plain form of " + n);
        return emit(plain);
    }
    if (n == intrinsic::error) {
        if (op->args.empty()) throw InternalError("codegen_c: error intrinsic needs a code");
        const std::string code = emit(op->args[0]);
        const std::string message = emit_message(op->args, 1, "", "");
        line() << "loom_error(nullptr, " << message << ");\n";
        return declare(op->type, "(" + scalar_type(op->type) + ")" + code, "code");
    }
    if (n == intrinsic::print) {
        const std::string message = emit_message(op->args, 0, " ", "\n");
        line() << "loom_print(nullptr, " << message << ");\n";
        return declare(op->type, "(" + c_type(op->type) + ")0");
    }
    if (n == intrinsic::print_value || n == intrinsic::print_value_when) {
        const size_t first = n == intrinsic::print_value ? 0 : 1;
        if (op->args.size() <= first) throw InternalError("codegen_c: " + n + " needs a value");
        std::string condition;
        if (first) condition = reduce_condition(operand(op->args[0]), /*all_lanes=*/false);
        const Operand value = operand(op->args[first]);
        if (first) open_block("if (" + condition + ")");
        const std::string message = emit_message(op->args, first + 1, " ", "\n", &value);
        line() << "loom_print(nullptr, " << message << ");\n";
        if (first) close_block();
        return value.value;
    }
    if (n == intrinsic::require) {
        if (op->args.size() != 3) throw InternalError("codegen_c: require takes (condition, value, error)");
        const std::string condition = reduce_condition(operand(op->args[0]), /*all_lanes=*/true);
        open_block("if (!" + condition + ")");
        emit_return(emit(op->args[2]));
        close_block();
        return emit(op->args[1]);
    }
    if (n == intrinsic::trace) {
        refuse("tracing (trace_loads, trace_stores, trace_realizations or the trace_all feature)",
               "remove the tracing, or compile with compile_to_object");
    }
    if (n == intrinsic::atomic_update) {
        refuse("an atomic update (Stage::atomic)", "remove atomic(), or compile with compile_to_object");
    }
    if (n == intrinsic::make_semaphore || n == intrinsic::semaphore_acquire || n == intrinsic::semaphore_release) {
        refuse("Func::async", "remove async(), or compile with compile_to_object");
    }
    if (n == intrinsic::extern_make_buffer || n == intrinsic::extern_buffer_min || n == intrinsic::extern_buffer_extent) {
        refuse("an extern stage (Func::define_extern)", "compile with compile_to_object and link the C function");
    }
    if (n == memoize_lookup_intrinsic || n == memoize_store_intrinsic) {
        refuse("Func::memoize", "remove memoize(), or compile with compile_to_object");
    }
    refuse("the intrinsic " + n,
           "compile this pipeline with compile_to_object or compile_to_static_library instead");
}

}  // namespace internal
}  // namespace loom
