// output(x, y) = input(x, y) * scale + offset + y, with a vectorized schedule.
#include <loom/Generator.h>

class ScaleOffset : public loom::Generator<ScaleOffset> {
public:
    GeneratorParam<int> offset{"offset", 0};
    Input<Buffer<int32_t>> input{"input", 2};
    Input<int32_t> scale{"scale", 1};
    Output<Buffer<int32_t>> output{"output", 2};

    void generate() { output(x, y) = input(x, y) * scale + offset + y; }
    void schedule() { output.vectorize(x, natural_vector_size<int32_t>()); }

private:
    Var x{"x"}, y{"y"};
};

LOOM_REGISTER_GENERATOR(ScaleOffset, scale_offset)
