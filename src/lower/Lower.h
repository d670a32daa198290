#ifndef LOOM_LOWER_LOWER_H
#define LOOM_LOWER_LOWER_H

/** \file
 * lower(): turns the Funcs of a pipeline into one LoweredFunc, by running the
 * passes of src/lower in order (each pass is a file with one entry point; the
 * list in Lower.cpp is the whole story).
 *
 * Arguments of the result, in order: the scalar Params and input buffers
 * (ImageParams, and Buffers used directly by the algorithm) sorted by name,
 * then one output buffer per output Func and Tuple element, in the order of
 * `outputs`. An output with one value is named after its Func ("f"); Tuple
 * elements are named "f.0", "f.1", ...
 */

#include <string>
#include <vector>

#include "ir/Function.h"
#include "ir/LoweredFunc.h"
#include "loom/Target.h"

namespace loom {
namespace internal {

/** Switches of lower() that the schedule does not express. */
struct LowerOptions {
    /** Move every loop nest that admits it onto the GPU (map_loops_to_gpu):
     * the GPU conformance mode of the JIT's tests (lang/Backend.h). */
    bool map_loops_to_gpu = false;
    /** If set, receives the loop nest after loop partitioning and before
     * unrolling and vectorization, when every loop still has its kind
     * (the stmt_html page shows it). */
    Stmt *loop_nest = nullptr;
};

/** \throws CompileError for pipelines the user got wrong (undefined Funcs,
 * regions bounds inference cannot size, ...), naming the Func. */
LoweredFunc lower(const std::vector<FunctionPtr> &outputs, const std::string &pipeline_name, const Target &target,
                  const LowerOptions &options = {});

/** The scheduled loop nest of the pipeline as text, for print_loop_nest():
 * which Func is produced where, and each loop with its kind. */
std::string loop_nest_text(const std::vector<FunctionPtr> &outputs, const Target &target);

}  // namespace internal
}  // namespace loom

#endif
