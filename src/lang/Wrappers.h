#ifndef LOOM_LANG_WRAPPERS_H
#define LOOM_LANG_WRAPPERS_H

/** \file
 * Func::in and Func::clone_in (and ImageParam::in, the same for reads of an
 * input): the calls of some consumers to a Func f go to
 * another Func instead, either a wrapper (w(x) = f(x), scheduled on its own)
 * or a clone (f's definitions and schedule, copied). The redirection is done
 * eagerly on the consumers' definitions, and on every definition added later
 * (define_pure / define_update call redirect_to_wrappers), so lowering sees
 * ordinary calls.
 */

#include <functional>
#include <vector>

#include "ir/Function.h"

namespace loom {
class Func;

namespace internal {

/** The wrapper of f that consumers (all of them if empty) call instead of f;
 * made the first time and returned again afterwards.
 * \throws CompileError (see Func::in in include/loom/Func.h). */
Func wrapper_of(const Func &f, const std::vector<Func> &consumers, bool clone);

/** ImageParam::in: the wrapper of the input that consumers (all of them if
 * empty, later ones too) read instead of it; made (named, registered, then
 * defined by `define`) the first time and returned again afterwards.
 * \throws CompileError (see ImageParam::in in include/loom/ImageParam.h). */
Func image_wrapper_of(const Parameter &input, const std::vector<Func> &consumers,
                      const std::function<void(Func &)> &define);

/** exprs with each call to a Func that has a wrapper for consumer (or a
 * global one) redirected to that wrapper. */
std::vector<Expr> redirect_to_wrappers(const FunctionContents &consumer, const std::vector<Expr> &exprs);

}  // namespace internal
}  // namespace loom

#endif
