/** \file
 * propagate_adjoints (loom/Derivative.h): reverse-mode differentiation of a
 * pipeline.
 *
 * The Funcs the output reads are visited consumers first. Each floating-point
 * Func F gets an adjoint Func d_F, zero everywhere, and each definition of a
 * consumer C that reads F at args(x, r) adds to it:
 *
 *     d_F(args(x, r)) += d_C(lhs(x, r)) * d value / d F(args)      over x, r
 *
 * where x ranges over the region of C that the output needs (bounds of the
 * consumers' reads, from the output's region down) and r over the
 * definition's RDom: a scatter over an RDom, or, for a read at a shift of
 * C's own Vars, a gather over d_F's Vars (gather() below). The derivative of
 * a value with respect to each call in it is accumulated over the value's
 * expression graph, parents before children, so a shared subexpression is
 * visited once.
 *
 * Each stage of F has an adjoint of its own, as in Halide: the key {F, k} is
 * d loss / d (F's value after update k), -1 its pure definition; consumers
 * add to the last one. Through an additive update (f(p) += e) the adjoint of
 * the earlier value is that of the later one (the same Func). Through any
 * other update (DerivativeUpdates.h) the earlier value's adjoint is the later
 * one's, zero at the points the update writes, plus what the update's reads
 * of F at those points send back; a scan's reads of points written by
 * earlier iterations add to the later value's own adjoint first, over the
 * RDom run backwards. Derivatives that read F itself read F's value as that
 * iteration saw it, recomputed by a Func of F's stages up to then.
 *
 * The adjoint of a Tuple-valued Func is a Tuple of the same size, as in
 * Halide: element i is the derivative with respect to element i (zero for
 * an element that is not floating-point). Each element's value is
 * differentiated from the adjoint's element i, and a read of element j of a
 * Func adds to element j of its adjoint.
 */

#include "loom/Derivative.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/Bounds.h"
#include "ir/Function.h"
#include "ir/IR.h"
#include "ir/IREquality.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/Interval.h"
#include "ir/Scope.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "loom/Error.h"
#include "loom/IROperator.h"
#include "loom/RDom.h"
#include "loom/Var.h"
#include "lang/DerivativeUpdates.h"
#include "lower/ExternStages.h"

namespace loom {

using namespace internal;

namespace {

std::string describe_expr(const Expr &e) {
    std::ostringstream text;
    text << e;
    std::string s = text.str();
    return s.size() > 80 ? s.substr(0, 77) + "..." : s;
}

std::string where_in(const FunctionContents &f, int stage) {
    return stage == 0 ? f.name + "'s pure definition" : "update " + std::to_string(stage - 1) + " of " + f.name;
}

/** The Funcs reachable from a set of expressions, by their contents. */
class FuncCalls : public IRVisitor {
public:
    std::vector<FunctionPtr> found;

private:
    using IRVisitor::visit;
    void visit(const Call *op) override {
        IRVisitor::visit(op);
        if (op->call_type == CallType::Func && op->func.defined()) found.push_back(op->func);
    }
};

std::vector<FunctionPtr> funcs_called_by(const FunctionContents &f) {
    FuncCalls calls;
    for (int s = 0; s < f.stages(); s++) {
        const Definition &d = f.stage(s);
        for (const Expr &e : d.values) e.accept(&calls);
        for (const Expr &e : d.args) e.accept(&calls);
        if (d.predicate.defined()) d.predicate.accept(&calls);
        if (d.rdom.defined()) {
            for (const ReductionVariable &v : d.rdom.domain()) {
                v.min.accept(&calls);
                v.extent.accept(&calls);
            }
        }
    }
    return calls.found;
}

/** Every Func output depends on, producers before consumers. */
std::vector<FunctionPtr> producers_first(const FunctionPtr &output) {
    std::vector<FunctionPtr> order;
    std::set<const FunctionContents *> seen;
    std::function<void(const FunctionPtr &)> visit = [&](const FunctionPtr &f) {
        if (!seen.insert(f.get()).second) return;
        for (const FunctionPtr &callee : funcs_called_by(*f.get())) {
            if (callee.get() != f.get()) visit(callee);
        }
        order.push_back(f);
    };
    visit(output);
    return order;
}

/** Whether some element of f's value is floating-point. */
bool has_float_value(const FunctionContents &f) {
    for (const Type &t : f.output_types) {
        if (t.is_float()) return true;
    }
    return false;
}

/** Defines f(args) as zero of f's element types (a Tuple for several). */
void define_zero(const Func &f, const std::vector<Expr> &args, const FunctionContents &like) {
    std::vector<Expr> zeros;
    for (const Type &t : like.output_types) zeros.push_back(make_const(t, 0.0));
    if (zeros.size() > 1) {
        f(args) = Tuple(zeros);
    } else {
        f(args) = zeros[0];
    }
}

/** f(args)[i] += e (f(args) += e for a Func of one value). */
void add_to_element(const Func &f, const std::vector<Expr> &args, int i, const Expr &e) {
    if (f.outputs() > 1) {
        f(args)[i] += e;
    } else {
        f(args) += e;
    }
}

/** f(args)[i] += sums[i] for each i in sums, as one update: a scan's
 * adjoint reads the elements it writes, at the iteration before. */
void add_to_elements(const Func &f, const std::vector<Expr> &args, const std::map<int, Expr> &sums) {
    if (f.outputs() == 1) {
        f(args) += sums.at(0);
        return;
    }
    std::vector<Expr> values;
    for (int i = 0; i < f.outputs(); i++) {
        Expr current = f(args)[i];
        auto it = sums.find(i);
        values.push_back(it == sums.end() ? current : current + it->second);
    }
    f(args) = Tuple(values);
}

/** The floating-point input buffers and scalar Params an expression reads. */
class FloatInputs : public IRVisitor {
public:
    std::map<std::string, std::pair<Parameter, Type>> found;

private:
    using IRVisitor::visit;
    void visit(const Call *op) override {
        IRVisitor::visit(op);
        if (op->call_type == CallType::Image && op->type.is_float()) found.emplace(op->param.name(), std::pair{op->param, op->type});
    }
    void visit(const Variable *op) override {
        if (op->param.defined() && !op->param.is_buffer() && op->type.is_float()) {
            found.emplace(op->param.name(), std::pair{op->param, op->type});
        }
    }
};

/** A leaf of a value's expression graph that receives an adjoint: a read of
 * a Func or an input buffer, or a scalar Param. */
struct Leaf {
    const Call *call = nullptr;         // Func or Image read
    const Variable *param = nullptr;    // scalar Param
    Expr adjoint;
};

/** The adjoints of the leaves of one value, given the value's adjoint. */
class Backpropagation {
public:
    Backpropagation(const FunctionContents &func, int stage) : func_(func), stage_(stage) {}

