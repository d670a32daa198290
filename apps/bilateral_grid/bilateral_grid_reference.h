// The plain C++ bilateral grid: the same splat, blurs and slice as the Loom
// pipeline, in the same order of floating-point operations.
#ifndef LOOM_APPS_BILATERAL_GRID_REFERENCE_H
#define LOOM_APPS_BILATERAL_GRID_REFERENCE_H

#include <loom/runtime/Buffer.h>

namespace apps {

/** Filters input (width x height, dense, mins 0) into output. */
void bilateral_grid_reference(const loom::Runtime::Buffer<float> &input, int s_sigma, float r_sigma,
                              loom::Runtime::Buffer<float> &output);

}  // namespace apps

#endif
