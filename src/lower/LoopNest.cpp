#include "lower/LoopNest.h"

#include <sstream>

#include "ir/IRPrinter.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"

namespace loom {
namespace internal {

namespace {

const char *loop_kind(ForType t) {
    switch (t) {
    case ForType::Serial: return "for";
    case ForType::Parallel: return "parallel for";
    case ForType::Vectorized: return "vectorized for";
    case ForType::Unrolled: return "unrolled for";
    case ForType::GPUBlock: return "gpu_block for";
    case ForType::GPUThread: return "gpu_thread for";
    }
    return "for";
}

/** "f.s1.r$x" -> "r$x": the user's name of a loop variable. */
std::string short_name(const std::string &loop) {
    size_t stage = loop.find(".s");
    if (stage == std::string::npos) return loop;
    size_t dot = loop.find('.', stage + 2);
    return dot == std::string::npos ? loop : loop.substr(dot + 1);
}

class LoopNestPrinter : public IRVisitor {
public:
    std::ostringstream out;

private:
    using IRVisitor::visit;
    int indent_ = 0;

    void line(const std::string &text) { out << std::string(indent_ * 2, ' ') << text << "\n"; }

    void visit(const ProducerConsumer *op) override {
        // A Func whose stages compute_with moved into another's loops keeps
        // an empty produce node.
        if (op->is_producer && op->body.as<Evaluate>()) return;
        line(std::string(op->is_producer ? "produce " : "consume ") + op->name + ":");
        indent_++;
        op->body.accept(this);
        indent_--;
    }
    void visit(const Realize *op) override {
        line("store " + op->name + ":");
        indent_++;
        op->body.accept(this);
        indent_--;
    }
    void visit(const For *op) override {
        // Var::outermost()'s loop of one iteration is no loop to the user.
        if (short_name(op->name) == "__outermost") return op->body.accept(this);
        line(std::string(loop_kind(op->for_type)) + " " + short_name(op->name) + ":");
        indent_++;
        op->body.accept(this);
        indent_--;
    }
    void visit(const Provide *op) override { line(op->name + "(...) = ..."); }
    /** A branch on the pipeline's inputs around loops: a specialization
     * (Stage::specialize). Guards test loop variables and are not shown. */
    void visit(const IfThenElse *op) override {
        if (!is_specialization(op)) return IRVisitor::visit(op);
        const char *keyword = "if";
        Stmt rest = op;
        while (const IfThenElse *branch = rest.as<IfThenElse>()) {
            if (!is_specialization(branch)) break;
            std::ostringstream condition;
            condition << branch->condition;
            line(std::string(keyword) + " " + condition.str() + ":");
            indent_++;
            branch->then_case.accept(this);
            indent_--;
            keyword = "else if";
            rest = branch->else_case;
        }
        if (!rest.defined()) return;
        if (const AssertStmt *a = rest.as<AssertStmt>(); a && is_const_zero(a->condition)) {
            line("else: specialize_fail");
            return;
        }
        line("else:");
        indent_++;
        rest.accept(this);
        indent_--;
    }

    static bool is_specialization(const IfThenElse *op) {
        struct Inputs : IRGraphVisitor {
            bool only_inputs = true;
            using IRGraphVisitor::visit;
            void visit(const Variable *v) override { only_inputs = only_inputs && v->param.defined(); }
        } inputs;
        inputs.include(op->condition);
        struct Loops : IRVisitor {
            bool found = false;
            using IRVisitor::visit;
            void visit(const For *) override { found = true; }
        } loops;
        op->then_case.accept(&loops);
        return inputs.only_inputs && loops.found;
    }
};

}  // namespace

std::string describe_loop_nest(const Stmt &s) {
    LoopNestPrinter printer;
    if (s.defined()) s.accept(&printer);
    return printer.out.str();
}

}  // namespace internal
}  // namespace loom
