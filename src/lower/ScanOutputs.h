#ifndef LOOM_LOWER_SCAN_OUTPUTS_H
#define LOOM_LOWER_SCAN_OUTPUTS_H

/** \file
 * Scan outputs: an output Func bounded along one of its dimensions by an
 * RDom's trip count, `rows.bound(i, 0, r.trip_count())`, holds one row per
 * iteration of r's loop. Its buffer is the loop's capacity: the loop over
 * r's outermost RVar also stops once the buffer is full, so no row is ever
 * written outside it and no loop-carried storage is sized beyond it. After
 * the run the buffer's extent along that dimension is the trip count: the
 * output is cropped to the rows that ran. Func::realize() without sizes
 * grows the buffer geometrically on top of this (lang/ScanRealize.h).
 */

#include <map>
#include <string>
#include <vector>

#include "ir/Function.h"
#include "ir/IR.h"

namespace loom {
namespace internal {

struct PipelineStages;

/** A dimension of an output Func whose bound's extent is a trip count. */
struct ScanDimension {
    FunctionPtr func;
    int dim = 0;
    Expr min;                       // the bound's min
    std::string trip_count_buffer;  // the RDom's (RDom::trip_count)
    FunctionPtr loop_func;          // the Func whose update loops over the RDom
};

/** The scan dimensions of the outputs, in output and dimension order.
 * \throws CompileError for a Func with two scan dimensions. */
std::vector<ScanDimension> find_scan_dimensions(const std::vector<FunctionPtr> &outputs);

/** For each trip-count buffer of a scan dimension, the loop's capacity: the
 * smallest extent of the scan outputs' buffers along their scan dimension
 * (a symbol of the output buffer, "rows.extent.0"). */
std::map<std::string, Expr> scan_loop_capacities(const std::vector<FunctionPtr> &outputs);

/** After each scan output is produced, sets its buffers' min and extent
 * along the scan dimension to the bound's min and the trip count. Runs
 * before lower_loop_exits, which lowers the trip_count reads. */
Stmt crop_scan_outputs(const Stmt &s, const PipelineStages &pipeline);

}  // namespace internal
}  // namespace loom

#endif
