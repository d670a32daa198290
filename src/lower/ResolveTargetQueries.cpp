#include "lower/ResolveTargetQueries.h"

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "loom/Error.h"

namespace loom {
namespace internal {

namespace {

class Resolve : public IRMutator {
public:
    explicit Resolve(const Target &target) : target_(target) {}

protected:
    using IRMutator::visit;
    Expr visit(const Call *op) override {
        if (op->call_type != CallType::PureIntrinsic) return IRMutator::visit(op);
        auto arg = [&]() -> int64_t {
            auto v = op->args.size() == 1 ? as_const_int(op->args[0]) : std::nullopt;
            if (!v) throw InternalError(op->name + " without a constant argument");
            return *v;
        };
        if (op->name == intrinsic::target_arch_is) return make_bool(target_.arch == (Target::Arch)arg());
        if (op->name == intrinsic::target_os_is) return make_bool(target_.os == (Target::OS)arg());
        if (op->name == intrinsic::target_bits) return Expr(target_.bits);
        if (op->name == intrinsic::target_has_feature) {
            return make_bool(target_.has_feature((Target::Feature)arg()));
        }
        if (op->name == intrinsic::target_natural_vector_size) {
            const int64_t bits = arg();
            return Expr(target_.natural_vector_size_for((int)(bits < 0 ? -bits : bits), bits < 0));
        }
        return IRMutator::visit(op);
    }

private:
    static Expr make_bool(bool b) { return b ? const_true() : const_false(); }
    const Target &target_;
};

}  // namespace

Stmt resolve_target_queries(const Stmt &s, const Target &target) { return Resolve(target).mutate(s); }

}  // namespace internal
}  // namespace loom
