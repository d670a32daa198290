#ifndef LOOM_MEMOIZE_TAG_H
#define LOOM_MEMOIZE_TAG_H

/** \file
 * memoize_tag(): say what the cache key of a memoized Func (Func::memoize)
 * is made of, as in Halide.
 *
 * A memoized Func is keyed by the region it computes and by the values of
 * the scalar Params it depends on, found automatically (directly or through
 * the Funcs it calls), and by the shape fields (min, extent, stride) of the
 * input buffers it reads. ImageParam contents can't be keyed (a Buffer read
 * directly is a constant, as in Halide): an ImageParam read in a memoized Func
 * is a CompileError unless it is inside memoize_tag(value, tags...), which keys
 * the cache on the tags instead of on anything `value` depends on:
 *
 *     Param<int> frame("frame");   // changes whenever `input` does
 *     blurred(x, y) = memoize_tag(input(x, y) / 2, frame);
 *     blurred.compute_root().memoize();
 *
 * Such a cache is only as right as its tags: a run with the same tags reuses
 * the cached values even if the buffer's contents changed. memoize_tag(value)
 * alone keys on the value itself (computed where the key is made), for
 * instance a float Param quantized to an integer: memoize_tag(cast<int>(p)).
 * Tags and that value may depend only on Params and buffer shapes (not on
 * Vars or Func values): the key is made before the Func is computed.
 *
 * Outside a memoized Func's dependencies memoize_tag(value, ...) is value.
 */

#include <type_traits>
#include <utility>
#include <vector>

#include "loom/Expr.h"
#include "loom/Tuple.h"

namespace loom {

/** value, with the memoization cache keyed on cache_key_values instead of on
 * what value depends on (on value itself when the list is empty). */
Expr memoize_tag(const Expr &value, const std::vector<Expr> &cache_key_values = {});

/** Each element tagged with the same keys. */
Tuple memoize_tag(const Tuple &value, const std::vector<Expr> &cache_key_values = {});

/** memoize_tag(value, tag1, tag2, ...): the tags are Exprs or anything that
 * converts to one (a Param, a number). */
template<typename First, typename... Rest,
         typename = std::enable_if_t<!std::is_convertible_v<First, std::vector<Expr>>>>
Expr memoize_tag(const Expr &value, First &&first, Rest &&...rest) {
    return memoize_tag(value, std::vector<Expr>{Expr(std::forward<First>(first)), Expr(std::forward<Rest>(rest))...});
}

template<typename First, typename... Rest,
         typename = std::enable_if_t<!std::is_convertible_v<First, std::vector<Expr>>>>
Tuple memoize_tag(const Tuple &value, First &&first, Rest &&...rest) {
    return memoize_tag(value, std::vector<Expr>{Expr(std::forward<First>(first)), Expr(std::forward<Rest>(rest))...});
}

}  // namespace loom

#endif
