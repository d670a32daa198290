#ifndef LOOM_ARGUMENT_H
#define LOOM_ARGUMENT_H

/** \file
 * Argument: one parameter of an ahead-of-time compiled pipeline, in the order
 * the generated C function takes it.
 *
 *     Param<float> gain("gain");
 *     ImageParam input(UInt(8), 2, "input");
 *     brighter.compile_to_static_library("brighter", {input, gain}, "brighter");
 *     // int brighter(struct loom_buffer_t *input, float gain, struct loom_buffer_t *brighter);
 *
 * The pipeline's outputs always come last, one buffer per output (and Tuple
 * element). Every Param and ImageParam the pipeline uses must be in the list;
 * listing one it does not use is allowed (the function simply ignores it).
 */

#include <string>

#include "loom/Type.h"
#include "loom/internal/Parameter.h"

namespace loom {

template<typename T>
class Param;
class ImageParam;
template<typename T, int Dims>
class Buffer;

struct Argument {
    enum Kind { InputScalar, InputBuffer, OutputBuffer };

    std::string name;
    Kind kind = InputScalar;
    Type type;           // the scalar's type, or a buffer's element type
    int dimensions = 0;  // buffers only
    internal::Parameter param;

    Argument() = default;
    /** From any Param<T>, ImageParam or Buffer (their parameter()). */
    Argument(const internal::Parameter &p)
        : name(p.name()), kind(p.is_buffer() ? InputBuffer : InputScalar), type(p.type()),
          dimensions(p.dimensions()), param(p) {}
    template<typename T>
    Argument(const Param<T> &p) : Argument(p.parameter()) {}
    Argument(const ImageParam &p);
    template<typename T, int D>
    Argument(const Buffer<T, D> &b) : Argument(b.parameter()) {}

    bool is_buffer() const { return kind != InputScalar; }
    bool is_input() const { return kind != OutputBuffer; }
};

}  // namespace loom

#endif
