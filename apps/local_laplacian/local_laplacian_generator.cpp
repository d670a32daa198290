// The local Laplacian filter as a Loom generator:
// int local_laplacian(loom_buffer_t *input, float alpha, float beta, loom_buffer_t *output),
// uint16 (x, y, c) with 3 channels.
#include <loom/Generator.h>

#include "local_laplacian_algorithm.h"

namespace {

class LocalLaplacianGenerator : public loom::Generator<LocalLaplacianGenerator> {
public:
    GeneratorParam<int> levels{"levels", 8, 2, 16};
    Input<Buffer<uint16_t>> input{"input", 3};
    Input<float> alpha{"alpha", 1.0f, 0.0f, 10.0f};
    Input<float> beta{"beta", 1.0f, 0.0f, 2.0f};
    Output<Buffer<uint16_t>> output{"output", 3};

    void generate() {
        filter_ = apps::define_local_laplacian(input, input.width(), input.height(), levels, alpha, beta, output);
    }
    void schedule() { apps::schedule_local_laplacian(filter_); }

private:
    apps::LocalLaplacian filter_;
};

}  // namespace

LOOM_REGISTER_GENERATOR(LocalLaplacianGenerator, local_laplacian)
