#ifndef LOOM_LOWER_LOOP_NEST_H
#define LOOM_LOWER_LOOP_NEST_H

/** \file
 * The text of print_loop_nest(): the scheduled loop nest without bounds or
 * arithmetic, e.g.
 *
 *     produce blur_x:
 *       for y:
 *         for x:
 *           blur_x(...) = ...
 *     consume blur_x:
 *       produce blur_y:
 *         parallel for y:
 *           vectorized for x:
 *             blur_y(...) = ...
 */

#include <string>

#include "ir/IR.h"

namespace loom {
namespace internal {

std::string describe_loop_nest(const Stmt &s);

}  // namespace internal
}  // namespace loom

#endif
