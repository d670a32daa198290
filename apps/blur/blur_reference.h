// The plain C++ blur the Loom pipeline is checked and measured against: the
// same arithmetic (32-bit sums, integer division, repeated edges).
#ifndef LOOM_APPS_BLUR_REFERENCE_H
#define LOOM_APPS_BLUR_REFERENCE_H

#include <cstdint>

#include <loom/runtime/Buffer.h>

namespace apps {

/** Blurs input (width x height, dense) into output of the same shape. */
void blur_reference(const loom::Runtime::Buffer<uint16_t> &input, loom::Runtime::Buffer<uint16_t> &output);

}  // namespace apps

#endif
