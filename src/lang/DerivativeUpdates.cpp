/** \file
 * The update definitions propagate_adjoints differentiates, and the earlier
 * values of a Func that their derivatives read (loom/Derivative.h).
 *
 * An update of f that is not additive is differentiated when each of its
 * iterations writes a different point (every RVar appears alone, plus or
 * minus an offset, in a coordinate of the left-hand side) and each read of f
 * in it sees a known value: the written point before the write, a point
 * written by an earlier iteration of the RDom (a scan), or a point no
 * iteration has written yet (one the update does not write, or one a later
 * iteration writes): f's value before the update. An iteration is earlier
 * when its RVars come first in the RDom's order (r.x innermost); the pure
 * Vars are independent, so a read must stay at the written point's pure Vars.
 * A Tuple's elements are written together: the analysis covers the reads of
 * f in every element's value.
 */

#include "lang/DerivativeUpdates.h"

#include <functional>
#include <optional>
#include <sstream>

#include "ir/Bounds.h"
#include "ir/IREquality.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "loom/Error.h"
#include "loom/IROperator.h"
#include "loom/Var.h"

namespace loom {
namespace internal {

namespace {

std::string where(const FunctionContents &f, int s) { return "update " + std::to_string(s - 1) + " of " + f.name; }

std::string describe_args(const std::vector<Expr> &args) {
    std::ostringstream text;
    text << "(";
    for (size_t i = 0; i < args.size(); i++) text << (i ? ", " : "") << args[i];
    text << ")";
    return text.str();
}

/** The reads of f in an expression, one per distinct coordinate list. */
class SelfCalls : public IRVisitor {
public:
    explicit SelfCalls(const FunctionContents &f) : f_(f) {}
    std::vector<std::vector<Expr>> found;

private:
    using IRVisitor::visit;
    void visit(const Call *op) override {
        IRVisitor::visit(op);
        if (op->call_type != CallType::Func || op->func.get() != &f_) return;
        for (const std::vector<Expr> &args : found) {
            if (same_args(args, op->args)) return;
        }
        found.push_back(op->args);
    }
    const FunctionContents &f_;

public:
    static bool same_args(const std::vector<Expr> &a, const std::vector<Expr> &b) {
        if (a.size() != b.size()) return false;
        for (size_t i = 0; i < a.size(); i++) {
            if (!equal(a[i], b[i])) return false;
        }
        return true;
    }
};

/** One coordinate of an update's left-hand side: sign * rvars[rvar] +
 * offset, or (rvar < 0) an expression of no RVar. */
struct Coordinate {
    int rvar = -1;
    int sign = 1;
    Expr offset;
};

bool uses_any(const Expr &e, const std::vector<std::string> &rvars) {
    for (const std::string &r : rvars) {
        if (expr_uses_var(e, r)) return true;
    }
    return false;
}

int rvar_index(const Expr &e, const std::vector<std::string> &rvars) {
    const Variable *v = e.as<Variable>();
    if (!v || !v->reduction_domain.defined()) return -1;
    for (size_t i = 0; i < rvars.size(); i++) {
        if (rvars[i] == v->name) return (int)i;
    }
    return -1;
}

/** e as sign * RVar + offset (offset free of RVars), if it has that form. */
std::optional<Coordinate> as_shifted_rvar(const Expr &e, const std::vector<std::string> &rvars) {
    Coordinate c;
    if ((c.rvar = rvar_index(e, rvars)) >= 0) {
        c.offset = make_const(e.type(), 0);
        return c;
    }
    if (const Add *add = e.as<Add>()) {
        for (const auto &[r, rest] : {std::pair{add->a, add->b}, std::pair{add->b, add->a}}) {
            if (uses_any(rest, rvars)) continue;
            if (std::optional<Coordinate> inner = as_shifted_rvar(r, rvars)) {
                inner->offset = simplify(inner->offset + rest);
                return inner;
            }
        }
    } else if (const Sub *sub = e.as<Sub>()) {
        if (!uses_any(sub->b, rvars)) {
            if (std::optional<Coordinate> inner = as_shifted_rvar(sub->a, rvars)) {
                inner->offset = simplify(inner->offset - sub->b);
                return inner;
            }
        } else if (!uses_any(sub->a, rvars)) {
            if (std::optional<Coordinate> inner = as_shifted_rvar(sub->b, rvars)) {
                inner->sign = -inner->sign;
                inner->offset = simplify(sub->a - inner->offset);
                return inner;
            }
        }
    }
    return std::nullopt;
}

/** The left-hand side of an update, coordinate by coordinate, in coords;
 * false if some RVar is not determined by a coordinate of its own (the
 * update may write a point more than once), named in undetermined. */
bool injective_lhs(const Definition &d, const std::vector<std::string> &rvars, std::vector<Coordinate> &coords,
                   std::string &undetermined) {
    std::vector<bool> determined(rvars.size(), false);
    for (const Expr &a : d.args) {
        if (!uses_any(a, rvars)) {
            coords.push_back(Coordinate{-1, 1, a});
            continue;
        }
        std::optional<Coordinate> c = as_shifted_rvar(a, rvars);
        if (!c) c = as_shifted_rvar(simplify(a), rvars);
        if (!c) {
            coords.push_back(Coordinate{-2, 1, a});  // RVars mixed: determines none
            continue;
        }
        determined[c->rvar] = true;
        coords.push_back(*c);
    }
    for (size_t i = 0; i < rvars.size(); i++) {
        if (!determined[i]) {
            undetermined = rvars[i];
            return false;
        }
    }
    return true;
}

bool provably_disjoint(const std::vector<Expr> &read, const std::vector<Expr> &write,
                       const Scope<Interval> &scope) {
    for (size_t k = 0; k < read.size(); k++) {
        Interval r = bounds_of_expr_in_scope(read[k], scope), w = bounds_of_expr_in_scope(write[k], scope);
        if (!r.is_bounded() || !w.is_bounded()) continue;
        if (can_prove(r.max < w.min) || can_prove(w.max < r.min)) return true;
    }
    return false;
}

/** Which value the read of f at `read` sees; nullopt if Loom can't tell. */
std::optional<UpdateAnalysis::Read> classify(const Definition &d, const std::vector<Coordinate> &lhs,
                                             const std::vector<std::string> &rvars, const std::vector<Expr> &read,
                                             const Scope<Interval> &scope) {
    UpdateAnalysis::Read result;
    result.args = read;
    if (SelfCalls::same_args(read, d.args)) return result;
    if (provably_disjoint(read, d.args, scope)) {
        result.kind = SelfRead::Unwritten;
        return result;
    }
    // The iteration that writes the point read: each RVar from its coordinate.
    std::vector<Expr> writer(rvars.size());
    for (size_t k = 0; k < lhs.size(); k++) {
        const Coordinate &c = lhs[k];
        if (c.rvar == -2) return std::nullopt;
        if (c.rvar == -1) {
            if (!can_prove(read[k] == d.args[k])) return std::nullopt;  // another pure Var or fixed point
            continue;
        }
        Expr w = c.sign > 0 ? read[k] - c.offset : c.offset - read[k];
        if (writer[c.rvar].defined() && !can_prove(writer[c.rvar] == w)) return std::nullopt;
        writer[c.rvar] = w;
    }
    result.shift.resize(rvars.size());
    for (size_t i = 0; i < rvars.size(); i++) {
        std::optional<int64_t> delta = as_const_int(simplify(writer[i] - Variable::make(Int(32), rvars[i])));
        if (!delta) return std::nullopt;
        result.shift[i] = *delta;
    }
    // Outermost RVar first: the first that differs decides. The writer is
    // the only iteration that writes the point (the left-hand side is
    // injective), so when it comes later the read sees f's value before the
    // update, as for a point the update does not write.
    for (int i = (int)rvars.size() - 1; i >= 0; i--) {
        if (result.shift[i] != 0) {
            result.kind = result.shift[i] < 0 ? SelfRead::Earlier : SelfRead::Unwritten;
            if (result.kind == SelfRead::Unwritten) result.shift.clear();
            return result;
        }
    }
    result.shift.clear();
    return result;  // the written point itself
}

class ReplaceSelfReads : public IRMutator {
public:
    ReplaceSelfReads(const FunctionContents &f, const UpdateAnalysis *analysis, int stage,
                     const std::function<Func(int)> &value_after)
        : f_(f), analysis_(analysis), stage_(stage), value_after_(value_after) {}

private:
    using IRMutator::visit;
    Expr visit(const Call *op) override {
        Expr e = IRMutator::visit(op);
        const Call *call = e.as<Call>();
        if (!call || call->call_type != CallType::Func || call->func.get() != &f_) return e;
        bool earlier = analysis_ && analysis_->kind_of(op->args) == SelfRead::Earlier;
        return call_element(value_after_(earlier ? stage_ : stage_ - 1), call->args, call->value_index);
    }
    const FunctionContents &f_;
    const UpdateAnalysis *analysis_;
    int stage_;
    std::function<Func(int)> value_after_;
};

class FindFunc : public IRVisitor {
public:
    explicit FindFunc(const FunctionContents &f) : f_(f) {}
    bool found = false;

private:
    using IRVisitor::visit;
    void visit(const Call *op) override {
        IRVisitor::visit(op);
        if (op->call_type == CallType::Func && op->func.get() == &f_) found = true;
    }
    const FunctionContents &f_;
};

}  // namespace

bool reads_func(const Expr &e, const FunctionContents &f) {
    FindFunc finder(f);
    e.accept(&finder);
    return finder.found;
}

bool UpdateAnalysis::has_earlier_reads() const {
    for (const Read &read : reads) {
        if (read.kind == SelfRead::Earlier) return true;
    }
    return false;
}

const UpdateAnalysis::Read &UpdateAnalysis::read_at(const std::vector<Expr> &args) const {
    for (const Read &read : reads) {
        if (SelfCalls::same_args(read.args, args)) return read;
    }
    throw InternalError("propagate_adjoints: a read of a Func that its update's analysis did not see.");
}

Expr call_element(const Func &f, const std::vector<Expr> &args, int i) {
    if (f.outputs() > 1) return Expr(f(args)[i]);
    return Expr(f(args));
}

bool is_additive_update(const FunctionContents &f, int s, std::vector<Expr> &rest, std::vector<Expr> &sign) {
    const Definition &d = f.stage(s);
    rest.assign(d.values.size(), Expr());
    sign.clear();
    for (size_t i = 0; i < d.values.size(); i++) {
        const Expr &v = d.values[i];
        const Type t = f.output_types[i];
        // f(p)[i] itself, at the point written.
        auto is_self = [&](const Expr &e) {
            const Call *call = e.as<Call>();
            return call && call->call_type == CallType::Func && call->func.get() == &f && call->value_index == (int)i &&
                   SelfCalls::same_args(call->args, d.args);
        };
        sign.push_back(make_const(t, 1.0));
        if (is_self(v)) {
            rest[i] = make_const(t, 0.0);  // an element the update leaves as it is
        } else if (const Add *add = v.as<Add>()) {
            if (is_self(add->a)) rest[i] = add->b;
            else if (is_self(add->b)) rest[i] = add->a;
        } else if (const Sub *sub = v.as<Sub>()) {
            if (is_self(sub->a)) {
                rest[i] = sub->b;
                sign[i] = make_const(t, -1.0);
            }
        }
        if (!rest[i].defined() || reads_func(rest[i], f)) return false;
    }
    return true;
}

UpdateAnalysis analyze_update(const FunctionContents &f, int s, const Scope<Interval> &scope) {
    const Definition &d = f.stage(s);
    UpdateAnalysis result;
    if (is_additive_update(f, s, result.values, result.signs)) {
        result.additive = true;
        return result;
    }
    result.values = d.values;
    result.signs.clear();
    for (const Type &t : f.output_types) result.signs.push_back(make_const(t, 1.0));

    std::vector<std::string> rvars;
    if (d.rdom.defined()) {
        for (const ReductionVariable &v : d.rdom.domain()) rvars.push_back(v.var);
    }
    std::string undetermined;
    std::vector<Coordinate> lhs;
    if (!injective_lhs(d, rvars, lhs, undetermined)) {
        throw CompileError("propagate_adjoints: " + where(f, s) + " is not an addition to the value it replaces "
                           "(f(p) += e) and may write a point more than once: RVar " + undetermined +
                           " is not a coordinate of its own on the left-hand side (RVar plus or minus an offset). "
                           "The adjoint of such an update (a product or maximum over an RDom, an overwrite of "
                           "one point by several iterations) needs every intermediate value, as in Halide, which "
                           "refuses it too. Give the iterations a dimension of their own, e.g. f(x, r + 1) = "
                           "f(x, r) * g(x, r), and read f at the last one.");
    }
    SelfCalls calls(f);
    for (const Expr &v : result.values) v.accept(&calls);
    for (const std::vector<Expr> &read : calls.found) {
        std::optional<UpdateAnalysis::Read> kind = classify(d, lhs, rvars, read, scope);
        if (!kind) {
            throw CompileError("propagate_adjoints: " + where(f, s) + " reads " + f.name + describe_args(read) +
                               ", which an iteration of the update may write at a varying distance from the one "
                               "that reads it, or which another value of its pure Vars writes. Loom differentiates "
                               "updates that read " + f.name + " at the point they write, at points another "
                               "iteration of the RDom writes at a constant offset in RVars (a scan such as f(r) = "
                               "a * f(r - 1) + in(r), r.x innermost, or f(r) = f(r + 1) * in(r), which reads the "
                               "value before the update), or at points the update does not write. Write the scan "
                               "into a Func of its own with a dimension per iteration.");
        }
        result.reads.push_back(*kind);
    }
    return result;
}

Func value_after_stage(const FunctionPtr &function, int last) {
    const FunctionContents &f = *function.get();
    if (last == f.stages() - 1) return Func(function);
    Func value(f.name + "_value_s" + std::to_string(last));
    std::vector<Var> vars;
    for (const std::string &a : f.args) vars.push_back(Var(a));
    if (f.outputs() > 1) {
        value(vars) = Tuple(f.init.values);
    } else {
        value(vars) = f.init.values[0];
    }
    ReplaceSelfReads to_value(f, nullptr, last + 1, [&](int) { return value; });
    for (int s = 1; s <= last; s++) {
        const Definition &d = f.stage(s);
        if (d.predicate.defined()) {
            throw CompileError("propagate_adjoints: " + where(f, s) + " has a predicate beyond its RDom's (from "
                               "rfactor or a specialization); Loom can't recompute " + f.name +
                               "'s value after it for the derivative. Differentiate the pipeline before rfactor.");
        }
        std::vector<Expr> args;
        for (const Expr &a : d.args) args.push_back(to_value.mutate(a));
        std::vector<Expr> values;
        for (const Expr &v : d.values) values.push_back(to_value.mutate(v));
        if (values.size() > 1) {
            value(args) = Tuple(values);
        } else {
            value(args) = values[0];
        }
    }
    value.compute_root();
    return value;
}

Expr read_stage_values(const Expr &e, const FunctionContents &f, const UpdateAnalysis &analysis, int s,
                       const std::function<Func(int)> &value_after) {
    return ReplaceSelfReads(f, &analysis, s, value_after).mutate(e);
}

}  // namespace internal
}  // namespace loom
