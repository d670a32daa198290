// Histogram equalization as a Loom generator:
// int histogram_equalize(loom_buffer_t *input, loom_buffer_t *output), uint8 (x, y).
#include <loom/Generator.h>

#include "histogram_equalize_algorithm.h"

namespace {

class HistogramEqualizeGenerator : public loom::Generator<HistogramEqualizeGenerator> {
public:
    Input<Buffer<uint8_t>> input{"input", 2};
    Output<Buffer<uint8_t>> output{"output", 2};

    void generate() {
        equalize_ = apps::define_histogram_equalize(input, input.width(), input.height(), output);
    }
    void schedule() { apps::schedule_histogram_equalize(equalize_); }

private:
    apps::HistogramEqualize equalize_;
};

}  // namespace

LOOM_REGISTER_GENERATOR(HistogramEqualizeGenerator, histogram_equalize)
