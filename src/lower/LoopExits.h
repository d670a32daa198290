#ifndef LOOM_LOWER_LOOP_EXITS_H
#define LOOM_LOWER_LOOP_EXITS_H

/** \file
 * Loops that stop early (RDom::loop_while) and trip counts
 * (RDom::trip_count), after storage flattening.
 *
 * Until here such a loop is an ordinary serial For, so bounds inference,
 * compute_at and storage folding treat it like any other; its body starts
 * with the marker Evaluate(loop_while(condition, trip-count buffer)). This
 * pass makes it a While loop that tests the condition before each
 * iteration and ends at the first false value:
 *
 *     allocate r.next[int32 * 1]
 *     r.next[0] = min
 *     while (r.next[0] < min + extent) {
 *       let r = r.next[0]
 *       if (condition) { body; r.next[0] = r + 1; trip_count[0] = r - min + 1 }
 *       else { r.next[0] = min + extent }        // the exit: nothing more runs
 *     }
 *
 * Every trip-count buffer is a one-element allocation around the whole
 * pipeline, set to 0 at its start; the loops write it (set_trip_count before
 * a loop without a condition), and each read of RDom::trip_count() becomes a
 * load of it at the point of the read.
 */

#include "ir/IR.h"

namespace loom {
namespace internal {

/** \throws InternalError for a marker that is not the first statement of a
 * serial loop. */
Stmt lower_loop_exits(const Stmt &s);

/** Whether s is the loop_while marker (placed by build_stage_loop_nest; the
 * Funcs computed in the loop go after it). */
bool is_loop_exit_marker(const Stmt &s);

}  // namespace internal
}  // namespace loom

#endif
