// Common subexpressions of a Store for the interpreter (see InterpCore.h).
//
// Lowered code repeats itself: an update reads the element it writes
// (f[i] = min(f[i], g) computes i twice), and a vectorized guard or
// boundary condition names the same ramp(...) % broadcast(...) in its
// index, its condition and both of its values. Compiled code computes each
// once after LLVM's CSE; the interpreter computes each node as the IR says,
// so it shares them here, on its own copy of the IR: the value, index and
// predicate of a Store go through ir/CSE.h together, and what they share is
// computed once, in LetStmts before the Store.
//
// Only pure work is shared (CSE leaves calls with effects, and what
// contains one, in place), and the interpreter evaluates every operand of
// an expression anyway (both values of a Select, every lane of a Load that
// is not predicated off), so computing a shared part first changes no
// value. An atomic update keeps its form: its value must read the element
// under the element's lock (CompileMemory.cpp).

#include "ir/CSE.h"
#include "ir/interpreter/InterpCore.h"

namespace loom {
namespace internal {
namespace interp {

namespace {

// Holds a Store's operands while they go through CSE together; an impure
// intrinsic, so that CSE keeps it in place, with the lets around it.
const char *const kStoreOperands = "interp.store_operands";

}  // namespace

Stmt share_store_subexpressions(const Store *st) {
    const Call *update = st->value.as<Call>();
    if (update && update->is_intrinsic(intrinsic::atomic_update)) return Stmt(st);
    std::vector<Expr> operands = {st->value, st->index};
    if (st->predicate.defined()) operands.push_back(st->predicate);
    const Expr shared =
        common_subexpression_elimination(Call::make(Int(32), kStoreOperands, operands, CallType::Intrinsic));
    std::vector<const Let *> lets;  // nodes of `shared`, which keeps them alive
    Expr body = shared;
    while (const Let *l = body.as<Let>()) {
        lets.push_back(l);
        body = l->body;
    }
    const Call *bundle = body.as<Call>();
    if (lets.empty() || !bundle || bundle->name != kStoreOperands || bundle->args.size() != operands.size()) {
        return Stmt(st);
    }
    const Expr predicate = st->predicate.defined() ? bundle->args[2] : Expr();
    Stmt result = Store::make(st->name, bundle->args[0], bundle->args[1], predicate, st->param);
    for (auto it = lets.rbegin(); it != lets.rend(); ++it) result = LetStmt::make((*it)->name, (*it)->value, result);
    return result;
}

}  // namespace interp
}  // namespace internal
}  // namespace loom
