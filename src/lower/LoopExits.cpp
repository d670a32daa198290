#include "lower/LoopExits.h"

#include <set>

#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "loom/Error.h"

namespace loom {
namespace internal {

namespace {

const Call *marker_call(const Stmt &s, const char *which) {
    const Evaluate *e = s.as<Evaluate>();
    const Call *c = e ? e->value.as<Call>() : nullptr;
    return c && c->is_intrinsic(which) ? c : nullptr;
}

std::string buffer_name(const Call *c, size_t arg) {
    const StringImm *s = arg < c->args.size() ? c->args[arg].as<StringImm>() : nullptr;
    if (!s) throw InternalError(std::string("lower_loop_exits: ") + c->name + " without a buffer name");
    return s->value;
}

Stmt store_int(const std::string &buffer, Expr value) { return Store::make(buffer, std::move(value), Expr(0)); }
Expr load_int(const std::string &buffer) { return Load::make(Int(32), buffer, Expr(0)); }

class LowerLoopExits : public IRMutator {
public:
    std::set<std::string> trip_count_buffers;

protected:
    using IRMutator::visit;

    Expr visit(const Call *op) override {
        if (!op->is_intrinsic(intrinsic::trip_count)) return IRMutator::visit(op);
        const std::string buffer = buffer_name(op, 0);
        trip_count_buffers.insert(buffer);
        return load_int(buffer);
    }

    Stmt visit(const Evaluate *op) override {
        if (const Call *set = marker_call(op, intrinsic::set_trip_count)) {
            const std::string buffer = buffer_name(set, 0);
            trip_count_buffers.insert(buffer);
            return store_int(buffer, mutate(set->args.at(1)));
        }
        if (marker_call(op, intrinsic::loop_while)) {
            throw InternalError("lower_loop_exits: a loop_while marker outside the head of a loop");
        }
        return IRMutator::visit(op);
    }

    Stmt visit(const For *op) override {
        const Block *b = op->body.as<Block>();
        const Call *marker = b ? marker_call(b->first, intrinsic::loop_while) : nullptr;
        if (!marker) return IRMutator::visit(op);
        if (op->for_type != ForType::Serial) {
            throw InternalError("lower_loop_exits: loop " + op->name + " has an exit but is not serial");
        }
        const std::string next = op->name + ".next", end = op->name + ".end";
        const std::string trip_count = buffer_name(marker, 1);
        Expr condition = mutate(marker->args.at(0));
        Stmt body = mutate(b->rest);
        Expr r = Variable::make(Int(32), op->name), min = Variable::make(Int(32), op->name + ".min");
        Stmt advance = store_int(next, Add::make(r, Expr(1)));
        if (!trip_count.empty()) {
            trip_count_buffers.insert(trip_count);
            advance = Block::make(advance, store_int(trip_count, Add::make(Sub::make(r, min), Expr(1))));
        }
        Stmt iteration = IfThenElse::make(condition, Block::make(body, advance),
                                          store_int(next, Variable::make(Int(32), end)));
        Stmt loop = While::make(LT::make(load_int(next), Variable::make(Int(32), end)),
                                LetStmt::make(op->name, load_int(next), iteration));
        Stmt s = Block::make(store_int(next, min), loop);
        if (!trip_count.empty()) s = Block::make(store_int(trip_count, 0), s);
        s = Allocate::make(next, Int(32), MemoryType::Stack, {Expr(1)}, Expr(), s);
        s = LetStmt::make(end, Add::make(min, mutate(op->extent)), s);
        return LetStmt::make(op->name + ".min", mutate(op->min), s);
    }
};

}  // namespace

bool is_loop_exit_marker(const Stmt &s) { return marker_call(s, intrinsic::loop_while) != nullptr; }

Stmt lower_loop_exits(const Stmt &s) {
    LowerLoopExits pass;
    Stmt result = pass.mutate(s);
    // Each trip count lives for the whole pipeline and reads 0 until a loop
    // sets it.
    for (const std::string &buffer : pass.trip_count_buffers) {
        result = Allocate::make(buffer, Int(32), MemoryType::Stack, {Expr(1)}, Expr(),
                                Block::make(store_int(buffer, 0), result));
    }
    return result;
}

}  // namespace internal
}  // namespace loom
