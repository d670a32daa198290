#ifndef LOOM_LOWER_RESOLVE_TARGET_QUERIES_H
#define LOOM_LOWER_RESOLVE_TARGET_QUERIES_H

/** \file
 * The target queries (loom/TargetQueries.h: target_arch_is, target_os_is,
 * target_bits, target_has_feature, target_natural_vector_size) become
 * constants for the Target the pipeline is compiled for. Run wherever a
 * pass may have copied a definition's Exprs into the statement (after
 * schedule_functions, bounds inference and the buffer arguments).
 */

#include "ir/IR.h"
#include "loom/Target.h"

namespace loom {
namespace internal {

Stmt resolve_target_queries(const Stmt &s, const Target &target);

}  // namespace internal
}  // namespace loom

#endif
