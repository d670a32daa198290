#ifndef LOOM_LOWER_EXTERN_STAGES_H
#define LOOM_LOWER_EXTERN_STAGES_H

/** \file
 * Extern stages (Func::define_extern): a Func computed by a C function.
 *
 * The front end gives such a Func a pure definition whose value (one per
 * Tuple element) is a placeholder, Call(extern_stage, StringImm symbol,
 * argument...), where each argument is
 * - for a Func input g: Call(extern_func_arg, g.k(min corner), g.k(max
 *   corner), ... for each Tuple element k), the corners being Variables
 *   "<f>.extern.<i>.<k>.min.<d>" / ".max.<d>" (i: the argument's index) that
 *   the bounds query defines. They make g a producer of f for ordering and
 *   bounds inference: f reads the box between the corners;
 * - for a Buffer or ImageParam: Variable(Handle, "<name>.buffer", param);
 * - for an Expr: the Expr.
 *
 * Lowering: schedule_functions builds f's loops as for any Func (their
 * Provides size f's storage); bounds inference adds, with f's bounds, the
 * lets of extern_bounds_query (a call of the function with null-host
 * buffers for the Func inputs, whose answers define the corners); then
 * lower_extern_stages replaces f's produce body by the call on f's storage
 * and its inputs' storage, with a check of its result.
 */

#include <string>
#include <utility>
#include <vector>

#include "ir/Function.h"
#include "ir/IR.h"

namespace loom {
namespace internal {

struct PipelineStages;
struct Stage;

namespace intrinsic {
/** (StringImm symbol, argument...) -> the element's type: the placeholder
 * value of an extern stage (see above). Never reaches code generation. */
constexpr const char *extern_stage = "extern_stage";
/** (g.0(min corner), g.0(max corner), g.1(...), ...) -> Handle: a Func
 * argument of extern_stage. */
constexpr const char *extern_func_arg = "extern_func_arg";
/** (host Handle, UInt(8) type code, UInt(8) bits, Int(32) element offset,
 * then min, extent, stride of each dimension) -> Handle: a loom_buffer_t on
 * the stack with host = host + offset elements (null stays null), no device
 * and no flags. Not pure: each call is its own struct. */
constexpr const char *extern_make_buffer = "extern_make_buffer";
/** (buffer Handle, dimension) -> Int(32): dim[d].min / dim[d].extent of an
 * extern_make_buffer struct, read after the C function set it (unlike
 * buffer_get_min, which reads fields that never change). */
constexpr const char *extern_buffer_min = "extern_buffer_min";
constexpr const char *extern_buffer_extent = "extern_buffer_extent";
}  // namespace intrinsic

/** The placeholder Call of an extern Func (value 0), or nullptr. */
const Call *extern_placeholder(const FunctionContents &f);
inline bool is_extern_function(const FunctionContents &f) { return extern_placeholder(f) != nullptr; }

/** The placeholder value of Tuple element `type` of an extern stage named
 * func_name: see the file comment. args: one Expr per argument as above,
 * built by the front end. */
Expr make_extern_placeholder(Type type, const std::string &symbol, const std::vector<Expr> &args);

/** Name of a corner Variable of Func argument `arg`, Tuple element `element`. */
std::string extern_corner_name(const std::string &func, int arg, int element, bool is_min, int dim);

/** The schedules around extern stages are ones Loom can run.
 * \throws CompileError naming the Funcs when an extern stage has updates,
 * its own loops are scheduled (split, reorder, vectorize, parallel, ...),
 * it is inlined, folded or stored away from where it is computed, another
 * Func is computed at one of its loops, or a Func input of it is inlined,
 * folded or stored away from where it is computed. */
void check_extern_stages(const std::vector<FunctionPtr> &outputs);

/** The bounds query of extern stage s, as lets to place after the lets of
 * its computed region ("<f>.s0.<x>.min/.max"): they call the function with
 * null-host buffers for its Func inputs and define the corner Variables
 * from its answer (the pipeline returns the function's error code if it
 * fails). Empty when the stage has no Func input. */
std::vector<std::pair<std::string, Expr>> extern_bounds_query(const PipelineStages &p, const Stage &s);

/** Whether e calls an extern stage's function or builds one of its
 * buffers: a let of such a value must stay a let (its value runs once, in
 * order), never be substituted into the expressions that use it. */
bool is_extern_bounds_query(const Expr &e);

/** Replaces the produce body of each extern stage by the call of its
 * function on its storage (the region computed) and its inputs' storage. */
Stmt lower_extern_stages(const Stmt &s, const PipelineStages &p);

}  // namespace internal
}  // namespace loom

#endif
