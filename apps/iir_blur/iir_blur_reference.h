// The plain C++ IIR blur: the same recurrences and the same operation order
// as the Loom pipeline (columns forwards and backwards, then rows).
#ifndef LOOM_APPS_IIR_BLUR_REFERENCE_H
#define LOOM_APPS_IIR_BLUR_REFERENCE_H

#include <loom/runtime/Buffer.h>

namespace apps {

/** Blurs input (width, height, channels; dense, mins 0) into output. */
void iir_blur_reference(const loom::Runtime::Buffer<float> &input, float alpha,
                        loom::Runtime::Buffer<float> &output);

}  // namespace apps

#endif
