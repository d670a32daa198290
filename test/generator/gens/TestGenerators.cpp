#include "TestGenerators.h"

LOOM_REGISTER_GENERATOR(loom_test::Brighten, brighten)
LOOM_REGISTER_GENERATOR(loom_test::TypedAxpy, typed_axpy)
// With a stub name (Halide's third argument): -e cpp_stub writes class loom_test_stubs::TwoOutputsStub.
HALIDE_REGISTER_GENERATOR(loom_test::TwoOutputs, two_outputs, loom_test_stubs::TwoOutputsStub)

#include "FuncIOGenerators.h"

LOOM_REGISTER_GENERATOR(loom_test::FuncInputs, func_inputs)
LOOM_REGISTER_GENERATOR(loom_test::ArraySum, array_sum)
LOOM_REGISTER_GENERATOR(loom_test::Configured, configured)
LOOM_REGISTER_GENERATOR(loom_test::OpenBuffers, open_buffers)

#include <chrono>
#include <thread>

namespace loom_test {

/** out(x) = in(x) + 1, after generate() has slept sleep_ms milliseconds:
 * a generator slower than the driver's -t limit (GeneratorDriverTest). */
class SlowGenerate : public loom::Generator<SlowGenerate> {
public:
    GeneratorParam<int> sleep_ms{"sleep_ms", 0, 0, 600000};
    Input<Buffer<int32_t>> in{"in", 1};
    Output<Buffer<int32_t>> out{"out", 1};

    void generate() {
        std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms.value()));
        out(x) = in(x) + 1;
    }

    loom::Var x{"x"};
};

}  // namespace loom_test

LOOM_REGISTER_GENERATOR(loom_test::SlowGenerate, slow_generate)
