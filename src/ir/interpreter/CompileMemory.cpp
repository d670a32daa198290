// Memory for the interpreter: Load, Store, Allocate, Free, and the regions
// that bound every access.
//
// A host pointer slot (a LetStmt of buffer_get_host(b.buffer), or an
// Allocate) carries the byte range it may address. For a buffer that is the
// span of its elements: index 0 is the host pointer, and a dimension with a
// negative stride reaches below it. An access outside the range throws
// InternalError before touching memory.

#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <type_traits>

#include "ir/IREquality.h"
#include "ir/IRMutator.h"
#include "ir/interpreter/InterpCore.h"

namespace loom {
namespace internal {
namespace interp {

namespace {

// How one element of each supported memory type is read and written.
template<class T>
struct Mem {
    static constexpr int size = sizeof(T);
    static Scalar get(const uint8_t *p) {
        T v;
        std::memcpy(&v, p, sizeof(T));
        Scalar s;
        if constexpr (std::is_floating_point_v<T>) {
            s.f = v;
        } else if constexpr (std::is_signed_v<T>) {
            s.i = v;
        } else {
            s.u = v;
        }
        return s;
    }
    static void put(uint8_t *p, Scalar s) {
        T v;
        if constexpr (std::is_floating_point_v<T>) {
            v = (T)s.f;
        } else if constexpr (std::is_signed_v<T>) {
            v = (T)s.i;
        } else {
            v = (T)s.u;
        }
        std::memcpy(p, &v, sizeof(T));
    }
};

// Float(16) lanes are held rounded to binary16 already, so storing is exact.
struct MemHalf {
    static constexpr int size = 2;
    static Scalar get(const uint8_t *p) {
        uint16_t bits;
        std::memcpy(&bits, p, 2);
        Scalar s;
        s.f = float16_t::float_from_bits(bits);
        return s;
    }
    static void put(uint8_t *p, Scalar s) {
        uint16_t bits = float16_t::bits_from_double(s.f);
        std::memcpy(p, &bits, 2);
    }
};

// Bools take a byte in memory.
struct MemBool {
    static constexpr int size = 1;
    static Scalar get(const uint8_t *p) {
        Scalar s;
        s.u = *p != 0;
        return s;
    }
    static void put(uint8_t *p, Scalar s) { *p = s.u != 0; }
};

inline bool in_region(const Region &r, int64_t index, int64_t size) {
    if (!r.known) return false;
    // Far-out indices would overflow the byte offset below.
    if (index < -(int64_t(1) << 55) || index > (int64_t(1) << 55)) return false;
    int64_t offset = index * size;
    return offset >= r.lo && offset + size <= r.hi;
}

[[noreturn]] void out_of_bounds(const char *what, const std::string &name, int64_t index, const Region &r,
                                int64_t size) {
    if (!r.known) {
        fail(std::string("Interpreter: ") + what + " '" + name + "' at index " + std::to_string(index) +
             ", which addresses no live allocation (null, freed, or of unknown origin)");
    }
    fail(std::string("Interpreter: ") + what + " '" + name + "' at index " + std::to_string(index) +
         " is outside its allocation, bytes [" + std::to_string(r.lo) + ", " + std::to_string(r.hi) +
         ") with elements of " + std::to_string(size) + " bytes");
}

template<class M>
void eval_load(Node &n, Frame &f, Scalar *out) {
    Scalar *index = n.run(0, f);
    const Scalar *predicate = n.kids.size() > 1 ? n.run(1, f) : nullptr;
    const Region &r = f.regions[n.slot];
    for (int i = 0; i < n.lanes; i++) {
        if (predicate && !predicate[i].u) {
            out[i].u = 0;
            continue;
        }
        if (!in_region(r, index[i].i, M::size)) out_of_bounds("Load from", n.name, index[i].i, r, M::size);
        out[i] = M::get(r.base + index[i].i * M::size);
    }
}

// One lane and no predicate: most loads and stores of scalar loops. Their
// index, and a store's value, are often a variable, a constant or a sum of
// two of those (after hoist_loop_invariant_work and share_store_subexpressions:
// r + interp.invariant.0, or cse3), read in place from the operands' slots
// and constants (InPlaceOperands) instead of through calls to child nodes.

using Operand = InPlaceForm;

template<Operand O>
inline Scalar read_operand(const InPlaceOperand &o, Frame &f) {
    return read_in_place<O>(o, f);
}

template<class M, Operand I>
void eval_scalar_load(Node &n, Frame &f, Scalar *out) {
    int64_t index;
    if constexpr (I == Operand::Node) {
        index = n.run(0, f)[0].i;
    } else {
        index = read_operand<I>(n.in_place[0], f).i;
    }
    const Region &r = f.regions[n.slot];
    if (!in_region(r, index, M::size)) out_of_bounds("Load from", n.name, index, r, M::size);
    out[0] = M::get(r.base + index * M::size);
}

template<class M, Operand V, Operand I>
int exec_scalar_store(Exec &s, Frame &f) {
    Scalar value;
    if constexpr (V == Operand::Node) {
        value = s.run(0, f)[0];
    } else {
        value = read_operand<V>(s.in_place[0], f);
    }
    int64_t index;
    if constexpr (I == Operand::Node) {
        index = s.run(1, f)[0].i;
    } else {
        index = read_operand<I>(s.in_place[1], f).i;
    }
    const Region &r = f.regions[s.slot];
    if (!in_region(r, index, M::size)) out_of_bounds("Store to", s.name, index, r, M::size);
    M::put(r.base + index * M::size, value);
    return 0;
}

// Checks every active lane before writing any, so a failing Store writes nothing.
template<class M>
int exec_store(Exec &s, Frame &f) {
    Scalar *value = s.run(0, f);
    Scalar *index = s.run(1, f);
    const Scalar *predicate = s.exprs.size() > 2 ? s.run(2, f) : nullptr;
    const Region &r = f.regions[s.slot];
    const int lanes = s.exprs[1]->lanes;
    for (int i = 0; i < lanes; i++) {
        if (predicate && !predicate[i].u) continue;
        if (!in_region(r, index[i].i, M::size)) out_of_bounds("Store to", s.name, index[i].i, r, M::size);
    }
    for (int i = 0; i < lanes; i++) {
        if (predicate && !predicate[i].u) continue;
        M::put(r.base + index[i].i * M::size, value[i]);
    }
    return 0;
}

// The locks of atomic updates: striped by element address, so that updates
// of one element take turns; a thread holds one at a time (a value holds no
// Store), so there is no deadlock.
constexpr int kAtomicLockStripes = 64;
std::mutex atomic_locks[kAtomicLockStripes];

std::mutex &atomic_lock_of(const uint8_t *p) {
    uint64_t key = (uint64_t)(uintptr_t)p >> 3;
    key *= 0x9e3779b97f4a7c15ull;
    return atomic_locks[key >> 58];
}

// An atomic update of one element (lower/LowerAtomics.h): its value reads
// the element, and both happen under the element's lock, so concurrent
// iterations update it one after another, as compiled code's atomicrmw or
// compare-and-swap loop does. The index and predicate are computed first.
template<class M>
int exec_atomic_store(Exec &s, Frame &f) {
    const int64_t index = s.run(1, f)[0].i;
    if (s.exprs.size() > 2 && !s.run(2, f)[0].u) return 0;
    const Region &r = f.regions[s.slot];
    if (!in_region(r, index, M::size)) out_of_bounds("Store to", s.name, index, r, M::size);
    uint8_t *element = r.base + index * M::size;
    std::lock_guard<std::mutex> lock(atomic_lock_of(element));
    M::put(element, s.run(0, f)[0]);
    return 0;
}

template<template<class> class Use>
auto pick_memory(Type t, const std::string &name) {
    Type e = t.element_of();
    if (e.is_bool()) return Use<MemBool>::fn;
    if (e.is_int()) {
        switch (e.bits()) {
        case 8: return Use<Mem<int8_t>>::fn;
        case 16: return Use<Mem<int16_t>>::fn;
        case 32: return Use<Mem<int32_t>>::fn;
        case 64: return Use<Mem<int64_t>>::fn;
        }
    } else if (e.is_uint()) {
        switch (e.bits()) {
        case 8: return Use<Mem<uint8_t>>::fn;
        case 16: return Use<Mem<uint16_t>>::fn;
        case 32: return Use<Mem<uint32_t>>::fn;
        case 64: return Use<Mem<uint64_t>>::fn;
        }
    } else if (e.is_float()) {
        if (e.bits() == 16) return Use<MemHalf>::fn;
        if (e.bits() == 32) return Use<Mem<float>>::fn;
        if (e.bits() == 64) return Use<Mem<double>>::fn;
    }
    fail("Interpreter: memory access to '" + name + "' of type " + t.to_string() + " is not supported");
}

template<class M>
struct UseLoad {
    static constexpr EvalFn fn = eval_load<M>;
};
template<Operand I>
struct UseScalarLoad {
    template<class M>
    struct With {
        static constexpr EvalFn fn = eval_scalar_load<M, I>;
    };
};
template<Operand V, Operand I>
struct UseScalarStore {
    template<class M>
    struct With {
        static constexpr ExecFn fn = exec_scalar_store<M, V, I>;
    };
};

EvalFn pick_scalar_load(Operand index, Type t, const std::string &name) {
    switch (index) {
    case Operand::Slot: return pick_memory<UseScalarLoad<Operand::Slot>::With>(t, name);
    case Operand::Constant: return pick_memory<UseScalarLoad<Operand::Constant>::With>(t, name);
    case Operand::SlotPlusSlot: return pick_memory<UseScalarLoad<Operand::SlotPlusSlot>::With>(t, name);
    case Operand::SlotPlusConstant: return pick_memory<UseScalarLoad<Operand::SlotPlusConstant>::With>(t, name);
    default: return pick_memory<UseScalarLoad<Operand::Node>::With>(t, name);
    }
}

template<Operand V>
ExecFn pick_scalar_store_with(Operand index, Type t, const std::string &name) {
    switch (index) {
    case Operand::Slot: return pick_memory<UseScalarStore<V, Operand::Slot>::template With>(t, name);
    case Operand::Constant: return pick_memory<UseScalarStore<V, Operand::Constant>::template With>(t, name);
    case Operand::SlotPlusSlot: return pick_memory<UseScalarStore<V, Operand::SlotPlusSlot>::template With>(t, name);
    case Operand::SlotPlusConstant:
        return pick_memory<UseScalarStore<V, Operand::SlotPlusConstant>::template With>(t, name);
    default: return pick_memory<UseScalarStore<V, Operand::Node>::template With>(t, name);
    }
}

// A value is read in place only as a variable or a constant (its type is the
// element's, which need not be an Int).
ExecFn pick_scalar_store(Operand value, Operand index, Type t, const std::string &name) {
    switch (value) {
    case Operand::Slot: return pick_scalar_store_with<Operand::Slot>(index, t, name);
    case Operand::Constant: return pick_scalar_store_with<Operand::Constant>(index, t, name);
    default: return pick_scalar_store_with<Operand::Node>(index, t, name);
    }
}
template<class M>
struct UseStore {
    static constexpr ExecFn fn = exec_store<M>;
};
template<class M>
struct UseAtomicStore {
    static constexpr ExecFn fn = exec_atomic_store<M>;
};

Region region_of_buffer(const loom_buffer_t *b) {
    Region r;
    if (!b || !b->host) return r;
    if (b->dimensions > 0 && !b->dim) return r;
    int64_t element_size = (int64_t)((b->type.bits + 7) / 8) * (b->type.lanes ? b->type.lanes : 1);
    int64_t lo = 0, hi = 0;
    r.base = b->host;
    r.known = true;
    for (int d = 0; d < b->dimensions; d++) {
        int64_t extent = b->dim[d].extent, stride = b->dim[d].stride;
        if (extent <= 0) return r;  // empty: no index is valid
        int64_t span = (extent - 1) * stride;
        if (span < 0) {
            lo += span;
        } else {
            hi += span;
        }
    }
    r.lo = lo * element_size;
    r.hi = (hi + 1) * element_size;
    return r;
}

int host_slot(const Compiler &c, const std::string &name, const char *what) {
    int s = c.lookup(name);
    if (s >= 0 && !c.slot(s).type.is_handle()) {
        fail(std::string("Interpreter: ") + what + " '" + name + "', which is bound to a " +
             c.slot(s).type.to_string() + " rather than a host pointer");
    }
    return s;
}

int exec_allocate(Exec &s, Frame &f) {
    const int extents = s.op;
    Exec &body = *s.stmts[0];
    if ((int)s.exprs.size() > extents && s.run(extents, f)[0].u == 0) {
        f.values[s.value_offset].u = 0;
        f.regions[s.slot] = Region{};
        return body.fn(body, f);
    }
    int64_t count = (int64_t)s.type.bytes() * s.type.lanes();
    bool too_big = false;
    for (int k = 0; k < extents; k++) {
        Scalar e = s.run(k, f)[0];
        int64_t extent = s.exprs[k]->type.is_uint() ? (int64_t)e.u : e.i;
        if (extent < 0) fail("Interpreter: Allocate of '" + s.name + "' has negative extent " + std::to_string(extent));
        too_big = too_big || __builtin_mul_overflow(count, extent, &count);
    }
    too_big = too_big || count > (int64_t(1) << 42);
    // From loom_malloc, as compiled code's heap allocations (so a
    // JITUserContext's custom_malloc sees them), zero-filled so that runs
    // are reproducible.
    void *user_context = f.user_context;
    auto release = [user_context](uint8_t *p) { loom_free(user_context, p); };
    std::unique_ptr<uint8_t, decltype(release)> memory(
        too_big ? nullptr : (uint8_t *)loom_malloc(user_context, count > 0 ? (size_t)count : 1), release);
    if (!memory) {
        std::string message = "Out of memory allocating " + s.name;
        loom_error(f.user_context, message.c_str());
        return loom_error_code_out_of_memory;
    }
    std::memset(memory.get(), 0, count > 0 ? (size_t)count : 1);
    f.values[s.value_offset].u = (uint64_t)(uintptr_t)memory.get();
    Region &r = f.regions[s.slot];
    r.base = memory.get();
    r.lo = 0;
    r.hi = count;
    r.known = true;
    int result = body.fn(body, f);
    f.regions[s.slot].known = false;
    return result;
}

int exec_free(Exec &s, Frame &f) {
    f.regions[s.slot].known = false;
    return 0;
}

}  // namespace

InPlaceForm in_place_form(const Expr &e, const Node &kid, bool sums, InPlaceOperand &o) {
    if (kid.lanes != 1) return InPlaceForm::Node;
    if (is_scalar_slot_read(kid)) {
        o.slot[0] = kid.value_offset;
        return InPlaceForm::Slot;
    }
    if (is_constant(kid)) {
        o.constant = kid.constants[0];
        return InPlaceForm::Constant;
    }
    // An Add of two leaves (a larger sum is one polynomial node, whose
    // children are its variables: CompilePolynomial.cpp).
    const Add *add = e.as<Add>();
    auto leaf = [](const Expr &x) { return x.as<Variable>() || x.as<IntImm>() || x.as<UIntImm>(); };
    if (!sums || !add || !e.type().is_int() || !leaf(add->a) || !leaf(add->b) || kid.kids.size() != 2) {
        return InPlaceForm::Node;
    }
    const Node &a = *kid.kids[0], &b = *kid.kids[1];
    o.bits = e.type().bits();
    if (is_scalar_slot_read(a) && is_scalar_slot_read(b)) {
        o.slot[0] = a.value_offset;
        o.slot[1] = b.value_offset;
        return InPlaceForm::SlotPlusSlot;
    }
    if (is_scalar_slot_read(a) && is_constant(b)) {
        o.slot[0] = a.value_offset;
        o.constant = b.constants[0];
        return InPlaceForm::SlotPlusConstant;
    }
    if (is_constant(a) && is_scalar_slot_read(b)) {
        o.slot[0] = b.value_offset;
        o.constant = a.constants[0];
        return InPlaceForm::SlotPlusConstant;
    }
    return InPlaceForm::Node;
}

NodePtr Compiler::load(const Load *l) {
    int s = host_slot(*this, l->name, "Load from");
    if (s < 0) return make_thrower(l->type, "Interpreter: Load from '" + l->name + "', which is not bound");
    auto n = std::make_unique<Node>();
    n->type = l->type;
    n->lanes = l->type.lanes();
    n->name = l->name;
    n->slot = s;
    const bool scalar = l->type.is_scalar() && !l->predicate.defined();
    n->add_kid(expr(l->index));
    if (l->predicate.defined()) n->add_kid(expr(l->predicate));
    n->fn = scalar ? pick_scalar_load(in_place_form(l->index, *n->kids[0], true, n->in_place[0]), l->type, l->name)
                   : pick_memory<UseLoad>(l->type, l->name);
    return n;
}

namespace {

/** In lane `lane` of an atomic update of `name` (lower/LowerAtomics.h):
 * the Loads of name at the stored index become that lane's element, read
 * when the lane's Store runs. */
class LaneOfAtomicUpdate : public IRMutator {
public:
    LaneOfAtomicUpdate(const Store *st, int lane) : st_(st), lane_(lane) {}

protected:
    using IRMutator::visit;
    Expr visit(const Load *op) override {
        if (op->name != st_->name || op->type.is_scalar()) return IRMutator::visit(op);
        if (!equal(op->index, st_->index)) {
            fail("Interpreter: the atomic update of " + st_->name + " reads it elsewhere");
        }
        Expr element = Load::make(op->type.element_of(), op->name, Shuffle::make_extract_element(op->index, lane_),
                                  Expr(), op->param);
        return Broadcast::make(element, op->type.lanes());
    }

private:
    const Store *st_;
    int lane_;
};

}  // namespace

ExecPtr Compiler::store(const Store *st) {
    const Call *update = st->value.as<Call>();
    const bool atomic = update && update->is_intrinsic(intrinsic::atomic_update);
    // A vector atomic update: lanes may update one element, each after the
    // one before (the LLVM back end does one atomic operation per lane), so
    // each lane is an atomic update of its own.
    if (atomic && !st->value.type().is_scalar()) {
        std::vector<Stmt> lanes;
        for (int i = 0; i < st->value.type().lanes(); i++) {
            Expr value = LaneOfAtomicUpdate(st, i).mutate(update->args[0]);
            Expr lane = Call::make(st->value.type().element_of(), intrinsic::atomic_update,
                                   {Shuffle::make_extract_element(value, i)}, update->call_type);
            Expr pred = st->predicate.defined() ? Shuffle::make_extract_element(st->predicate, i) : Expr();
            lanes.push_back(Store::make(st->name, lane, Shuffle::make_extract_element(st->index, i), pred, st->param));
        }
        return stmt(Block::make(lanes));
    }
    if (st != shared_store_) {
        // LetStmts of the shared parts around a Store that needs no second pass.
        Stmt shared = share_store_subexpressions(st);
        Stmt inner = shared;
        while (const LetStmt *l = inner.as<LetStmt>()) inner = l->body;
        shared_store_ = inner.as<Store>();
        if (shared_store_ != st) return stmt(shared);
    }
    int s = host_slot(*this, st->name, "Store to");
    if (s < 0) fail("Interpreter: Store to '" + st->name + "', which is not bound");
    auto e = std::make_unique<Exec>();
    e->name = st->name;
    e->slot = s;
    e->type = st->value.type();
    const bool scalar = st->value.type().is_scalar() && !st->predicate.defined();
    e->add_expr(expr(st->value));
    e->add_expr(expr(st->index));
    if (st->predicate.defined()) e->add_expr(expr(st->predicate));
    if (e->exprs[0]->lanes != e->exprs[1]->lanes) fail("Interpreter: Store to '" + st->name + "': value and index lanes differ");
    if (atomic) {
        e->fn = pick_memory<UseAtomicStore>(st->value.type(), st->name);
    } else if (scalar) {
        const Operand value = in_place_form(st->value, *e->exprs[0], false, e->in_place[0]);
        const Operand index = in_place_form(st->index, *e->exprs[1], true, e->in_place[1]);
        e->fn = pick_scalar_store(value, index, st->value.type(), st->name);
    } else {
        e->fn = pick_memory<UseStore>(st->value.type(), st->name);
    }
    return e;
}

ExecPtr Compiler::allocate(const Allocate *a) {
    auto e = std::make_unique<Exec>();
    e->name = a->name;
    e->type = a->type;
    e->fn = exec_allocate;
    for (const Expr &x : a->extents) e->add_expr(expr(x));
    e->op = (int)a->extents.size();
    if (a->condition.defined()) e->add_expr(expr(a->condition));
    e->slot = bind(a->name, Handle());
    e->value_offset = slot(e->slot).offset;
    e->stmts.push_back(stmt(a->body));
    unbind(a->name);
    return e;
}

ExecPtr Compiler::free_stmt(const Free *fr) {
    int s = host_slot(*this, fr->name, "Free of");
    if (s < 0) fail("Interpreter: Free of '" + fr->name + "', which is not bound");
    auto e = std::make_unique<Exec>();
    e->name = fr->name;
    e->slot = s;
    e->fn = exec_free;
    return e;
}

void Compiler::handle_binding(const Expr &value, HandleBinding &binding) {
    if (const Call *c = value.as<Call>()) {
        if (c->is_intrinsic(intrinsic::buffer_get_host) && c->args.size() == 1) {
            binding.mode = HandleBinding::BufferHost;
            binding.buffer = expr(c->args[0]);
            return;
        }
    }
    if (const Variable *v = value.as<Variable>()) {
        int s = lookup(v->name);
        if (s >= 0) {
            binding.mode = HandleBinding::CopySlot;
            binding.from_slot = s;
            return;
        }
    }
    binding.mode = HandleBinding::Unknown;
}

void apply_handle_binding(HandleBinding &binding, Frame &f, int slot) {
    switch (binding.mode) {
    case HandleBinding::Unknown: f.regions[slot] = Region{}; return;
    case HandleBinding::CopySlot: f.regions[slot] = f.regions[binding.from_slot]; return;
    case HandleBinding::BufferHost: {
        Scalar b;
        binding.buffer->fn(*binding.buffer, f, &b);
        f.regions[slot] = region_of_buffer((const loom_buffer_t *)(uintptr_t)b.u);
        return;
    }
    }
}

}  // namespace interp
}  // namespace internal
}  // namespace loom
