#ifndef LOOM_AOT_STMT_HTML_H
#define LOOM_AOT_STMT_HTML_H

/** \file
 * The stmt_html output (compile_to_lowered_stmt(..., HTML), the generator
 * driver's `-e stmt_html`): one self-contained HTML page, no scripts or styles
 * fetched from elsewhere, with
 *  - the loop nest before unrolling and vectorization, where each loop still
 *    has its kind (serial, parallel, vectorized, unrolled, gpu_block,
 *    gpu_thread) and each allocation its size;
 *  - the lowered program as it is compiled, and each GPU kernel;
 *  - the assembly it became.
 * Loops, allocations, produce/consume nodes and ifs are <details> elements,
 * so the browser collapses and expands them without any script. Each loop
 * links to the first assembly label of its body (LLVM keeps the basic-block
 * names Loom gives loops, `<loop>.loop`, in the assembly's comments; a
 * parallel loop's body is the function `<pipeline>.par_for.<loop>`); loops
 * that LLVM unrolled or vectorized away link to the enclosing loop's label.
 */

#include <string>

#include "ir/IR.h"
#include "ir/LoweredFunc.h"

namespace loom {
namespace internal {

/** The page for pipeline f. loop_nest: the statement LowerOptions::loop_nest
 * captured while lowering f; assembly: the assembly of f's host code (may be
 * empty, then the page has no assembly pane and no links). */
std::string stmt_html(const LoweredFunc &f, const Stmt &loop_nest, const std::string &assembly);

}  // namespace internal
}  // namespace loom

#endif
