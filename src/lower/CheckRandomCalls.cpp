#include "lower/CheckRandomCalls.h"

#include "ir/IRVisitor.h"
#include "loom/Error.h"

namespace loom {
namespace internal {

namespace {

class FindRandom : public IRVisitor {
public:
    bool found = false;

protected:
    using IRVisitor::visit;
    void visit(const Call *op) override {
        if (op->is_intrinsic(intrinsic::random)) found = true;
        IRVisitor::visit(op);
    }
};

}  // namespace

void check_random_calls_resolved(const Stmt &s, const std::vector<GPUKernel> &kernels) {
    FindRandom finder;
    s.accept(&finder);
    for (const GPUKernel &k : kernels) k.body.accept(&finder);
    if (!finder.found) return;
    throw CompileError("random_float(), random_int() and random_uint() draw one value per point of a Func, so they "
                       "can only be used in a Func's definition (pure or update). This pipeline uses one elsewhere: "
                       "in an RDom's bounds, a bound(), a buffer constraint or a specialize() condition. Compute "
                       "the random value in a Func and read it there.");
}

}  // namespace internal
}  // namespace loom