    std::vector<Leaf> run(const Expr &value, const Expr &seed) {
        if (!value.type().is_float()) return {};
        order_.clear();
        adjoint_.clear();
        visited_.clear();
        const Expr graph = substitute_in_all_lets(value);
        post_order(graph);
        adjoint_[graph.get()] = seed;
        std::vector<Leaf> leaves;
        // Parents come after their children in order_: walk it backwards.
        for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
            const Expr &e = *it;
            auto found = adjoint_.find(e.get());
            if (found == adjoint_.end()) continue;
            const Expr a = found->second;
            if (const Call *c = e.as<Call>(); c && (c->call_type == CallType::Func || c->call_type == CallType::Image)) {
                leaves.push_back(Leaf{c, nullptr, a});
            } else if (const Variable *v = e.as<Variable>(); v && v->param.defined() && !v->param.is_buffer()) {
                leaves.push_back(Leaf{nullptr, v, a});
            } else {
                propagate(e, a);
            }
        }
        return leaves;
    }

private:
    /** Children before parents; only floating-point nodes carry adjoints. */
    void post_order(const Expr &e) {
        if (!e.defined() || !visited_.insert(e.get()).second) return;
        if (!e.type().is_float()) return;
        for (const Expr &child : differentiable_children(e)) post_order(child);
        order_.push_back(e);
    }

    static std::vector<Expr> differentiable_children(const Expr &e) {
        if (const Add *op = e.as<Add>()) return {op->a, op->b};
        if (const Sub *op = e.as<Sub>()) return {op->a, op->b};
        if (const Mul *op = e.as<Mul>()) return {op->a, op->b};
        if (const Div *op = e.as<Div>()) return {op->a, op->b};
        if (const Min *op = e.as<Min>()) return {op->a, op->b};
        if (const Max *op = e.as<Max>()) return {op->a, op->b};
        if (const Select *op = e.as<Select>()) return {op->true_value, op->false_value};
        if (const Cast *op = e.as<Cast>()) return {op->value};
        if (const Call *op = e.as<Call>()) {
            if (op->call_type == CallType::Func || op->call_type == CallType::Image) return {};
            return op->args;
        }
        return {};
    }

