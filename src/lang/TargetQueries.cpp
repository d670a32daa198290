#include "loom/TargetQueries.h"

#include "ir/IR.h"
#include "loom/Error.h"

namespace loom {

namespace {

Expr query(Type t, const char *name, Expr arg = Expr()) {
    std::vector<Expr> args;
    if (arg.defined()) args.push_back(std::move(arg));
    return internal::Call::make(t, name, args, internal::CallType::PureIntrinsic);
}

}  // namespace

Expr target_arch_is(Target::Arch arch) { return query(Bool(), internal::intrinsic::target_arch_is, Expr((int)arch)); }

Expr target_os_is(Target::OS os) { return query(Bool(), internal::intrinsic::target_os_is, Expr((int)os)); }

Expr target_bits() { return query(Int(32), internal::intrinsic::target_bits); }

Expr target_has_feature(Target::Feature feature) {
    return query(Bool(), internal::intrinsic::target_has_feature, Expr((int)feature));
}

Expr target_natural_vector_size(Type t) {
    if (t.is_handle() || t.is_vector()) {
        throw CompileError("target_natural_vector_size(): " + t.to_string() + " is not a scalar number type.");
    }
    // The element's bits and kind, as natural_vector_size_for takes them.
    const int bits = t.is_bool() ? 8 : t.bits();  // a bool counts as a byte
    return query(Int(32), internal::intrinsic::target_natural_vector_size, Expr(bits * (t.is_float() ? -1 : 1)));
}

}  // namespace loom
