#include "ir/IRPrinter.h"

#include <charconv>
#include <cmath>
#include <sstream>

#include "ir/IRVisitor.h"
#include "ir/LoweredFunc.h"

namespace loom {
namespace internal {

namespace {

// Binding strength of infix operators, for printing only the parentheses
// the reader needs: `(x + 1)*2`, `x - (y - z)`.
enum Precedence { kLowest = 0, kOr, kAnd, kEquality, kRelational, kAdditive, kMultiplicative, kUnary, kAtom };

Precedence precedence_of(const Expr &e) {
    switch (e.node_type()) {
    case IRNodeType::Or:
        return kOr;
    case IRNodeType::And:
        return kAnd;
    case IRNodeType::EQ:
    case IRNodeType::NE:
        return kEquality;
    case IRNodeType::LT:
    case IRNodeType::LE:
    case IRNodeType::GT:
    case IRNodeType::GE:
        return kRelational;
    case IRNodeType::Add:
    case IRNodeType::Sub:
        return kAdditive;
    case IRNodeType::Mul:
    case IRNodeType::Div:
    case IRNodeType::Mod:
        return kMultiplicative;
    case IRNodeType::Not:
        return kUnary;
    default:
        return kAtom;
    }
}

std::string format_float(double value, int bits) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    char buf[64];
    // The shortest text that reads back as the same value.
    auto r = bits == 64 ? std::to_chars(buf, buf + sizeof(buf), value)
                        : std::to_chars(buf, buf + sizeof(buf), (float)value);
    std::string s(buf, r.ptr);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
}

std::string quote(const std::string &s) {
    std::string out = "\"";
    for (char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        default: out += c;
        }
    }
    return out + "\"";
}

const char *memory_type_name(MemoryType t) {
    switch (t) {
    case MemoryType::Auto: return "auto";
    case MemoryType::Heap: return "heap";
    case MemoryType::Stack: return "stack";
    case MemoryType::Register: return "register";
    case MemoryType::GPUShared: return "gpu_shared";
    }
    return "?";
}

const char *vector_reduce_name(VectorReduce::Operator op) {
    switch (op) {
    case VectorReduce::Add: return "vector_reduce_add";
    case VectorReduce::Mul: return "vector_reduce_mul";
    case VectorReduce::Min: return "vector_reduce_min";
    case VectorReduce::Max: return "vector_reduce_max";
    case VectorReduce::And: return "vector_reduce_and";
    case VectorReduce::Or: return "vector_reduce_or";
    }
    return "vector_reduce_?";
}

class Printer : public IRVisitor {
public:
    explicit Printer(std::ostream &os) : os_(os) {}

    void print(const Expr &e) {
        if (!e.defined()) {
            os_ << "(undefined)";
            return;
        }
        e.accept(this);
    }

    void print(const Stmt &s) {
        if (!s.defined()) {
            indent();
            os_ << "(undefined)\n";
            return;
        }
        s.accept(this);
    }

private:
    std::ostream &os_;
    int indent_ = 0;

    void indent() {
        for (int i = 0; i < indent_; i++) os_ << "  ";
    }

    // Prints e, in parentheses if it binds less tightly than `min_precedence`.
    void print_operand(const Expr &e, Precedence min_precedence) {
        bool parens = precedence_of(e) < min_precedence;
        if (parens) os_ << "(";
        print(e);
        if (parens) os_ << ")";
    }

    void print_list(const std::vector<Expr> &exprs) {
        for (size_t i = 0; i < exprs.size(); i++) {
            if (i > 0) os_ << ", ";
            print(exprs[i]);
        }
    }

    // Left-associative: an equal-precedence operand on the right needs
    // parentheses (x - (y - z)), on the left it does not.
    template<typename T>
    void print_infix(const T *op, const char *symbol, Precedence p) {
        // Comparisons never chain silently: (a < b) == c.
        bool comparison = p == kEquality || p == kRelational;
        Precedence left_min = comparison ? kAdditive : p;
        Precedence right_min = comparison ? kAdditive : Precedence(p + 1);
        print_operand(op->a, left_min);
        os_ << symbol;
        print_operand(op->b, right_min);
    }

