#ifndef LOOM_ERROR_H
#define LOOM_ERROR_H

/** \file
 * The three kinds of error Loom raises.
 *
 * - CompileError: the user's program is wrong (an undefined Func, a bad
 *   schedule, a buffer of the wrong type...). The message names the Func, Var,
 *   RDom or buffer and says what to do.
 * - RuntimeError: a compiled pipeline refused to run (e.g. an input buffer is
 *   smaller than the region the pipeline reads). Nothing was read or written
 *   out of bounds.
 * - InternalError: a broken invariant inside Loom; please report it.
 */

#include <stdexcept>
#include <string>

namespace loom {

struct Error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct CompileError : Error {
    using Error::Error;
};

struct RuntimeError : Error {
    using Error::Error;
};

struct InternalError : Error {
    using Error::Error;
};

}  // namespace loom

#endif
