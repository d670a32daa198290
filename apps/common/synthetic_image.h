// The apps' deterministic synthetic RGB picture (the test image, and the
// input of the benchmarks at larger sizes): smooth gradients (blurs,
// bilateral grid), hard edges and a disc (edge-preserving filters), fine
// stripes of rising frequency (local Laplacian detail), a low-contrast
// background (histogram equalization) and a little noise.
#ifndef LOOM_APPS_SYNTHETIC_IMAGE_H
#define LOOM_APPS_SYNTHETIC_IMAGE_H

#include <cstdint>

#include <loom/runtime/Buffer.h>

namespace apps {

/** A width x height x 3 image, the same bytes on every platform. */
loom::Runtime::Buffer<uint8_t> synthetic_image(int width, int height);

}  // namespace apps

#endif