    void accumulate(const Expr &node, const Expr &a) {
        if (!node.type().is_float()) return;
        Expr value = a.type() == node.type() ? a : cast(node.type(), a);
        auto [it, inserted] = adjoint_.emplace(node.get(), value);
        if (!inserted) it->second = it->second + value;
    }

    Expr zero(const Expr &like) const { return make_const(like.type(), 0.0); }
    Expr one(const Expr &like) const { return make_const(like.type(), 1.0); }

    [[noreturn]] void refuse(const std::string &what) const {
        throw CompileError("propagate_adjoints: can't differentiate " + what + " in " + where_in(func_, stage_) +
                           ". Loom differentiates +, -, *, /, min, max, select, float casts and the math "
                           "functions listed in loom/Derivative.h; compute this value in a Func of its own "
                           "outside the differentiated pipeline, or write it with those operations.");
    }

    void propagate(const Expr &e, const Expr &a) {
        if (const Add *op = e.as<Add>()) {
            accumulate(op->a, a);
            accumulate(op->b, a);
        } else if (const Sub *op = e.as<Sub>()) {
            accumulate(op->a, a);
            accumulate(op->b, -a);
        } else if (const Mul *op = e.as<Mul>()) {
            accumulate(op->a, a * op->b);
            accumulate(op->b, a * op->a);
        } else if (const Div *op = e.as<Div>()) {
            accumulate(op->a, a / op->b);
            accumulate(op->b, -a * op->a / (op->b * op->b));
        } else if (const Min *op = e.as<Min>()) {
            Expr first = op->a <= op->b;
            accumulate(op->a, select(first, a, zero(a)));
            accumulate(op->b, select(first, zero(a), a));
        } else if (const Max *op = e.as<Max>()) {
            Expr first = op->a >= op->b;
            accumulate(op->a, select(first, a, zero(a)));
            accumulate(op->b, select(first, zero(a), a));
        } else if (const Select *op = e.as<Select>()) {
            accumulate(op->true_value, select(op->condition, a, zero(a)));
            accumulate(op->false_value, select(op->condition, zero(a), a));
        } else if (const Cast *op = e.as<Cast>()) {
            accumulate(op->value, a);  // a float from a float; other values have no adjoint
        } else if (const Call *op = e.as<Call>()) {
            call(e, op, a);
        } else if (e.as<FloatImm>() || e.as<Variable>()) {
            // Constants and loop variables: derivative zero.
        } else if (e.as<Reinterpret>()) {
            refuse("a reinterpret of bits (bit manipulation, as inside fast_exp and fast_log)");
        } else {
            refuse("the value " + describe_expr(e));
        }
    }

    void call(const Expr &e, const Call *op, const Expr &a) {
        if (op->call_type == CallType::PureIntrinsic || op->call_type == CallType::Intrinsic) {
            if (op->name == intrinsic::likely || op->name == intrinsic::promise_clamped ||
                op->name == intrinsic::print_value) {
                accumulate(op->args[0], a);
            } else if (op->name == intrinsic::require || op->name == intrinsic::print_value_when) {
                accumulate(op->args[1], a);
            } else if (op->name == intrinsic::abs) {
                const Expr &x = op->args[0];
                accumulate(x, select(x < zero(x), -a, a));
            } else if (op->name == intrinsic::fma) {
                accumulate(op->args[0], a * op->args[1]);
                accumulate(op->args[1], a * op->args[0]);
                accumulate(op->args[2], a);
            } else {
                refuse("the intrinsic " + op->name);
            }
            return;
        }
        if (op->call_type != CallType::PureExtern) refuse("a call of the C function " + op->name);
        std::string base = op->name;
        if (e.type().bits() != 64 && !base.empty() && base.back() == 'f') base.pop_back();
        const Expr &x = op->args[0];
        if (base == "sqrt") {
            accumulate(x, a / (make_const(e.type(), 2.0) * e));
        } else if (base == "exp") {
            accumulate(x, a * e);
        } else if (base == "log") {
            accumulate(x, a / x);
        } else if (base == "sin") {
            accumulate(x, a * cos(x));
        } else if (base == "cos") {
            accumulate(x, -a * sin(x));
        } else if (base == "tan") {
            Expr c = cos(x);
            accumulate(x, a / (c * c));
        } else if (base == "asin") {
            accumulate(x, a / sqrt(one(x) - x * x));
        } else if (base == "acos") {
            accumulate(x, -a / sqrt(one(x) - x * x));
        } else if (base == "atan") {
            accumulate(x, a / (one(x) + x * x));
        } else if (base == "sinh") {
            accumulate(x, a * cosh(x));
        } else if (base == "cosh") {
            accumulate(x, a * sinh(x));
        } else if (base == "tanh") {
            accumulate(x, a * (one(e) - e * e));
        } else if (base == "asinh") {
            accumulate(x, a / sqrt(x * x + one(x)));
        } else if (base == "acosh") {
            accumulate(x, a / sqrt(x * x - one(x)));
        } else if (base == "atanh") {
            accumulate(x, a / (one(x) - x * x));
        } else if (base == "floor" || base == "ceil" || base == "nearbyint" || base == "trunc") {
            // Piecewise constant: derivative zero.
        } else if (base == "pow") {
            const Expr &y = op->args[1];
            accumulate(x, a * y * pow(x, y - one(y)));
            accumulate(y, a * e * log(x));
        } else if (base == "atan2") {
            // atan2(y, x): the first argument is y.
            const Expr &y = op->args[0], &xx = op->args[1];
            Expr r2 = xx * xx + y * y;
            accumulate(y, a * xx / r2);
            accumulate(xx, -a * y / r2);
        } else {
            refuse("the math function " + op->name);
        }
    }

