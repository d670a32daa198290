#include "lower/BoundSmallAllocations.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/Scope.h"
#include "lower/LoopNames.h"

namespace loom {
namespace internal {

namespace {

// The code generator's limits for entry-block allocas (CodeGen_LLVM_Memory.cpp).
constexpr int64_t kMaxAutoBytes = 16 * 1024;
constexpr int64_t kMaxStackBytes = 64 * 1024;

class BoundSmallAllocations : public IRMutator {
protected:
    using IRMutator::visit;

    Stmt visit(const LetStmt *op) override {
        ScopedBinding<Expr> bind(lets_, op->name, op->value);
        return IRMutator::visit(op);
    }

    Stmt visit(const Allocate *op) override {
        Stmt body = mutate(op->body);
        auto bounded = constant_extents(op);
        if (body.same_as(op->body) && !bounded) return op;
        return Allocate::make(op->name, op->type, op->memory_type, bounded ? *bounded : op->extents, op->condition,
                              body);
    }

private:
    /** The extents, each a constant upper bound of the original, when some
     * is not a constant and the bounded size fits the stack. */
    std::optional<std::vector<Expr>> constant_extents(const Allocate *op) {
        int64_t limit = 0;
        if (op->memory_type == MemoryType::Auto) limit = kMaxAutoBytes;
        if (op->memory_type == MemoryType::Stack || op->memory_type == MemoryType::Register) limit = kMaxStackBytes;
        if (limit == 0) return std::nullopt;
        bool varies = false;
        int64_t bytes = int64_t(op->type.bytes()) * op->type.lanes();
        std::vector<Expr> bounded;
        for (const Expr &e : op->extents) {
            Expr c = as_const_int(e) ? e : constant_upper_bound(e, lets_);
            auto n = c.defined() ? as_const_int(c) : std::nullopt;
            if (!n) return std::nullopt;
            varies |= !as_const_int(e);
            // A bound below 1 (an iteration that computes nothing) still
            // allocates one element, as the code generator does.
            const int64_t size = std::max<int64_t>(*n, 1);
            if (bytes > limit / size) return std::nullopt;
            bytes *= size;
            bounded.push_back(make_const(e.type(), size));
        }
        if (!varies) return std::nullopt;
        return bounded;
    }

    Scope<Expr> lets_;
};

}  // namespace

Stmt bound_small_allocations(const Stmt &s) { return BoundSmallAllocations().mutate(s); }

}  // namespace internal
}  // namespace loom
