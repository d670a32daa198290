#ifndef LOOM_LANG_POINT_DEPENDENCE_H
#define LOOM_LANG_POINT_DEPENDENCE_H

/** \file
 * Whether an Expr is known before a pipeline runs: buffer constraints
 * (loom/Dimension.h) and specialization conditions (Stage::specialize) may
 * use only constants, Params and buffer fields.
 */

#include <string>

#include "ir/IR.h"

namespace loom {
namespace internal {

/** The first thing e reads that varies per point or is computed by the
 * pipeline, in words ("a call of Func 'f'", "the variable 'x'"), or "" if
 * there is none. */
std::string point_dependence(const Expr &e);

}  // namespace internal
}  // namespace loom

#endif