    const FunctionContents &func_;
    int stage_;
    std::vector<Expr> order_;
    std::set<const IRNode *> visited_;
    std::unordered_map<const IRNode *, Expr> adjoint_;
};

/** One dimension's range as an RDom {min, extent}. */
Range as_min_extent(const Interval &i) {
    return {simplify(i.min), simplify(i.max - i.min + 1)};
}

/** Builds the adjoint Funcs of one output. */
class AdjointBuilder {
public:
    Derivative build(const Func &output, const Func &adjoint, const Region &bounds) {
        const FunctionContents &out = *output.function().get();
        if (!out.defined()) throw CompileError("propagate_adjoints: the output " + out.name + " has no definition.");
        if (out.outputs() != 1 || !out.output_types[0].is_float()) {
            throw CompileError("propagate_adjoints: the output " + out.name +
                               " must have one floating-point value (it has " + describe_types(out) +
                               "); differentiate a Func of float or double.");
        }
        if ((int)bounds.size() != out.dimensions()) {
            throw CompileError("propagate_adjoints: the region of " + out.name + " has " +
                               std::to_string(bounds.size()) + " dimensions; " + out.name + " has " +
                               std::to_string(out.dimensions()) + ". Give one {min, extent} per dimension.");
        }
        // The output's adjoint: the given one over the region, zero outside it.
        Func d_out(out.name + "_d");
        std::vector<Var> vars = vars_of(out);
        std::vector<Expr> args(vars.begin(), vars.end());
        Expr inside = const_true();
        std::vector<Interval> region;
        for (size_t i = 0; i < bounds.size(); i++) {
            Expr min = bounds[i].min, max = bounds[i].min + bounds[i].extent - 1;
            inside = inside && args[i] >= min && args[i] <= max;
            region.push_back(Interval(min, max));
        }
        Expr value = adjoint(args);
        if (value.type() != out.output_types[0]) value = cast(out.output_types[0], value);
        d_out(vars) = out.dimensions() == 0 ? value : select(inside, value, make_const(value.type(), 0.0));
        adjoints_.emplace(final_key(out), d_out);
        regions_[out.name] = region;

        std::vector<FunctionPtr> order = producers_first(output.function());
        for (const FunctionPtr &f : order) {
            const FunctionContents &c = *f.get();
            if (has_float_value(c)) adjoint_of(f);
            FloatInputs inputs;
            for (int s = 0; s < c.stages(); s++) {
                for (const Expr &v : c.stage(s).values) v.accept(&inputs);
            }
            for (const auto &[name, input] : inputs.found) adjoint_of_input(input.first, input.second);
        }

        for (auto it = order.rbegin(); it != order.rend(); ++it) {
            const FunctionContents &c = *it->get();
            if (!adjoints_.count(final_key(c))) continue;
            if (!regions_.count(c.name)) {
                // Nothing reads c through floating-point values: zero at every stage.
                for (int k = -1; k < (int)c.updates.size(); k++) adjoints_.emplace(Derivative::FuncKey{c.name, k}, adjoints_.at(final_key(c)));
                continue;
            }
            for (int s = c.stages() - 1; s >= 0; s--) differentiate_stage(*it, s);
        }
        for (auto &[key, f] : adjoints_) {
            if (!f.function().get()->updates.empty()) f.compute_root();
        }
        return Derivative(adjoints_);
    }

private:
    static std::string describe_types(const FunctionContents &f) {
        std::string s;
        for (size_t i = 0; i < f.output_types.size(); i++) s += (i ? ", " : "") + f.output_types[i].to_string();
        return s.empty() ? "no value" : s;
    }

