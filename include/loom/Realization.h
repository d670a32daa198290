#ifndef LOOM_REALIZATION_H
#define LOOM_REALIZATION_H

/** \file
 * Realization: the buffers a realize() produced (or should fill), one per
 * output Func and Tuple element.
 *
 *     Realization r = f.realize({10, 10});   // f(x, y) = {a, b}
 *     Buffer<int> a = r[0];
 *     Buffer<float> b = r[1];
 *     Buffer<int> only = g.realize({10});    // one buffer: converts directly
 *
 * Converting to Buffer<T> needs exactly one buffer of element type T, else
 * CompileError.
 */

#include <cstddef>
#include <string>
#include <vector>

#include "loom/Buffer.h"

namespace loom {

namespace internal {
[[noreturn]] void throw_realization_not_single(const std::string &origin, size_t size);
}

class Realization {
public:
    explicit Realization(const std::vector<Buffer<>> &buffers, const std::string &origin = "")
        : buffers_(buffers), origin_(origin) {}
    template<typename T, int D, typename... Rest>
    Realization(const Buffer<T, D> &first, const Rest &...rest) : buffers_{Buffer<>(first), Buffer<>(rest)...} {}

    size_t size() const { return buffers_.size(); }
    Buffer<> &operator[](size_t i) { return buffers_.at(i); }
    const Buffer<> &operator[](size_t i) const { return buffers_.at(i); }
    const std::vector<Buffer<>> &as_vector() const { return buffers_; }

    /** The single buffer. \throws CompileError if there are several, or its
     * element type is not T. */
    template<typename T, int D>
    operator Buffer<T, D>() const {
        if (buffers_.size() != 1) internal::throw_realization_not_single(origin_, buffers_.size());
        return Buffer<T, D>(buffers_[0]);
    }

private:
    std::vector<Buffer<>> buffers_;
    std::string origin_;  // e.g. "realize of f", for error messages
};

}  // namespace loom

#endif
