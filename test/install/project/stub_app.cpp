// Uses scale_offset through its generator stub (scale_offset.stub.h, written
// by loom_add_stub) in a JIT pipeline of its own, against a plain C++ loop:
// the installed loom/GeneratorStub.h, the stub emit and the registry.
#include <cstdio>

#include <loom/Loom.h>

#include "scale_offset.stub.h"

int main() {
    loom::Var x("x"), y("y");
    loom::Func ramp("ramp");
    ramp(x, y) = x * 5 - y;
    loom_stub::scale_offset::Inputs in;
    in.input = ramp;
    in.scale = 4;
    loom_stub::scale_offset::GeneratorParams params;
    params.offset = 3;
    loom::Func out = loom_stub::scale_offset::generate(loom::GeneratorContext(), in, params).output;
    loom::Buffer<int32_t> result = out.realize({37, 5});
    for (int j = 0; j < 5; j++) {
        for (int i = 0; i < 37; i++) {
            const int32_t expected = (i * 5 - j) * 4 + 3 + j;
            if (result(i, j) != expected) {
                std::printf("at (%d, %d): expected %d, got %d\n", i, j, expected, result(i, j));
                return 1;
            }
        }
    }
    std::printf("stub: 37 x 5 values match\n");
    return 0;
}
