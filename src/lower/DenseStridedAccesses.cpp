#include "lower/DenseStridedAccesses.h"

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "ir/IREquality.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"

namespace loom {
namespace internal {

namespace {

constexpr int kMaxStride = 4;

/** The constant stride of a vector index Ramp(scalar base, s, lanes) with
 * 2 <= s <= kMaxStride, or 0. */
int small_stride(const Expr &index) {
    const Ramp *r = index.as<Ramp>();
    if (!r || !r->base.type().is_scalar()) return 0;
    std::optional<int64_t> s = as_const_int(r->stride);
    return s && *s >= 2 && *s <= kMaxStride ? (int)*s : 0;
}

bool unpredicated(const Expr &predicate) { return !predicate.defined() || is_const_one(predicate); }

class LoadsFrom : public IRVisitor {
public:
    explicit LoadsFrom(const std::string &name) : name_(name) {}
    bool found = false;

private:
    using IRVisitor::visit;
    void visit(const Load *op) override {
        found = found || op->name == name_;
        IRVisitor::visit(op);
    }
    std::string name_;
};

bool loads_from(const Expr &e, const std::string &name) {
    LoadsFrom finder(name);
    e.accept(&finder);
    return finder.found;
}

/** The dense load a strided load became (Shuffle of lanes 0, s, 2s, ... of
 * a Load of Ramp(base, 1, s * (lanes - 1) + 1)), or nullptr. */
const Load *strided_load_shuffle(const Shuffle *op, int s) {
    if (op->vectors.size() != 1) return nullptr;
    const Load *load = op->vectors[0].as<Load>();
    const Ramp *r = load ? load->index.as<Ramp>() : nullptr;
    const int lanes = (int)op->indices.size();
    if (!r || !is_const_one(r->stride) || !unpredicated(load->predicate) || r->lanes != s * (lanes - 1) + 1) {
        return nullptr;
    }
    for (int i = 0; i < lanes; i++) {
        if (op->indices[i] != i * s) return nullptr;
    }
    return load;
}

/** The values of an interleaved store group that read their channels with
 * s strided loads at base + 0 ... base + s - 1 of one buffer (each a dense
 * load of its own span) read them from one dense load of the s * lanes
 * elements those spans cover together. */
class ShareChannelLoads : public IRMutator {
public:
    ShareChannelLoads(const std::vector<Expr> &values, int s) : s_(s) {
        struct Find : IRVisitor {
            int s;
            std::vector<const Load *> loads;
            using IRVisitor::visit;
            void visit(const Shuffle *op) override {
                if (const Load *l = strided_load_shuffle(op, s)) loads.push_back(l);
                IRVisitor::visit(op);
            }
        } find;
        find.s = s;
        for (const Expr &v : values) v.accept(&find);
        for (const Load *first : find.loads) {
            if (shared_.count(first)) continue;
            const Expr base0 = first->index.as<Ramp>()->base;
            std::vector<std::pair<const Load *, int64_t>> group;
            for (const Load *l : find.loads) {
                if (l->name != first->name || l->type != first->type) continue;
                std::optional<int64_t> d = as_const_int(simplify(Sub::make(l->index.as<Ramp>()->base, base0)));
                if (d) group.emplace_back(l, *d);
            }
            int64_t lowest = 0;
            for (const auto &g : group) lowest = std::min(lowest, g.second);
            std::vector<bool> seen(s, false);
            bool complete = true;
            for (const auto &g : group) {
                const int64_t k = g.second - lowest;
                complete = complete && k >= 0 && k < s;
                if (k >= 0 && k < s) seen[k] = true;
            }
            for (bool b : seen) complete = complete && b;
            if (!complete) continue;
            const int lanes = (first->type.lanes() - 1) / s + 1;
            Expr base = simplify(Add::make(base0, make_const(base0.type(), lowest)));
            Expr dense = Load::make(first->type.with_lanes(s * lanes), first->name,
                                    Ramp::make(base, make_one(base.type()), s * lanes), Expr(), first->param);
            for (const auto &g : group) shared_[g.first] = {dense, (int)(g.second - lowest)};
        }
    }

protected:
    using IRMutator::visit;
    Expr visit(const Shuffle *op) override {
        const Load *l = strided_load_shuffle(op, s_);
        auto it = l ? shared_.find(l) : shared_.end();
        if (it == shared_.end()) return IRMutator::visit(op);
        std::vector<int> picks;
        for (size_t i = 0; i < op->indices.size(); i++) picks.push_back(it->second.second + (int)i * s_);
        return Shuffle::make({it->second.first}, picks);
    }

private:
    int s_;
    std::map<const Load *, std::pair<Expr, int>> shared_;
};

/** The dense ramp (stride 1) a vector index is built from, and the constant
 * k it is divided by (or taken modulo), when the index is made of that one
 * ramp, scalar broadcasts and lane-wise integer arithmetic only: the index
 * ramp / 2 + ramp % 2 * 2 - 1 of an upsampling has ramp(b, 1, n) and k = 2. */
class FindDividedRamp : public IRVisitor {
public:
    const Ramp *ramp = nullptr;
    int k = 0;
    bool ok = true;

private:
    using IRVisitor::visit;
    void visit(const Ramp *op) override {
        if (!is_const_one(op->stride) || !op->base.type().is_scalar() || (ramp && !equal(Expr(ramp), Expr(op)))) {
            ok = false;
        }
        ramp = op;
    }
    void visit(const Broadcast *op) override { ok = ok && op->value.type().is_scalar(); }
    void divisor(const Expr &b) {
        const Broadcast *bc = b.as<Broadcast>();
        std::optional<int64_t> d = bc ? as_const_int(bc->value) : std::nullopt;
        if (!d || *d < 2 || *d > kMaxStride || (k && k != *d)) {
            ok = false;
            return;
        }
        k = (int)*d;
    }
    void visit(const Div *op) override {
        divisor(op->b);
        op->a.accept(this);
    }
    void visit(const Mod *op) override {
        divisor(op->b);
        op->a.accept(this);
    }
    // Anything else that may vary by lane (a load, a vector variable, a
    // call, a shuffle) is not a function of the ramp alone.
    void visit(const Variable *op) override { ok = ok && op->type.is_scalar(); }
    void visit(const Load *) override { ok = false; }
    void visit(const Call *) override { ok = false; }
    void visit(const Shuffle *) override { ok = false; }
    void visit(const VectorReduce *) override { ok = false; }
    void visit(const Let *) override { ok = false; }
    void visit(const Reinterpret *) override { ok = false; }
};

/** The scalar lane j of a class of lanes: the ramp's lanes base + c + k * j
 * for a scalar variable j, broadcasts as their scalar. */
class LaneOfClass : public IRMutator {
public:
    LaneOfClass(const Ramp *ramp, Expr lane) : ramp_(ramp), lane_(std::move(lane)) {}

protected:
    using IRMutator::visit;
    Expr visit(const Ramp *op) override { return equal(Expr(op), Expr(ramp_)) ? lane_ : IRMutator::visit(op); }
    Expr visit(const Broadcast *op) override { return op->value; }
    Expr visit(const Cast *op) override { return Cast::make(op->type.with_lanes(1), mutate(op->value)); }

private:
    const Ramp *ramp_;
    Expr lane_;
};

/** A load whose index is f(ramp(b, 1, n)) with f dividing the ramp by a
 * small constant k (an upsampling's x / 2 and x % 2) as k loads, each of the
 * lanes c, c + k, c + 2k, ... (c < k), interleaved: in each such class the
 * ramp's lanes are b + c + k * j, so x / k and x % k are affine in j, and the
 * class's index is a dense ramp (or one element, broadcast) whenever f is
 * affine between the divisions: a gather of n lanes becomes k dense loads of
 * n / k lanes and a shuffle. The parity of b need not be known. Undefined
 * when the index is not of that form. */
Expr interleaved_class_loads(const Load *op) {
    FindDividedRamp find;
    op->index.accept(&find);
    const int n = op->type.lanes();
    if (!find.ok || !find.ramp || !find.k || n % find.k || n / find.k < 2) return Expr();
    const int k = find.k, lanes = n / k;
    const Type it = find.ramp->base.type();
    const Expr j = Variable::make(it, "dense_strided.lane");
    std::vector<Expr> loads;
    for (int c = 0; c < k; c++) {
        Expr base_c = Add::make(find.ramp->base, make_const(it, c));
        Expr lane = Add::make(base_c, Mul::make(make_const(it, k), j));
        Expr g = LaneOfClass(find.ramp, lane).mutate(op->index);
        Expr next = LaneOfClass(find.ramp, Add::make(lane, make_const(it, k))).mutate(op->index);
        std::optional<int64_t> step = as_const_int(simplify(Sub::make(next, g)));
        if (!step || (*step != 0 && *step != 1)) return Expr();
        Expr first = simplify(substitute(j.as<Variable>()->name, make_zero(it), g));
        if (expr_uses_var(first, j.as<Variable>()->name)) return Expr();
        Expr index = *step == 1 ? Ramp::make(first, make_one(it), lanes) : Broadcast::make(first, lanes);
        loads.push_back(Load::make(op->type.with_lanes(lanes), op->name, index, Expr(), op->param));
    }
    std::vector<int> interleave;
    for (int i = 0; i < n; i++) interleave.push_back((i % k) * lanes + i / k);
    return Shuffle::make(loads, interleave);
}

void flatten(const Stmt &s, std::vector<Stmt> &out) {
    if (const Block *b = s.as<Block>()) {
        flatten(b->first, out);
        flatten(b->rest, out);
    } else {
        out.push_back(s);
    }
}

class DenseStridedAccesses : public IRMutator {
    using IRMutator::visit;
    int gpu_depth_ = 0;