    void print_body(const Stmt &body) {
        indent_++;
        print(body);
        indent_--;
    }

    // ---------------------------------------------------------------- expressions

    void visit(const IntImm *op) override {
        if (op->type == Int(32)) {
            os_ << op->value;
        } else {
            os_ << "(" << op->type << ")" << op->value;
        }
    }

    void visit(const UIntImm *op) override {
        if (op->type.is_bool()) {
            os_ << (op->value ? "true" : "false");
        } else {
            os_ << "(" << op->type << ")" << op->value;
        }
    }

    void visit(const FloatImm *op) override {
        std::string text = format_float(op->value, op->type.bits());
        bool finite = std::isfinite(op->value);
        if (op->type.bits() == 32 && finite) {
            os_ << text << "f";
        } else {
            os_ << "(" << op->type << ")" << text;
        }
    }

    void visit(const StringImm *op) override { os_ << quote(op->value); }

    void visit(const Cast *op) override {
        os_ << op->type << "(";
        print(op->value);
        os_ << ")";
    }

    void visit(const Reinterpret *op) override {
        os_ << "reinterpret<" << op->type << ">(";
        print(op->value);
        os_ << ")";
    }

    void visit(const Variable *op) override { os_ << op->name; }

    void visit(const Add *op) override { print_infix(op, " + ", kAdditive); }
    void visit(const Sub *op) override { print_infix(op, " - ", kAdditive); }
    void visit(const Mul *op) override { print_infix(op, "*", kMultiplicative); }
    void visit(const Div *op) override { print_infix(op, "/", kMultiplicative); }
    void visit(const Mod *op) override { print_infix(op, "%", kMultiplicative); }
    void visit(const EQ *op) override { print_infix(op, " == ", kEquality); }
    void visit(const NE *op) override { print_infix(op, " != ", kEquality); }
    void visit(const LT *op) override { print_infix(op, " < ", kRelational); }
    void visit(const LE *op) override { print_infix(op, " <= ", kRelational); }
    void visit(const GT *op) override { print_infix(op, " > ", kRelational); }
    void visit(const GE *op) override { print_infix(op, " >= ", kRelational); }
    void visit(const And *op) override { print_infix(op, " && ", kAnd); }
    void visit(const Or *op) override { print_infix(op, " || ", kOr); }

    void visit(const Min *op) override {
        os_ << "min(";
        print(op->a);
        os_ << ", ";
        print(op->b);
        os_ << ")";
    }

    void visit(const Max *op) override {
        os_ << "max(";
        print(op->a);
        os_ << ", ";
        print(op->b);
        os_ << ")";
    }

    void visit(const Not *op) override {
        os_ << "!";
        print_operand(op->a, kAtom);
    }

    void visit(const Select *op) override {
        os_ << "select(";
        print_list({op->condition, op->true_value, op->false_value});
        os_ << ")";
    }

    void visit(const Load *op) override {
        if (op->predicate.defined()) os_ << "(";
        os_ << op->name << "[";
        print(op->index);
        os_ << "]";
        if (op->predicate.defined()) {
            os_ << " if ";
            print(op->predicate);
            os_ << ")";
        }
    }

    void visit(const Ramp *op) override {
        os_ << "ramp(";
        print(op->base);
        os_ << ", ";
        print(op->stride);
        os_ << ", " << op->lanes << ")";
    }

    void visit(const Broadcast *op) override {
        os_ << "broadcast(";
        print(op->value);
        os_ << ", " << op->lanes << ")";
    }

    void visit(const Call *op) override {
        os_ << op->name << "(";
        print_list(op->args);
        os_ << ")";
        if (op->value_index != 0) os_ << "[" << op->value_index << "]";
    }

