#include "ir/IRUtil.h"

#include <algorithm>

#include "ir/IRVisitor.h"
#include "loom/Error.h"

namespace loom {
namespace internal {

namespace {

// A vector constant is a Broadcast of the scalar one.
Expr broadcast_if_vector(Type t, Expr scalar) {
    if (t.is_scalar()) return scalar;
    return Broadcast::make(std::move(scalar), t.lanes());
}

void check_constant_type(Type t) {
    if (!t.defined()) throw InternalError("make_const: undefined type");
    if (t.is_handle()) throw InternalError("make_const: no constants of type " + t.to_string());
}

// The innermost scalar of a (possibly nested) Broadcast.
const BaseExprNode *strip_broadcast(const Expr &e) {
    const Expr *cur = &e;
    while (const Broadcast *b = cur->as<Broadcast>()) cur = &b->value;
    return cur->get();
}

}  // namespace

Expr make_const(Type t, int64_t value) {
    check_constant_type(t);
    Type s = t.element_of();
    Expr scalar;
    if (s.is_int()) {
        scalar = IntImm::make(s, value);
    } else if (s.is_uint()) {
        scalar = UIntImm::make(s, (uint64_t)value);
    } else {
        scalar = FloatImm::make(s, (double)value);
    }
    return broadcast_if_vector(t, scalar);
}

Expr make_const(Type t, uint64_t value) {
    check_constant_type(t);
    Type s = t.element_of();
    Expr scalar;
    if (s.is_int()) {
        scalar = IntImm::make(s, (int64_t)value);
    } else if (s.is_uint()) {
        scalar = UIntImm::make(s, value);
    } else {
        scalar = FloatImm::make(s, (double)value);
    }
    return broadcast_if_vector(t, scalar);
}

Expr make_const(Type t, double value) {
    check_constant_type(t);
    Type s = t.element_of();
    if (s.is_float()) return broadcast_if_vector(t, FloatImm::make(s, value));
    // Float to integer truncates, like a Cast; the caller keeps values in range.
    if (s.is_int()) return make_const(t, (int64_t)value);
    if (value < 0) return make_const(t, (uint64_t)(int64_t)value);
    return make_const(t, (uint64_t)value);
}

Expr make_zero(Type t) { return make_const(t, (int64_t)0); }
Expr make_one(Type t) { return make_const(t, (int64_t)1); }
Expr make_bool(bool b, int lanes) { return make_const(Bool(lanes), (uint64_t)(b ? 1 : 0)); }
Expr const_true(int lanes) { return make_bool(true, lanes); }
Expr const_false(int lanes) { return make_bool(false, lanes); }

bool is_undef(const Expr &e) {
    const Call *c = e.as<Call>();
    return c && c->is_intrinsic(intrinsic::undef);
}

bool is_const(const Expr &e) {
    if (!e.defined()) return false;
    switch (strip_broadcast(e)->node_type) {
    case IRNodeType::IntImm:
    case IRNodeType::UIntImm:
    case IRNodeType::FloatImm:
        return true;
    default:
        return false;
    }
}

bool is_const(const Expr &e, int64_t value) {
    if (!e.defined()) return false;
    const BaseExprNode *n = strip_broadcast(e);
    switch (n->node_type) {
    case IRNodeType::IntImm:
        return static_cast<const IntImm *>(n)->value == value;
    case IRNodeType::UIntImm:
        return value >= 0 && static_cast<const UIntImm *>(n)->value == (uint64_t)value;
    case IRNodeType::FloatImm:
        return static_cast<const FloatImm *>(n)->value == (double)value;
    default:
        return false;
    }
}

bool is_const_zero(const Expr &e) { return is_const(e, 0); }
bool is_const_one(const Expr &e) { return is_const(e, 1); }

bool is_positive_const(const Expr &e) {
    if (!e.defined()) return false;
    if (const Ramp *r = e.as<Ramp>()) return is_positive_const(r->base) && is_positive_const(r->stride);
    const BaseExprNode *n = strip_broadcast(e);
    switch (n->node_type) {
    case IRNodeType::IntImm:
        return static_cast<const IntImm *>(n)->value > 0;
    case IRNodeType::UIntImm:
        return static_cast<const UIntImm *>(n)->value > 0;
    case IRNodeType::FloatImm:
        return static_cast<const FloatImm *>(n)->value > 0;
    default:
        return false;
    }
}

bool is_negative_const(const Expr &e) {
    if (!e.defined()) return false;
    if (const Ramp *r = e.as<Ramp>()) return is_negative_const(r->base) && is_negative_const(r->stride);
    const BaseExprNode *n = strip_broadcast(e);
    switch (n->node_type) {
    case IRNodeType::IntImm:
        return static_cast<const IntImm *>(n)->value < 0;
    case IRNodeType::FloatImm:
        return static_cast<const FloatImm *>(n)->value < 0;
    default:
        return false;
    }
}

std::optional<int64_t> as_const_int(const Expr &e) {
    if (!e.defined()) return std::nullopt;
    const BaseExprNode *n = strip_broadcast(e);
    if (n->node_type != IRNodeType::IntImm) return std::nullopt;
    return static_cast<const IntImm *>(n)->value;
}

std::optional<uint64_t> as_const_uint(const Expr &e) {
    if (!e.defined()) return std::nullopt;
    const BaseExprNode *n = strip_broadcast(e);
    if (n->node_type != IRNodeType::UIntImm) return std::nullopt;
    return static_cast<const UIntImm *>(n)->value;
}

std::optional<double> as_const_float(const Expr &e) {
    if (!e.defined()) return std::nullopt;
    const BaseExprNode *n = strip_broadcast(e);
    if (n->node_type != IRNodeType::FloatImm) return std::nullopt;
    return static_cast<const FloatImm *>(n)->value;
}

namespace {

struct PurityChecker : IRGraphVisitor {
    bool pure = true;
    using IRGraphVisitor::visit;
    void visit(const Call *op) override {
        if (!op->is_pure()) pure = false;
        IRGraphVisitor::visit(op);
    }
    // A Load reads memory that stores may change.
    void visit(const Load *op) override {
        pure = false;
        IRGraphVisitor::visit(op);
    }
};

}  // namespace

bool is_pure(const Expr &e) {
    if (!e.defined()) return true;
    PurityChecker checker;
    checker.include(e);
    return checker.pure;
}

// Halide's integer division is Euclidean: the remainder a - b*q is always in
// [0, |b|). For b > 0 that is rounding toward -infinity; for b < 0 it rounds
// up, which keeps (a/b)*b + a%b == a for every sign.
int64_t div_euclid(int64_t a, int64_t b) {
    if (b == 0) return 0;
    // INT64_MIN / -1 overflows; wrap like the narrow types do.
    if (b == -1) return (int64_t)(0 - (uint64_t)a);
    int64_t q = a / b;
    int64_t r = a % b;
    if (r < 0) q += (b > 0) ? -1 : 1;
    return q;
}

int64_t mod_euclid(int64_t a, int64_t b) {
    if (b == 0 || b == -1) return 0;
    int64_t r = a % b;
    if (r < 0) r = (b > 0) ? r + b : r - b;
    return r;
}

int64_t wrap_int(Type t, int64_t value) {
    int bits = t.bits();
    if (bits >= 64 || bits <= 0) return value;
    // Sign-extend the low `bits` bits.
    uint64_t shift = 64 - bits;
    return (int64_t)((uint64_t)value << shift) >> shift;
}

uint64_t wrap_uint(Type t, uint64_t value) {
    int bits = t.bits();
    if (bits >= 64 || bits <= 0) return value;
    return value & ((uint64_t(1) << bits) - 1);
}

int expr_size(const Expr &e, int limit) {
    struct Count : IRGraphVisitor {
        int n = 0, limit = 0;
        void include(const Expr &e) override {
            if (e.defined() && n++ < limit) e.accept(this);
        }
        void include(const Stmt &) override {}
    } count;
    count.limit = limit;
    count.include(e);
    return std::min(count.n, limit);
}

bool is_gpu_loop(ForType t) { return t == ForType::GPUBlock || t == ForType::GPUThread; }

bool runs_on_gpu(const For *op) {
    return is_gpu_loop(op->for_type) || op->device_api == DeviceAPI::Vulkan || op->device_api == DeviceAPI::Default_GPU;
}

Expr failure_cleanup(const Stmt &s) {
    const Evaluate *e = s.as<Evaluate>();
    const Call *c = e ? e->value.as<Call>() : nullptr;
    if (!c || !c->is_intrinsic(intrinsic::cleanup_on_failure)) return Expr();
    const Call *call = c->args.size() == 1 ? c->args[0].as<Call>() : nullptr;
    if (!call || call->call_type != CallType::Extern) {
        throw InternalError("cleanup_on_failure takes one Extern call");
    }
    return c->args[0];
}

void flatten_block(const Stmt &s, std::vector<Stmt> &out) {
    if (const Block *b = s.as<Block>()) {
        flatten_block(b->first, out);
        flatten_block(b->rest, out);
    } else if (s.defined()) {
        out.push_back(s);
    }
}

}  // namespace internal
}  // namespace loom
