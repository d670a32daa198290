// The plain C++ local Laplacian filter: the same pyramids, interpolation
// and colour reconstruction as the Loom pipeline, one plane at a time.
#ifndef LOOM_APPS_LOCAL_LAPLACIAN_REFERENCE_H
#define LOOM_APPS_LOCAL_LAPLACIAN_REFERENCE_H

#include <cstdint>

#include <loom/runtime/Buffer.h>

namespace apps {

/** Filters input (width, height, 3; dense, mins 0) into output. */
void local_laplacian_reference(const loom::Runtime::Buffer<uint16_t> &input, int levels, float alpha, float beta,
                               loom::Runtime::Buffer<uint16_t> &output);

}  // namespace apps

#endif