    void visit(const Let *op) override {
        os_ << "(let " << op->name << " = ";
        print(op->value);
        os_ << " in ";
        print(op->body);
        os_ << ")";
    }

    void visit(const Shuffle *op) override {
        os_ << "shuffle(";
        print_list(op->vectors);
        os_ << ", [";
        for (size_t i = 0; i < op->indices.size(); i++) os_ << (i ? ", " : "") << op->indices[i];
        os_ << "])";
    }

    void visit(const VectorReduce *op) override {
        os_ << vector_reduce_name(op->op) << "(";
        print(op->value);
        os_ << ", " << op->type.lanes() << ")";
    }

    // ---------------------------------------------------------------- statements

    void visit(const LetStmt *op) override {
        indent();
        os_ << "let " << op->name << " = ";
        print(op->value);
        os_ << "\n";
        print(op->body);
    }

    void visit(const AssertStmt *op) override {
        indent();
        os_ << "assert(";
        print(op->condition);
        os_ << ", ";
        print(op->message);
        os_ << ")\n";
    }

    void visit(const ProducerConsumer *op) override {
        indent();
        os_ << (op->is_producer ? "produce " : "consume ") << op->name << " {\n";
        print_body(op->body);
        indent();
        os_ << "}\n";
    }

    void visit(const For *op) override {
        indent();
        if (op->for_type != ForType::Serial) os_ << op->for_type << " ";
        os_ << "for";
        if (op->device_api == DeviceAPI::Vulkan) os_ << "<vulkan>";
        os_ << " (" << op->name << ", ";
        print(op->min);
        os_ << ", ";
        print(op->extent);
        os_ << ") {\n";
        print_body(op->body);
        indent();
        os_ << "}\n";
    }

    void visit(const While *op) override {
        indent();
        os_ << "while (";
        print(op->condition);
        os_ << ") {\n";
        print_body(op->body);
        indent();
        os_ << "}\n";
    }

    void visit(const Store *op) override {
        indent();
        if (op->predicate.defined()) {
            os_ << "if (";
            print(op->predicate);
            os_ << ") ";
        }
        os_ << op->name << "[";
        print(op->index);
        os_ << "] = ";
        print(op->value);
        os_ << "\n";
    }

    void visit(const Provide *op) override {
        indent();
        if (op->predicate.defined()) {
            os_ << "if (";
            print(op->predicate);
            os_ << ") ";
        }
        os_ << op->name << "(";
        print_list(op->args);
        os_ << ") = ";
        if (op->values.size() == 1) {
            print(op->values[0]);
        } else {
            os_ << "{";
            print_list(op->values);
            os_ << "}";
        }
        os_ << "\n";
    }

    void visit(const Allocate *op) override {
        indent();
        os_ << "allocate " << op->name << "[" << op->type;
        for (const Expr &e : op->extents) {
            os_ << " * ";
            print_operand(e, kMultiplicative);
        }
        os_ << "]";
        if (op->memory_type != MemoryType::Auto) os_ << " in " << memory_type_name(op->memory_type);
        if (op->condition.defined()) {
            os_ << " if ";
            print(op->condition);
        }
        os_ << "\n";
        // Like a LetStmt, the allocation scopes over what follows.
        print(op->body);
    }

    void visit(const Free *op) override {
        indent();
        os_ << "free " << op->name << "\n";
    }

    void visit(const Realize *op) override {
        indent();
        os_ << "realize " << op->name << "(";
        for (size_t i = 0; i < op->bounds.size(); i++) {
            if (i > 0) os_ << ", ";
            os_ << op->bounds[i];
        }
        os_ << ")";
        if (op->memory_type != MemoryType::Auto) os_ << " in " << memory_type_name(op->memory_type);
        if (op->condition.defined()) {
            os_ << " if ";
            print(op->condition);
        }
        os_ << " {\n";
        print_body(op->body);
        indent();
        os_ << "}\n";
    }

