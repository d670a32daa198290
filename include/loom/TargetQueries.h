#ifndef LOOM_TARGET_QUERIES_H
#define LOOM_TARGET_QUERIES_H

/** \file
 * Exprs that ask about the Target a pipeline is compiled for, resolved when
 * it is lowered (as in Halide): one algorithm, specialised per target.
 *
 *     f(x) = select(target_has_feature(Target::AVX512), fast(x), portable(x));
 *     f.vectorize(x, target_natural_vector_size<float>());
 *
 * Each is an Expr until lowering, where it becomes a constant: a Bool for
 * the *_is and has_feature queries, an Int(32) for target_bits and
 * target_natural_vector_size.
 */

#include "loom/Expr.h"
#include "loom/Target.h"
#include "loom/Type.h"

namespace loom {

Expr target_arch_is(Target::Arch arch);
Expr target_os_is(Target::OS os);
Expr target_bits();
Expr target_has_feature(Target::Feature feature);
Expr target_natural_vector_size(Type t);
template<typename T>
Expr target_natural_vector_size() {
    return target_natural_vector_size(type_of<T>());
}

}  // namespace loom

#endif