    static std::vector<Var> vars_of(const FunctionContents &f) {
        std::vector<Var> vars;
        for (const std::string &name : f.args) vars.push_back(Var(name));
        return vars;
    }

    /** The key of the adjoint of f's final value, which its consumers read. */
    static Derivative::FuncKey final_key(const FunctionContents &f) { return {f.name, (int)f.updates.size() - 1}; }

    /** The adjoint of f's final value, made zero over f's Vars on first use. */
    Func adjoint_of(const FunctionPtr &f) {
        const FunctionContents &c = *f.get();
        auto it = adjoints_.find(final_key(c));
        if (it != adjoints_.end()) return it->second;
        Func d(c.name + "_d");
        std::vector<Var> vars = vars_of(c);
        define_zero(d, std::vector<Expr>(vars.begin(), vars.end()), c);
        adjoints_.emplace(final_key(c), d);
        return d;
    }

    /** d_p for an input buffer or a scalar Param, zero over its dimensions. */
    Func adjoint_of_input(const Parameter &p, Type t) {
        auto it = adjoints_.find({p.name(), -1});
        if (it != adjoints_.end()) return it->second;
        Func d(p.name() + "_d");
        std::vector<Var> vars;
        for (int i = 0; i < (p.is_buffer() ? p.dimensions() : 0); i++) vars.push_back(Var("d" + std::to_string(i)));
        d(vars) = make_const(t, 0.0);
        adjoints_.emplace(Derivative::FuncKey{p.name(), -1}, d);
        return d;
    }

