#ifndef LOOM_AOT_AOT_ARGUMENTS_H
#define LOOM_AOT_AOT_ARGUMENTS_H

/** \file
 * The argument list of an ahead-of-time compiled pipeline: checks what the
 * user gave to compile_to_* (function name, arguments) and lowers the
 * pipeline with the arguments in the user's order, outputs last.
 *
 * Lowering itself orders arguments by name (Lower.h). The lowered body refers
 * to arguments by name only ("<name>" for scalars, "<name>.buffer" for
 * buffers), so the order is a property of the LoweredFunc's argument list
 * alone: lower_for_aot reorders that list, adds the arguments the user listed
 * but the pipeline does not use, and leaves the body as it is. The JIT keeps
 * lowering's order.
 */

#include <string>
#include <vector>

#include "ir/Function.h"
#include "ir/LoweredFunc.h"
#include "loom/Argument.h"
#include "loom/Target.h"

namespace loom {
namespace internal {

/** [A-Za-z_][A-Za-z0-9_]*, and not a C or C++ keyword. */
bool is_c_identifier(const std::string &name);

/** name with every character outside [A-Za-z0-9_] replaced by '_' (and a '_'
 * in front of a leading digit): "f.0" -> "f_0". */
std::string c_safe_name(const std::string &name);

/** \throws CompileError unless fn_name can name the generated C function
 * (a C identifier, not starting with the runtime's prefix "loom_"). `what`
 * names the call for the message ("compile_to_object"). */
void check_function_name(const std::string &fn_name, const std::string &what);

/** The public description (loom/Argument.h) of a lowered function's
 * argument: Callable::arguments() and Module::functions() give these. */
Argument public_argument(const LoweredArgument &a);

/** Lowers `outputs` into a function named fn_name whose arguments are `args`
 * in order, followed by one output buffer per output and Tuple element.
 * \throws CompileError naming the Param/ImageParam/Buffer and the function if
 * the pipeline uses an input missing from args; if two arguments (or an
 * argument and an output) share a name; if an argument is undefined or is an
 * output; if a scalar argument has a type C cannot pass (Float(16)); or for
 * any error lowering reports. loop_nest, if set, receives the loop nest
 * before unrolling and vectorization (LowerOptions::loop_nest). embedded,
 * if set, receives the concrete Buffers (not ImageParams) the pipeline
 * reads that args does not list, which are then no arguments and no error:
 * the caller binds each NAME.buffer itself (Halide embeds such Buffers). */
LoweredFunc lower_for_aot(const std::vector<FunctionPtr> &outputs, const std::vector<Argument> &args,
                          const std::string &fn_name, const Target &target, const std::string &what,
                          Stmt *loop_nest = nullptr, std::vector<LoweredArgument> *embedded = nullptr);

}  // namespace internal
}  // namespace loom

#endif
