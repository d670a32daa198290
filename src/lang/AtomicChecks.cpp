#include "lang/AtomicChecks.h"

#include <sstream>
#include <vector>

#include "ir/IREquality.h"
#include "ir/IRVisitor.h"
#include "lang/Associativity.h"
#include "loom/Error.h"
#include "loom/IROperator.h"

namespace loom {
namespace internal {

namespace {

/** The calls of Func `name` in an expression. */
class FindCallsOf : public IRGraphVisitor {
public:
    explicit FindCallsOf(const std::string &name) : name_(name) {}
    std::vector<const Call *> calls;

protected:
    using IRGraphVisitor::visit;
    void visit(const Call *op) override {
        if (op->call_type == CallType::Func && op->name == name_) calls.push_back(op);
        IRGraphVisitor::visit(op);
    }

private:
    const std::string &name_;
};

std::vector<const Call *> calls_of(const std::string &name, const Expr &e) {
    FindCallsOf finder(name);
    if (e.defined()) finder.include(e);
    return finder.calls;
}

std::string text(const Expr &e) {
    std::ostringstream s;
    s << e;
    return s.str();
}

std::string call_text(const Call *c) {
    std::string s = c->name + "(";
    for (size_t i = 0; i < c->args.size(); i++) s += (i ? ", " : "") + text(c->args[i]);
    return s + ")";
}

Expr stage_predicate(const Definition &def) {
    Expr p = def.rdom.defined() ? def.rdom.predicate() : Expr();
    if (def.predicate.defined()) p = p.defined() ? (p && def.predicate) : def.predicate;
    return p;
}

}  // namespace

void check_atomic_update(const FunctionContents &f, int stage, const std::string &stage_name) {
    if (stage == 0) return;
    const Definition &def = f.stage(stage);
    const std::string where = "Can't use atomic() on " + stage_name + ": ";
    // Tuple updates are allowed (lower/LowerAtomics.cpp takes the lock of the
    // element around one that reads the Func, as Halide takes a mutex).
    for (const Expr &arg : def.args) {
        if (!calls_of(f.name, arg).empty()) {
            throw CompileError(where + "the index written to depends on the current value of the Func (" +
                               text(arg) + " reads " + f.name +
                               "), so no single atomic operation can do the update. Leave its RVar loops serial.");
        }
    }
    for (const Expr &value : def.values) {
        for (const Call *c : calls_of(f.name, value)) {
            bool same_site = c->args.size() == def.args.size();
            for (size_t i = 0; same_site && i < c->args.size(); i++) same_site = equal(c->args[i], def.args[i]);
            if (!same_site) {
                std::string lhs = f.name + "(";
                for (size_t i = 0; i < def.args.size(); i++) lhs += (i ? ", " : "") + text(def.args[i]);
                throw CompileError(where + "it writes " + lhs + ") but reads " + call_text(c) +
                                   ", another element; an atomic update reads and writes one element (other "
                                   "iterations may be writing the element it reads). Leave its RVar loops "
                                   "serial.");
            }
        }
    }
    Expr predicate = stage_predicate(def);
    if (!calls_of(f.name, predicate).empty()) {
        throw CompileError(where + "its RDom predicate (" + text(predicate) + ") reads " + f.name +
                           ", which other iterations update meanwhile. Leave its RVar loops serial.");
    }
}

void check_atomic_associative(const FunctionContents &f, int stage, const std::string &stage_name) {
    if (stage == 0) return;
    const Definition &def = f.stage(stage);
    bool reads_self = false;
    for (const Expr &value : def.values) reads_self = reads_self || !calls_of(f.name, value).empty();
    if (!reads_self) return;  // an assignment: any order leaves one of the values
    AssociativeOp op = find_associative_op(f, def.args, def.values, stage_predicate(def));
    if (op.associative && op.commutative) return;
    std::string why = op.why_not.empty() ? std::string("it is not commutative") : op.why_not;
    throw CompileError("Failed to call atomic() on " + stage_name +
                       " since it can't prove associativity or commutativity of the operator (" + why +
                       "). If you are certain it is associative and commutative, use atomic(true) "
                       "(override_associativity_test).");
}

}  // namespace internal
}  // namespace loom