    void differentiate_stage(const FunctionPtr &function, int s) {
        const FunctionContents &c = *function.get();
        if (is_extern_function(c)) {
            throw CompileError("propagate_adjoints: " + c.name +
                               " is an extern stage (define_extern), which Loom can't differentiate. Compute "
                               "its adjoint yourself, or define " + c.name + " with Loom Exprs.");
        }
        const Definition &d = c.stage(s);
        if (d.rdom.defined() && d.rdom.loop_condition().defined()) {
            throw CompileError("propagate_adjoints: " + where_in(c, s) +
                               " runs over an RDom with loop_while(), whose iterations depend on the values; "
                               "Loom can't differentiate it.");
        }

        // The points this stage writes: c's pure Vars over c's region, then
        // the stage's RVars over its RDom.
        Scope<Interval> scope;
        const std::vector<Interval> region = regions_.at(c.name);
        Region domain;
        std::vector<std::string> domain_names;
        size_t stage_rvars = 0;
        if (d.rdom.defined()) {
            for (const ReductionVariable &v : d.rdom.domain()) {
                scope.push(v.var, Interval(v.min, simplify(v.min + v.extent - 1)));
                domain.push_back({v.min, v.extent});
                domain_names.push_back(v.var);
            }
            stage_rvars = domain.size();
        }
        for (size_t i = 0; i < c.args.size(); i++) {
            bool used = s == 0;
            for (const Expr &a : d.args) used = used || expr_uses_var(a, c.args[i]);
            if (!used) continue;
            scope.push(c.args[i], region[i]);
            domain.push_back(as_min_extent(region[i]));
            domain_names.push_back(c.args[i]);
        }

        UpdateAnalysis analysis;
        analysis.additive = true;
        analysis.values = d.values;
        for (const Type &t : c.output_types) analysis.signs.push_back(make_const(t, 1.0));
        if (s > 0) analysis = analyze_update(c, s, scope);

        // Each element's value from the adjoint's element.
        Func d_c = adjoints_.at({c.name, s - 1});
        std::vector<Leaf> leaves;
        for (size_t i = 0; i < analysis.values.size(); i++) {
            Expr seed = call_element(d_c, d.args, (int)i);
            if (!is_const_one(analysis.signs[i])) seed = seed * analysis.signs[i];
            std::vector<Leaf> element = Backpropagation(c, s).run(analysis.values[i], seed);
            leaves.insert(leaves.end(), element.begin(), element.end());
        }

        // One RDom per stage over the points it writes, where its predicate
        // holds; a scan's reads of itself run over the same points backwards.
        std::map<std::string, Expr> to_rvars, to_reversed;
        RDom r = points_written(c, s, domain, domain_names, 0, to_rvars);
        RDom reversed;
        if (analysis.has_earlier_reads()) reversed = points_written(c, s, domain, domain_names, stage_rvars, to_reversed);

        auto is_self = [&](const Leaf &leaf) {
            return leaf.call && leaf.call->call_type == CallType::Func && leaf.call->func.get() == &c;
        };
        // The derivatives read c's values as the stage saw them.
        auto with_stage_values = [&](const Expr &e) {
            if (s == 0 || analysis.additive || !reads_func(e, c)) return e;
            return read_stage_values(e, c, analysis, s, [&](int last) { return value_after(function, last); });
        };
        // 1. A scan's reads of points written by earlier iterations: the
        // adjoint of each written point gathers them from the iterations
        // that read it, the last iteration first, before anything reads d_c.
        if (analysis.has_earlier_reads()) {
            std::map<int, Expr> gathered;  // by the Tuple element read
            for (const Leaf &leaf : leaves) {
                if (!is_self(leaf) || analysis.kind_of(leaf.call->args) != SelfRead::Earlier) continue;
                record_region(c, s, c, leaf.call->args, scope);
                const std::vector<int64_t> &shift = analysis.read_at(leaf.call->args).shift;
                std::vector<Expr> reader;  // the iteration that reads the point the reversed RDom writes
                for (size_t k = 0; k < stage_rvars; k++) reader.push_back(to_reversed.at(domain_names[k]) - (int)shift[k]);
                auto [valid, at] = iteration_at(c, s, domain, domain_names, reader, to_reversed);
                Expr term = substitute(at, with_stage_values(leaf.adjoint));
                term = select(valid, term, make_const(term.type(), 0.0));
                Expr &sum = gathered[leaf.call->value_index];
                sum = sum.defined() ? sum + term : term;
            }
            std::vector<Expr> lhs;
            for (const Expr &a : d.args) lhs.push_back(substitute(to_reversed, a));
            if (!gathered.empty()) add_to_elements(d_c, lhs, gathered);
        }
        if (s == 0) {
            for (const Leaf &leaf : leaves) scatter(c, s, leaf, leaf.adjoint, to_rvars, scope);
            return;
        }
        // 2. The adjoint of c's value before this stage.
        Func previous = previous_adjoint(c, s, analysis, d_c, to_rvars);
        // 3. Reads of c's earlier value, and of everything else.
        for (const Leaf &leaf : leaves) {
            if (!is_self(leaf)) {
                scatter(c, s, leaf, with_stage_values(leaf.adjoint), to_rvars, scope);
                continue;
            }
            record_region(c, s, c, leaf.call->args, scope);
            std::vector<Expr> args;
            for (const Expr &a : leaf.call->args) args.push_back(substitute(to_rvars, a));
            Expr adjoint = substitute(to_rvars, with_stage_values(leaf.adjoint));
            const UpdateAnalysis::Read &read = analysis.read_at(leaf.call->args);
            if (read.kind == SelfRead::Earlier) {
                // Where no iteration wrote the point read, it holds c's earlier value.
                std::vector<Expr> writer;
                for (size_t k = 0; k < stage_rvars; k++) writer.push_back(to_rvars.at(domain_names[k]) + (int)read.shift[k]);
                Expr written = iteration_at(c, s, domain, domain_names, writer, to_rvars).first;
                adjoint = select(written, make_const(adjoint.type(), 0.0), adjoint);
            }
            add_to_element(previous, args, leaf.call->value_index, adjoint);
        }
    }

    /** Whether the iteration of stage s of c whose RVars are `rvars` (the
     * pure Vars as in `to`) lies in the stage's RDom and predicate, and the
     * map from the stage's names to that iteration, each RVar clamped to the
     * RDom so that nothing outside it is read. */
    std::pair<Expr, std::map<std::string, Expr>> iteration_at(const FunctionContents &c, int s, const Region &domain,
                                                              const std::vector<std::string> &names,
                                                              const std::vector<Expr> &rvars,
                                                              const std::map<std::string, Expr> &to) {
        const Definition &d = c.stage(s);
        std::map<std::string, Expr> at = to;
        Expr valid = const_true();
        for (size_t k = 0; k < rvars.size(); k++) {
            Expr min = domain[k].min, max = simplify(domain[k].min + domain[k].extent - 1);
            valid = valid && rvars[k] >= min && rvars[k] <= max;
            at[names[k]] = clamp(rvars[k], min, max);
        }
        for (const Expr &p : {d.predicate, d.rdom.defined() ? d.rdom.predicate() : Expr()}) {
            if (p.defined()) valid = valid && substitute(at, p);
        }
        return {simplify(valid), at};
    }

