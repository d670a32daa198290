// The blur as a Loom generator: int blur(loom_buffer_t *input, loom_buffer_t *output),
// both uint16 (x, y).
#include <loom/Generator.h>

#include "blur_algorithm.h"

namespace {

class BlurGenerator : public loom::Generator<BlurGenerator> {
public:
    GeneratorParam<int> tile_width{"tile_width", 256, 16, 4096};
    Input<Buffer<uint16_t>> input{"input", 2};
    Output<Buffer<uint16_t>> output{"output", 2};

    void generate() { blur_ = apps::define_blur(input, input.width(), input.height(), output); }
    // A target with a GPU API (x86-64-linux-vulkan) gets the GPU schedule.
    void schedule() {
        if (get_target().has_gpu_feature()) {
            apps::schedule_blur_gpu(blur_);
        } else {
            apps::schedule_blur(blur_, tile_width);
        }
    }

private:
    apps::Blur blur_;
};

}  // namespace

LOOM_REGISTER_GENERATOR(BlurGenerator, blur)
