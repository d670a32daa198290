#include "lower/InjectDebugLogging.h"

#include <sstream>

#include "ir/IRMutator.h"
#include "ir/IRPrinter.h"
#include "ir/IRUtil.h"
#include "ir/Simplify.h"
#include "lower/ShrinkAllocations.h"

namespace loom {
namespace internal {

namespace {

Stmt print(const std::vector<Expr> &pieces) {
    return Evaluate::make(Call::make(Int(32), intrinsic::print, pieces, CallType::Intrinsic));
}

Expr text(const std::string &s) { return StringImm::make(s); }

Expr field(const std::string &buffer, const char *name, int d) {
    return Variable::make(Int(32), buffer + "." + name + "." + std::to_string(d));
}

Stmt describe_buffer(const LoweredArgument &a) {
    std::vector<Expr> pieces;
    std::string words = std::string(a.kind == LoweredArgument::OutputBuffer ? " Output" : " Input") + " Buffer " +
                        a.name + " (" + a.type.to_string() + "):";
    for (int d = 0; d < a.dimensions; d++) {
        pieces.push_back(text(words + (d ? "| dim " : " dim ") + std::to_string(d) + " min"));
        pieces.push_back(field(a.name, "min", d));
        pieces.push_back(text("extent"));
        pieces.push_back(field(a.name, "extent", d));
        pieces.push_back(text("stride"));
        pieces.push_back(field(a.name, "stride", d));
        words.clear();
    }
    if (a.dimensions == 0) pieces.push_back(text(words + " a scalar"));
    return print(pieces);
}

/** Puts s2 below the LetStmts and header checks at the top of s, where the
 * buffer fields are defined (as the size checks are). */
Stmt insert_after_fields(const Stmt &s, const Stmt &s2) {
    if (const LetStmt *l = s.as<LetStmt>()) return LetStmt::make(l->name, l->value, insert_after_fields(l->body, s2));
    if (const Block *b = s.as<Block>(); b && b->first.as<AssertStmt>()) {
        return Block::make(b->first, insert_after_fields(b->rest, s2));
    }
    return Block::make(s2, s);
}

class LogChecksAndAllocations : public IRMutator {
protected:
    using IRMutator::visit;

    Stmt visit(const For *op) override {
        if (op->for_type == ForType::GPUBlock || op->for_type == ForType::GPUThread) return op;
        loop_depth_++;
        Stmt result = IRMutator::visit(op);
        loop_depth_--;
        return result;
    }

    Stmt visit(const AssertStmt *op) override {
        if (loop_depth_ > 0) return op;
        const Expr simpler = simplify(op->condition);
        if (is_const_one(simpler)) return op;  // always true: the simplifier removes it
        std::ostringstream condition;
        condition << simpler;
        return Block::make(op, print({text("Check passed: " + condition.str())}));
    }

    Stmt visit(const Allocate *op) override {
        Stmt body = mutate(op->body);
        if (op->name.rfind("loom.", 0) == 0) {  // the runtime's own state (the profiler's)
            return Allocate::make(op->name, op->type, op->memory_type, op->extents, op->condition, body);
        }
        Expr bytes = make_const(Int(64), int64_t(op->type.bytes()) * op->type.lanes());
        for (const Expr &e : op->extents) bytes = Mul::make(bytes, Cast::make(Int(64), e));
        Stmt allocating = print({text("Allocating " + op->name + ":"), bytes, text("bytes")});
        Stmt freeing = print({text("Freeing " + op->name + ":"), bytes, text("bytes")});
        if (op->condition.defined()) {
            allocating = IfThenElse::make(op->condition, allocating, Stmt());
            freeing = IfThenElse::make(op->condition, freeing, Stmt());
        }
        Stmt result = Allocate::make(op->name, op->type, op->memory_type, op->extents, op->condition,
                                     at_release(body, op->name, freeing));
        return Block::make(allocating, result);
    }

private:
    int loop_depth_ = 0;
};

}  // namespace

Stmt inject_debug_logging(const Stmt &s, const std::vector<LoweredArgument> &args, const std::string &pipeline_name,
                          const Target &target) {
    if (!target.has_feature(Target::Debug)) return s;
    Stmt body = s;
    std::vector<Stmt> buffers;
    for (const LoweredArgument &a : args) {
        if (a.is_buffer()) buffers.push_back(describe_buffer(a));
    }
    if (!buffers.empty()) body = insert_after_fields(body, Block::make(buffers));
    body = LogChecksAndAllocations().mutate(body);
    std::vector<Stmt> entry = {print({text("Entering Pipeline " + pipeline_name)}),
                               print({text("Target: " + target.to_string())})};
    for (const LoweredArgument &a : args) {
        if (a.is_buffer()) continue;
        const std::string words = " Input (" + a.type.to_string() + ") " + a.name + ":";
        if (a.type.is_handle()) {
            entry.push_back(print({text(words + " (a handle)")}));
        } else {
            entry.push_back(print({text(words), Variable::make(a.type, a.name, a.param)}));
        }
    }
    entry.push_back(body);
    entry.push_back(print({text("Exiting Pipeline " + pipeline_name)}));
    return Block::make(entry);
}

}  // namespace internal
}  // namespace loom
