#ifndef LOOM_LANG_UNIQUE_NAME_H
#define LOOM_LANG_UNIQUE_NAME_H

/** \file
 * Names for things the user did not name: "v0", "v1"... for Vars, "f<N>"
 * for Funcs, "r<N>" for RDoms, "p<N>" for Params and ImageParams, "b<N>"
 * for Buffers. One counter per prefix, process-wide and thread-safe.
 */

#include <memory>
#include <string>

namespace loom {
namespace internal {

std::string unique_name(char prefix);

/** A Func's name, unique among the live Funcs: `requested` itself when no
 * live Func holds it, otherwise requested + "_1", "_2", ... (the first
 * free one), so that two Funcs the programmer named alike stay two Funcs
 * in a pipeline. The name is held until the returned lease is destroyed;
 * *lease is the name. With exact, the name is requested itself even if
 * another live Func holds it (a Generator's Output, whose name is part of
 * the generated interface; each generator builds its own pipeline), and
 * later requests still avoid it. Thread-safe. */
std::shared_ptr<const std::string> lease_func_name(const std::string &requested, bool exact = false);

/** While one of these lives on a thread, exact requests on that thread are
 * made unique like the others: a generator created for a stub
 * (loom/GeneratorStub.h) joins its caller's pipeline, where its Outputs'
 * names must not clash with the caller's Funcs. */
class UniqueExactFuncNames {
public:
    UniqueExactFuncNames();
    ~UniqueExactFuncNames();
    UniqueExactFuncNames(const UniqueExactFuncNames &) = delete;
    UniqueExactFuncNames &operator=(const UniqueExactFuncNames &) = delete;
};

}  // namespace internal
}  // namespace loom

#endif
