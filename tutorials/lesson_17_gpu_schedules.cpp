// Lesson 17: running stages on a GPU through Vulkan.
//
// A GPU runs a kernel as a grid of workgroups, each a small block of
// invocations that can share memory. In Loom (as in Halide) a schedule maps
// loops onto that grid:
//
//   gpu_tile(x, y, xi, yi, 16, 8)   split x and y; the outer loops become the
//                                   grid of workgroups, xi and yi the 16x8
//                                   invocations of each workgroup
//   gpu_blocks(x) / gpu_threads(x)  mark loops you split yourself
//   compute_at(f, x) at a block loop  the producer lives in the workgroup's
//                                   shared memory
//
// The target must name the GPU API: "host-vulkan" is the CPU running this
// program plus the Vulkan device found at run time (Mesa's lavapipe, a CPU
// implementation of Vulkan, runs this lesson on a machine without a GPU).
// Stages without GPU loops stay on the CPU; Loom copies buffers between the
// host and the device as the stages need them.

#include <cstdio>

#include <loom/Loom.h>

using namespace loom;

int main() {
    const int width = 96, height = 64;
    Buffer<uint16_t> input(width, height);
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) input(x, y) = uint16_t((x * 37 + y * 101) % 1024);
    }

    Var x("x"), y("y"), xi("xi"), yi("yi");
    Func clamped = BoundaryConditions::repeat_edge(input);
    Func blur_x("blur_x"), blur_y("blur_y");
    blur_x(x, y) = (clamped(x - 1, y) + clamped(x, y) + clamped(x + 1, y)) / 3;
    blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3;

    // Both stages on the GPU: blur_x into device memory (it never visits the
    // host), then blur_y, 16x8 invocations per workgroup.
    blur_x.compute_root().gpu_tile(x, y, xi, yi, 16, 8);
    blur_y.gpu_tile(x, y, xi, yi, 16, 8);
    blur_y.print_loop_nest();

    Target target("host-vulkan");
    std::printf("target: %s\n", target.to_string().c_str());
    Buffer<uint16_t> out;
    try {
        out = blur_y.realize({width, height}, target);
    } catch (const RuntimeError &e) {
        // No Vulkan device at all: say what to install.
        std::printf("could not run on Vulkan: %s\n", e.what());
        return 1;
    }

    // The same blur as plain C++ loops.
    auto in = [&](int i, int j) {
        i = i < 0 ? 0 : i >= width ? width - 1 : i;
        j = j < 0 ? 0 : j >= height ? height - 1 : j;
        return int(input(i, j));
    };
    auto bx = [&](int i, int j) { return uint16_t((in(i - 1, j) + in(i, j) + in(i + 1, j)) / 3); };
    int mismatches = 0;
    for (int j = 0; j < height; j++) {
        for (int i = 0; i < width; i++) {
            uint16_t expected = uint16_t((bx(i, j - 1) + bx(i, j) + bx(i, j + 1)) / 3);
            if (out(i, j) != expected) mismatches++;
        }
    }
    std::printf("%d of %d pixels differ from the C++ reference\n", mismatches, width * height);
    return mismatches == 0 ? 0 : 1;
}
