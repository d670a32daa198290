#ifndef LOOM_BOUNDARY_CONDITIONS_H
#define LOOM_BOUNDARY_CONDITIONS_H

/** \file
 * Boundary conditions: a Func equal to a source (a Func, Buffer or
 * ImageParam) inside a box, and defined everywhere outside it.
 *
 *     Func clamped = BoundaryConditions::repeat_edge(input);          // input's own bounds
 *     Func padded = BoundaryConditions::constant_exterior(f, 0, {{0, w}, {0, h}});
 *
 * Outside [min, min + extent) in a dimension:
 * - repeat_edge: the nearest edge value (coordinates are clamped);
 * - constant_exterior: a constant value;
 * - repeat_image: the image tiled (coordinates wrap around);
 * - mirror_image: reflected, the edge repeated once (... 1 0 | 0 1 2 ... 2 | 2 1 ...);
 * - mirror_interior: reflected about the edge, which is not repeated
 *   (... 2 1 | 0 1 2 ... 4 | 3 2 ...).
 * A bounds list shorter than the source's dimensions, or a dimension whose
 * min or extent is an undefined Expr, leaves those dimensions unmodified.
 * Buffer and ImageParam sources without bounds use their own bounds (read at
 * run time for an ImageParam).
 */

#include <utility>
#include <vector>

#include "loom/Buffer.h"
#include "loom/Expr.h"
#include "loom/Func.h"
#include "loom/ImageParam.h"
#include "loom/Range.h"
#include "loom/Tuple.h"

namespace loom {
namespace BoundaryConditions {

/** {min, extent} per dimension (loom/Range.h). */
using loom::Region;

Func repeat_edge(const Func &source, const Region &bounds);
Func repeat_edge(const ImageParam &source, const Region &bounds);
Func repeat_edge(const ImageParam &source);
Func repeat_edge(const Buffer<> &source, const Region &bounds);
Func repeat_edge(const Buffer<> &source);

Func constant_exterior(const Func &source, const Expr &value, const Region &bounds);
Func constant_exterior(const Func &source, const Tuple &value, const Region &bounds);
Func constant_exterior(const ImageParam &source, const Expr &value, const Region &bounds);
Func constant_exterior(const ImageParam &source, const Expr &value);
Func constant_exterior(const Buffer<> &source, const Expr &value, const Region &bounds);
Func constant_exterior(const Buffer<> &source, const Expr &value);

Func repeat_image(const Func &source, const Region &bounds);
Func repeat_image(const ImageParam &source, const Region &bounds);
Func repeat_image(const ImageParam &source);
Func repeat_image(const Buffer<> &source, const Region &bounds);
Func repeat_image(const Buffer<> &source);

Func mirror_image(const Func &source, const Region &bounds);
Func mirror_image(const ImageParam &source, const Region &bounds);
Func mirror_image(const ImageParam &source);
Func mirror_image(const Buffer<> &source, const Region &bounds);
Func mirror_image(const Buffer<> &source);

Func mirror_interior(const Func &source, const Region &bounds);
Func mirror_interior(const ImageParam &source, const Region &bounds);
Func mirror_interior(const ImageParam &source);
Func mirror_interior(const Buffer<> &source, const Region &bounds);
Func mirror_interior(const Buffer<> &source);

// Typed buffers convert to Buffer<> (these keep the overloads unambiguous).
template<typename T, int D, typename = std::enable_if_t<!std::is_void_v<T> || D != AnyDims>>
Func repeat_edge(const Buffer<T, D> &source) {
    return repeat_edge(Buffer<>(source));
}
template<typename T, int D, typename = std::enable_if_t<!std::is_void_v<T> || D != AnyDims>>
Func repeat_edge(const Buffer<T, D> &source, const Region &bounds) {
    return repeat_edge(Buffer<>(source), bounds);
}
template<typename T, int D, typename = std::enable_if_t<!std::is_void_v<T> || D != AnyDims>>
Func constant_exterior(const Buffer<T, D> &source, const Expr &value) {
    return constant_exterior(Buffer<>(source), value);
}
template<typename T, int D, typename = std::enable_if_t<!std::is_void_v<T> || D != AnyDims>>
Func constant_exterior(const Buffer<T, D> &source, const Expr &value, const Region &bounds) {
    return constant_exterior(Buffer<>(source), value, bounds);
}
template<typename T, int D, typename = std::enable_if_t<!std::is_void_v<T> || D != AnyDims>>
Func repeat_image(const Buffer<T, D> &source) {
    return repeat_image(Buffer<>(source));
}
template<typename T, int D, typename = std::enable_if_t<!std::is_void_v<T> || D != AnyDims>>
Func repeat_image(const Buffer<T, D> &source, const Region &bounds) {
    return repeat_image(Buffer<>(source), bounds);
}
template<typename T, int D, typename = std::enable_if_t<!std::is_void_v<T> || D != AnyDims>>
Func mirror_image(const Buffer<T, D> &source) {
    return mirror_image(Buffer<>(source));
}
template<typename T, int D, typename = std::enable_if_t<!std::is_void_v<T> || D != AnyDims>>
Func mirror_image(const Buffer<T, D> &source, const Region &bounds) {
    return mirror_image(Buffer<>(source), bounds);
}
template<typename T, int D, typename = std::enable_if_t<!std::is_void_v<T> || D != AnyDims>>
Func mirror_interior(const Buffer<T, D> &source) {
    return mirror_interior(Buffer<>(source));
}
template<typename T, int D, typename = std::enable_if_t<!std::is_void_v<T> || D != AnyDims>>
Func mirror_interior(const Buffer<T, D> &source, const Region &bounds) {
    return mirror_interior(Buffer<>(source), bounds);
}

}  // namespace BoundaryConditions
}  // namespace loom

#endif
