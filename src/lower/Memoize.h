#ifndef LOOM_LOWER_MEMOIZE_H
#define LOOM_LOWER_MEMOIZE_H

/** \file
 * Func::memoize(): the production of a memoized Func is skipped when the
 * process-wide cache (src/runtime/Memoization.c) holds its values for the
 * same key, and stored there after it runs:
 *
 *     realize f(bounds) {
 *       if (memoize_lookup("pipe:f:3", "f", bytes, key...) == 0) {
 *         produce f { ... }
 *         memoize_store("pipe:f:3", "f", bytes, has_eviction_key, eviction_key, key...)
 *       }
 *       consume f { ... }
 *     }
 *
 * The key is the realized region (min and extent per dimension), the
 * values of the scalar Params the Func depends on, directly or through the
 * Funcs it calls, the shape fields (b.min.d, b.extent.d, b.stride.d) of the
 * input buffers they read, and the key values of memoize_tag()s (whose
 * tagged values are not looked into), each as 64 bits; the identity string names the pipeline,
 * the Func and this compilation (a compiled pipeline never shares entries
 * with another compilation, whose definitions may differ). Tuple Funcs look
 * up and store each element's buffer under its own identity.
 *
 * Runs before storage flattening, which keeps each buffer's name
 * (storage_name). \throws CompileError when a memoized Func is an output,
 * is not compute_root (or its storage is folded), reads an input buffer's
 * contents outside memoize_tag() (ImageParam or Buffer: contents can't be
 * part of the key; Halide refuses ImageParams the same way), depends on a
 * handle Param, has a memoize_tag key value that reads a Var or a Func, or is
 * computed in GPU loops.
 */

#include <string>

#include "ir/IR.h"
#include "lower/Stages.h"

namespace loom {
namespace internal {

/** The intrinsics of this pass (Call type Intrinsic, result Int(32)):
 * memoize_lookup(StringImm id, StringImm buffer, Int(64) bytes, UInt(64)
 * key...) copies a cached entry into the buffer and returns 1, or returns 0;
 * memoize_store(StringImm id, StringImm buffer, Int(64) bytes, Int(32)
 * has_eviction_key, UInt(64) eviction_key, UInt(64) key...) stores the
 * buffer and returns 0. The back ends call loom_memoization_cache_lookup and
 * loom_memoization_cache_store with the key words in an array. */
constexpr const char *memoize_lookup_intrinsic = "memoize_lookup";
constexpr const char *memoize_store_intrinsic = "memoize_store";

/** memoize_tag(value, key values...) (loom/MemoizeTag.h), a PureIntrinsic
 * of value's type: value, with the cache key of a memoized Func that
 * depends on it made of the key values (of value itself when there are
 * none) instead of what value depends on. */
constexpr const char *memoize_tag_intrinsic = "memoize_tag";

/** Replaces each memoize_tag(value, ...) by value: run right after the loop
 * nest is built, so no later pass or back end sees the intrinsic (the
 * Memoize pass reads the tags from the Funcs' definitions). */
Stmt strip_memoize_tags(const Stmt &s);

Stmt memoize_realizations(const Stmt &s, const PipelineStages &pipeline, const std::string &pipeline_name);

}  // namespace internal
}  // namespace loom

#endif