    Expr visit(const Load *op) override {
        const int s = small_stride(op->index);
        if (gpu_depth_ == 0 && !s && unpredicated(op->predicate) && !op->type.is_scalar()) {
            if (Expr split = interleaved_class_loads(op); split.defined()) return mutate(split);
        }
        if (gpu_depth_ > 0 || !s || !unpredicated(op->predicate)) return IRMutator::visit(op);
        const Ramp *r = op->index.as<Ramp>();
        const int lanes = op->type.lanes(), span = s * (lanes - 1) + 1;
        Expr base = mutate(r->base);
        Expr dense = Load::make(op->type.with_lanes(span), op->name, Ramp::make(base, make_one(base.type()), span),
                                Expr(), op->param);
        std::vector<int> picks;
        for (int i = 0; i < lanes; i++) picks.push_back(i * s);
        return Shuffle::make({dense}, picks);
    }

    Stmt visit(const For *op) override {
        const bool gpu = is_gpu_loop(op->for_type);
        gpu_depth_ += gpu;
        Stmt result = IRMutator::visit(op);
        gpu_depth_ -= gpu;
        return result;
    }

    // The store of s strided stores at base + 0 ... base + s - 1 starting at
    // stmts[i], or an undefined Stmt. Stores that each sit in the same
    // LetStmt (a vectorized tail's clamped base) merge inside one copy of it.
    Stmt merged_stores(const std::vector<Stmt> &stmts, size_t i) {
        const LetStmt *let = stmts[i].as<LetStmt>();
        if (!let) return merged_bare_stores(stmts, i);
        std::vector<Stmt> bodies;
        for (size_t k = i; k < stmts.size(); k++) {
            const LetStmt *l = stmts[k].as<LetStmt>();
            if (!l || l->name != let->name || !equal(l->value, let->value)) break;
            bodies.push_back(l->body);
        }
        Stmt merged = merged_bare_stores(bodies, 0);
        return merged.defined() ? LetStmt::make(let->name, let->value, merged) : Stmt();
    }