    /** An RDom over the points stage s of c writes (its RVars first, then the
     * pure Vars it uses) where its predicate holds, with the map from those
     * names to it; its first `reverse` dimensions run backwards. Undefined if
     * the stage writes one point. */
    RDom points_written(const FunctionContents &c, int s, const Region &domain,
                        const std::vector<std::string> &names, size_t reverse, std::map<std::string, Expr> &to) {
        if (domain.empty()) return RDom();
        const Definition &d = c.stage(s);
        RDom r(domain, c.name + (reverse ? "_d_rev" : "_d_r") + std::to_string(s));
        for (size_t i = 0; i < names.size(); i++) {
            Expr v = Expr(r[(int)i]);
            // Backwards: min + max - r.
            if (i < reverse) v = simplify(domain[i].min * 2 + domain[i].extent - 1) - v;
            to[names[i]] = v;
        }
        for (const Expr &p : {d.predicate, d.rdom.defined() ? d.rdom.predicate() : Expr()}) {
            if (p.defined()) r.where(substitute(to, p));
        }
        return r;
    }

    /** The adjoint of c's value before stage s (>= 1), given d_c, that of
     * its value after: the same through an additive update; otherwise d_c
     * with zeros where the stage writes (the stage's reads of c add to it). */
    Func previous_adjoint(const FunctionContents &c, int s, const UpdateAnalysis &analysis, const Func &d_c,
                          const std::map<std::string, Expr> &to_rvars) {
        const Derivative::FuncKey key{c.name, s - 2};
        std::vector<Expr> rest, sign;
        const bool previous_is_scan = s - 1 >= 1 && !is_additive_update(c, s - 1, rest, sign);
        if (analysis.additive && !previous_is_scan) {
            adjoints_.emplace(key, d_c);
            return d_c;
        }
        const Definition &d = c.stage(s);
        Func previous(c.name + "_d_s" + std::to_string(s - 1));
        std::vector<Var> vars = vars_of(c);
        const std::vector<Expr> var_args(vars.begin(), vars.end());
        bool writes_everything = !analysis.additive && !d.rdom.defined() && !d.predicate.defined();
        for (size_t i = 0; i < d.args.size(); i++) {
            const Variable *v = d.args[i].as<Variable>();
            writes_everything = writes_everything && v && v->name == c.args[i];
        }
        if (writes_everything) {
            define_zero(previous, var_args, c);
        } else {
            previous(vars) = d_c(vars);
            if (!analysis.additive) {
                std::vector<Expr> args;
                for (const Expr &a : d.args) args.push_back(substitute(to_rvars, a));
                define_zero(previous, args, c);
            }
        }
        adjoints_.emplace(key, previous);
        return previous;
    }

    /** d_p += adjoint for a leaf that reads another Func, a buffer or a Param. */
    void scatter(const FunctionContents &c, int s, const Leaf &leaf, const Expr &leaf_adjoint,
                 const std::map<std::string, Expr> &to_rvars, const Scope<Interval> &scope) {
        Expr adjoint = substitute(to_rvars, leaf_adjoint);
        if (leaf.param) {
            Func d_p = adjoint_of_input(leaf.param->param, leaf.param->type);
            d_p() += adjoint;
            return;
        }
        const Call *call = leaf.call;
        std::vector<Expr> args;
        for (const Expr &a : call->args) args.push_back(substitute(to_rvars, a));
        Func d_p;
        if (call->call_type == CallType::Image) {
            d_p = adjoint_of_input(call->param, call->type);
        } else {
            const FunctionContents &p = *call->func.get();
            record_region(c, s, p, call->args, scope);
            d_p = adjoints_.at(final_key(p));
        }
        if (s == 0 && gather(c, call, leaf_adjoint, d_p)) return;
        add_to_element(d_p, args, call->value_index, adjoint);
    }

    /** c's value after stage `last`, made once. */
    Func value_after(const FunctionPtr &c, int last) {
        const std::pair<const FunctionContents *, int> key{c.get(), last};
        auto it = stage_values_.find(key);
        if (it != stage_values_.end()) return it->second;
        return stage_values_.emplace(key, value_after_stage(c, last)).first->second;
    }

