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
