// The bilateral grid as a Loom generator:
// int bilateral_grid(loom_buffer_t *input, float r_sigma, loom_buffer_t *output), float (x, y).
#include <loom/Generator.h>

#include "bilateral_grid_algorithm.h"

namespace {

class BilateralGridGenerator : public loom::Generator<BilateralGridGenerator> {
public:
    GeneratorParam<int> s_sigma{"s_sigma", 8, 1, 64};
    Input<Buffer<float>> input{"input", 2};
    Input<float> r_sigma{"r_sigma", 0.1f, 0.01f, 1.0f};
    Output<Buffer<float>> output{"output", 2};

    void generate() {
        grid_ = apps::define_bilateral_grid(input, input.width(), input.height(), s_sigma, r_sigma, output);
    }
    void schedule() { apps::schedule_bilateral_grid(grid_); }

private:
    apps::BilateralGrid grid_;
};

}  // namespace

LOOM_REGISTER_GENERATOR(BilateralGridGenerator, bilateral_grid)