    void visit(const Block *op) override {
        print(op->first);
        print(op->rest);
    }

    void visit(const Fork *op) override {
        indent();
        os_ << "fork {\n";
        print_body(op->first);
        indent();
        os_ << "} {\n";
        print_body(op->rest);
        indent();
        os_ << "}\n";
    }

    void visit(const IfThenElse *op) override {
        indent();
        os_ << "if (";
        print(op->condition);
        os_ << ") {\n";
        print_body(op->then_case);
        // else-if chains print flat rather than nesting ever deeper.
        Stmt else_case = op->else_case;
        while (const IfThenElse *nested = else_case.as<IfThenElse>()) {
            indent();
            os_ << "} else if (";
            print(nested->condition);
            os_ << ") {\n";
            print_body(nested->then_case);
            else_case = nested->else_case;
        }
        if (else_case.defined()) {
            indent();
            os_ << "} else {\n";
            print_body(else_case);
        }
        indent();
        os_ << "}\n";
    }

    void visit(const Evaluate *op) override {
        indent();
        print(op->value);
        os_ << "\n";
    }
};

}  // namespace

std::string to_string(const Expr &e) {
    std::ostringstream os;
    Printer(os).print(e);
    return os.str();
}

std::string to_string(const Stmt &s) {
    std::ostringstream os;
    Printer(os).print(s);
    return os.str();
}

std::ostream &operator<<(std::ostream &os, ForType t) {
    switch (t) {
    case ForType::Serial: return os << "serial";
    case ForType::Parallel: return os << "parallel";
    case ForType::Vectorized: return os << "vectorized";
    case ForType::Unrolled: return os << "unrolled";
    case ForType::GPUBlock: return os << "gpu_block";
    case ForType::GPUThread: return os << "gpu_thread";
    }
    return os << "unknown";
}

std::ostream &operator<<(std::ostream &os, const Range &r) {
    os << "[";
    Printer(os).print(r.min);
    os << ", ";
    Printer(os).print(r.extent);
    return os << "]";
}

namespace {

std::string argument_description(const LoweredArgument &a) {
    const std::string type = a.type.to_string();
    switch (a.kind) {
    case LoweredArgument::InputScalar: return a.name + ": " + type;
    case LoweredArgument::InputBuffer: return a.name + ": buffer<" + type + ", " + std::to_string(a.dimensions) + "D>";
    case LoweredArgument::OutputBuffer:
        return a.name + ": output buffer<" + type + ", " + std::to_string(a.dimensions) + "D>";
    }
    return a.name;
}

}  // namespace

std::string lowered_func_text(const LoweredFunc &f) {
    std::ostringstream text;
    text << "// pipeline " << f.name << "(";
    for (size_t i = 0; i < f.args.size(); i++) text << (i ? ", " : "") << argument_description(f.args[i]);
    text << ")\n" << to_string(f.body);
    for (const GPUKernel &k : f.kernels) {
        text << "\n// GPU kernel " << k.name << " (" << k.loop << "), workgroup " << k.workgroup_size[0] << "x"
             << k.workgroup_size[1] << "x" << k.workgroup_size[2];
        if (k.shared_memory_bytes) text << ", " << k.shared_memory_bytes << " bytes of shared memory";
        text << ", arguments (";
        for (size_t i = 0; i < k.args.size(); i++) {
            const GPUKernelArgument &a = k.args[i];
            text << (i ? ", " : "") << a.type << " " << (a.is_buffer ? "*" : "") << a.name;
        }
        text << ")\n" << to_string(k.body);
    }
    return text.str();
}

}  // namespace internal

std::ostream &operator<<(std::ostream &os, const Expr &e) {
    internal::Printer(os).print(e);
    return os;
}

std::ostream &operator<<(std::ostream &os, const Stmt &s) {
    internal::Printer(os).print(s);
    return os;
}

}  // namespace loom
