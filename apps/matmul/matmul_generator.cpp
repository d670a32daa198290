// The matrix product as a Loom generator:
// int matmul(loom_buffer_t *a, loom_buffer_t *b, loom_buffer_t *output), float (column, row).
#include <loom/Generator.h>

#include "matmul_algorithm.h"

namespace {

class MatmulGenerator : public loom::Generator<MatmulGenerator> {
public:
    Input<Buffer<float>> a{"a", 2};
    Input<Buffer<float>> b{"b", 2};
    Output<Buffer<float>> output{"output", 2};

    void generate() { matmul_ = apps::define_matmul(a, b, a.width(), a.height(), b.width(), output); }
    void schedule() { apps::schedule_matmul(matmul_, natural_vector_size<float>()); }

private:
    apps::Matmul matmul_;
};

}  // namespace

LOOM_REGISTER_GENERATOR(MatmulGenerator, matmul)
