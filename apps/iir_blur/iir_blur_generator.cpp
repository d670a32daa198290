// The IIR blur as a Loom generator:
// int iir_blur(loom_buffer_t *input, float alpha, loom_buffer_t *output), float (x, y, c).
#include <loom/Generator.h>

#include "iir_blur_algorithm.h"

namespace {

class IirBlurGenerator : public loom::Generator<IirBlurGenerator> {
public:
    Input<Buffer<float>> input{"input", 3};
    Input<float> alpha{"alpha", 0.75f, 0.0f, 0.999f};
    Output<Buffer<float>> output{"output", 3};

    void generate() { blur_ = apps::define_iir_blur(input, input.width(), input.height(), alpha, output); }
    void schedule() { apps::schedule_iir_blur(blur_, natural_vector_size<float>()); }

private:
    apps::IirBlur blur_;
};

}  // namespace

LOOM_REGISTER_GENERATOR(IirBlurGenerator, iir_blur)
