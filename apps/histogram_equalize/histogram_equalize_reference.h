// The plain C++ histogram equalization, with the same integer formula as the
// Loom pipeline.
#ifndef LOOM_APPS_HISTOGRAM_EQUALIZE_REFERENCE_H
#define LOOM_APPS_HISTOGRAM_EQUALIZE_REFERENCE_H

#include <cstdint>

#include <loom/runtime/Buffer.h>

namespace apps {

/** Equalizes input (width x height, dense, mins 0) into output. */
void histogram_equalize_reference(const loom::Runtime::Buffer<uint8_t> &input,
                                  loom::Runtime::Buffer<uint8_t> &output);

}  // namespace apps

#endif