    /** When a pure definition reads p at a shift of its own Vars (p(x + 1,
     * y - 2): each coordinate one Var plus a constant, every Var once), the
     * adjoint of p at a point is the consumer's at one point: d_p(y) +=
     * d_c(y - shift) * ... where y - shift lies in c's region. That is an
     * update over d_p's own Vars (which a schedule can vectorize or
     * parallelize) instead of a scatter over an RDom; the coordinates are
     * clamped to c's region so that nothing outside it is read. */
    bool gather(const FunctionContents &c, const Call *call, const Expr &adjoint, const Func &d_p) {
        const FunctionContents &dp = *d_p.function().get();
        if (call->args.size() != c.args.size() || (int)call->args.size() != dp.dimensions()) return false;
        const std::vector<Interval> &region = regions_.at(c.name);
        std::vector<Var> vars;
        for (const std::string &name : dp.args) vars.push_back(Var(name));
        std::map<std::string, Expr> at;
        Expr inside = const_true();
        for (size_t j = 0; j < call->args.size(); j++) {
            Expr a = call->args[j], offset = make_const(Int(32), 0);
            if (const Add *add = a.as<Add>(); add && as_const_int(add->b)) {
                offset = add->b;
                a = add->a;
            } else if (const Sub *sub = a.as<Sub>(); sub && as_const_int(sub->b)) {
                offset = simplify(-sub->b);
                a = sub->a;
            }
            const Variable *v = a.as<Variable>();
            if (!v || v->type != Int(32) || v->param.defined() || v->reduction_domain.defined()) return false;
            auto it = std::find(c.args.begin(), c.args.end(), v->name);
            if (it == c.args.end() || at.count(v->name)) return false;
            const Interval &range = region[it - c.args.begin()];
            Expr x = simplify(Expr(vars[j]) - offset);
            inside = inside && x >= range.min && x <= range.max;
            at[v->name] = clamp(x, range.min, range.max);
        }
        Expr value = substitute(at, adjoint);
        add_to_element(d_p, std::vector<Expr>(vars.begin(), vars.end()), call->value_index,
                       select(inside, value, make_const(value.type(), 0.0)));
        return true;
    }

    /** Widens p's region by the points a stage of c reads. */
    void record_region(const FunctionContents &c, int s, const FunctionContents &p, const std::vector<Expr> &args,
                       const Scope<Interval> &scope) {
        std::vector<Interval> box;
        for (size_t i = 0; i < args.size(); i++) {
            Interval b = bounds_of_expr_in_scope(args[i], scope);
            if (!b.is_bounded()) {
                throw CompileError("propagate_adjoints: can't bound coordinate " + std::to_string(i) + " of " + p.name +
                                   " read by " + where_in(c, s) +
                                   " (a data-dependent index?). Clamp the coordinate to the range it may take.");
            }
            box.push_back(Interval(simplify(b.min), simplify(b.max)));
        }
        auto [it, inserted] = regions_.emplace(p.name, box);
        if (!inserted) {
            for (size_t i = 0; i < box.size(); i++) {
                Interval u = Interval::make_union(it->second[i], box[i]);
                it->second[i] = Interval(simplify(u.min), simplify(u.max));
            }
        }
    }

    std::map<Derivative::FuncKey, Func> adjoints_;
    std::map<std::string, std::vector<Interval>> regions_;
    std::map<std::pair<const FunctionContents *, int>, Func> stage_values_;
};

}  // namespace

Func Derivative::operator()(const Func &func, int update_id) const {
    const FunctionContents &c = *func.function().get();
    if (update_id < -1 || update_id >= (int)c.updates.size()) return Func();
    auto it = adjoints_.find({c.name, update_id});
    return it == adjoints_.end() ? Func() : it->second;
}

Func Derivative::operator()(const std::string &name) const {
    auto it = adjoints_.find({name, -1});
    return it == adjoints_.end() ? Func() : it->second;
}

Derivative propagate_adjoints(const Func &output, const Func &adjoint,
                              const Region &output_bounds) {
    return AdjointBuilder().build(output, adjoint, output_bounds);
}

Derivative propagate_adjoints(const Func &output, const Buffer<float> &adjoint) {
    Region bounds;
    for (int i = 0; i < adjoint.dimensions(); i++) bounds.push_back({adjoint.dim(i).min(), adjoint.dim(i).extent()});
    return propagate_adjoints(output, Func(adjoint), bounds);
}

Derivative propagate_adjoints(const Func &output) {
    if (output.dimensions() != 0) {
        throw CompileError("propagate_adjoints(" + output.name() + "): without an adjoint the output must be a Func of "
                           "no Vars (a scalar, e.g. a loss); " + output.name() + " has " +
                           std::to_string(output.dimensions()) + ". Pass its adjoint and region.");
    }
    Func one(output.name() + "_d_seed");
    one() = make_const(output.function().get()->output_types.at(0), 1.0);
    return propagate_adjoints(output, one, {});
}

}  // namespace loom
