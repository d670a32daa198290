// modulus_remainder: the alignment part of the simplifier's ExprInfo
// analysis (ir/simplify/Simplify_Info.cpp), for code outside the simplifier.

#include "ir/ModulusRemainder.h"

#include "ir/simplify/SimplifyInternal.h"

namespace loom {
namespace internal {

using simplify_impl::ExprInfo;
using simplify_impl::Simplifier;

ModulusRemainder modulus_remainder(const Expr &e, const Scope<ModulusRemainder> &scope) {
    if (!e.defined() || !e.type().is_int_or_uint()) return ModulusRemainder();
    Simplifier analysis{Scope<Interval>()};
    scope.for_each([&](const std::string &name, const ModulusRemainder &mr) {
        ExprInfo info;
        info.modulus = mr.modulus < 0 ? -mr.modulus : mr.modulus;
        info.remainder = mr.remainder;
        if (info.modulus == 0) {
            info = ExprInfo::constant(mr.remainder);
        } else {
            info.remainder = simplify_impl::euclid_mod(mr.remainder, info.modulus);
        }
        analysis.push_var(name, info, Interval(), Expr(), /*is_fact=*/true);
    });
    ExprInfo info = analysis.info_of(e);
    return ModulusRemainder{info.modulus, info.remainder};
}

}  // namespace internal
}  // namespace loom