    Stmt merged_bare_stores(const std::vector<Stmt> &stmts, size_t i) {
        if (i >= stmts.size()) return Stmt();
        const Store *first = stmts[i].as<Store>();
        const int s = first ? small_stride(first->index) : 0;
        if (!s || !unpredicated(first->predicate) || i + s > stmts.size()) return Stmt();
        const Type t = first->value.type();
        std::vector<const Store *> group;
        std::vector<int64_t> offsets;
        const Expr base0 = first->index.as<Ramp>()->base;
        for (int k = 0; k < s; k++) {
            const Store *st = stmts[i + k].as<Store>();
            if (!st || st->name != first->name || small_stride(st->index) != s || !unpredicated(st->predicate) ||
                st->value.type() != t) {
                return Stmt();
            }
            std::optional<int64_t> offset = as_const_int(simplify(Sub::make(st->index.as<Ramp>()->base, base0)));
            if (!offset) return Stmt();
            group.push_back(st);
            offsets.push_back(*offset);
        }
        const int64_t lowest = *std::min_element(offsets.begin(), offsets.end());
        std::vector<Expr> values(s);
        for (int k = 0; k < s; k++) {
            const int64_t slot = offsets[k] - lowest;
            if (slot < 0 || slot >= s || values[slot].defined()) return Stmt();
            if (loads_from(group[k]->value, first->name)) return Stmt();
            values[slot] = group[k]->value;
        }
        ShareChannelLoads share(values, s);
        for (Expr &v : values) v = share.mutate(v);
        const int lanes = t.lanes();
        std::vector<int> interleave;
        for (int lane = 0; lane < lanes; lane++) {
            for (int k = 0; k < s; k++) interleave.push_back(k * lanes + lane);
        }
        const Expr base = simplify(Add::make(base0, make_const(base0.type(), lowest)));
        return Store::make(first->name, Shuffle::make(values, interleave),
                           Ramp::make(base, make_one(base.type()), s * lanes), Expr(), first->param);
    }

    Stmt visit(const Block *op) override {
        std::vector<Stmt> stmts;
        flatten(op, stmts);
        for (Stmt &s : stmts) s = mutate(s);
        if (gpu_depth_ > 0) return Block::make(stmts);
        std::vector<Stmt> result;
        for (size_t i = 0; i < stmts.size();) {
            Stmt merged = merged_stores(stmts, i);
            if (merged.defined()) {
                result.push_back(merged);
                const Stmt *store = &stmts[i];
                if (const LetStmt *let = store->as<LetStmt>()) store = &let->body;
                i += small_stride(store->as<Store>()->index);
            } else {
                result.push_back(stmts[i++]);
            }
        }
        return Block::make(result);
    }
};

}  // namespace

Stmt dense_strided_accesses(const Stmt &s) { return DenseStridedAccesses().mutate(s); }

}  // namespace internal
}  // namespace loom
