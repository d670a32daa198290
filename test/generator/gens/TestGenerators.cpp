#include "TestGenerators.h"

LOOM_REGISTER_GENERATOR(loom_test::Brighten, brighten)
LOOM_REGISTER_GENERATOR(loom_test::TypedAxpy, typed_axpy)
LOOM_REGISTER_GENERATOR(loom_test::TwoOutputs, two_outputs)
