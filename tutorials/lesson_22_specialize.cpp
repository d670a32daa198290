// Lesson 22: specializations (Stage::specialize) and buffer layout
// constraints (ImageParam::dim(d).set_stride and friends).
//
// One schedule does not fit every input. A row of 10000 pixels wants wide
// vectors; a row of 3 wants none. A planar image is contiguous along x and
// can be read with dense vector loads; an interleaved RGB image has its
// channels next to each other, so x steps by 3. Loom compiles a pipeline
// before it sees the buffers, so it must be told which cases to prepare for.
//
//   f.specialize(cond)       a copy of f's loop nest that runs when cond
//                            holds, with a schedule of its own
//   f.specialize_fail(msg)   "none of the specializations matched" is an
//                            error with this message
//   in.dim(d).set_stride(s)  the buffers `in` accepts have stride s in d
//                            (also set_min, set_extent, set_bounds)
//
// A condition may read only what is known when the stage starts: Params and
// the shape of buffers (in.dim(0).stride(), f.output_buffer().dim(0).extent()).

#include <cstdio>

#include <loom/Loom.h>

using namespace loom;

int main() {
    Var x("x"), y("y"), c("c");
    int mismatches = 0;

    // 1. Buffers meet constraints. By default (Halide's rule) every buffer
    //    passed to a pipeline must be dense along dimension 0, so the code
    //    indexes x with stride 1. An interleaved image breaks that rule:
    ImageParam rgb(UInt(8), 3, "rgb");
    Func brighter("brighter");
    brighter(x, y, c) = cast<uint8_t>(min(cast<int>(rgb(x, y, c)) + 40, 255));

    const int W = 40, H = 6;
    Buffer<uint8_t> planar(W, H, 3);
    Buffer<uint8_t> interleaved = Buffer<uint8_t>::make_interleaved(W, H, 3);
    planar.fill([](int i, int j, int k) { return uint8_t(i * 5 + j * 11 + k * 60); });
    interleaved.copy_from(planar);
    std::printf("planar stride(0) = %d, interleaved stride(0) = %d\n", planar.stride(0), interleaved.stride(0));

    rgb.set(interleaved);
    try {
        brighter.realize({W, H, 3});
        std::printf("1. an interleaved input was accepted, which the default constraint forbids\n");
        mismatches++;
    } catch (const RuntimeError &e) {
        std::printf("1. refused, as expected:\n   %s\n", e.what());
    }

    // 2. Lift the constraint (an undefined Expr removes it): every layout is
    //    accepted, and x is indexed with the buffer's own stride. Then
    //    specialize on the stride: when it is 1 (planar), the stage runs a
    //    copy of its loops vectorized over x, where Loom knows the stride is
    //    1 and loads 16 pixels at once. Otherwise the general loops run.
    rgb.dim(0).set_stride(Expr());
    brighter.specialize(rgb.dim(0).stride() == 1).vectorize(x, 16);
    std::printf("\n2. the loop nest, with the specialization first:\n");
    brighter.print_loop_nest();

    auto check = [&](const Buffer<uint8_t> &input, const Buffer<uint8_t> &out) {
        out.for_each_element([&](int i, int j, int k) {
            int expected = std::min(input(i, j, k) + 40, 255);
            mismatches += out(i, j, k) != expected;
        });
    };
    for (const Buffer<uint8_t> &input : {planar, interleaved}) {
        rgb.set(input);
        Buffer<uint8_t> out = brighter.realize({W, H, 3});
        check(input, out);
    }
    std::printf("   planar and interleaved inputs both give the right pixels\n");

    // 3. Several specializations are tried in order; the first whose
    //    condition holds runs. specialize_fail turns "none matched" into an
    //    error instead of running the general schedule.
    Param<int> tile("tile");
    Func blur("blur");
    Func clamped = BoundaryConditions::repeat_edge(planar);
    Expr left = cast<int>(clamped(x - 1, y, c)), mid = cast<int>(clamped(x, y, c)), right = cast<int>(clamped(x + 1, y, c));
    blur(x, y, c) = cast<uint8_t>((left + mid * 2 + right) / 4);
    blur.specialize(tile >= 16).vectorize(x, 16);
    blur.specialize(tile >= 4).vectorize(x, 4);
    blur.specialize_fail("tile must be at least 4");
    for (int t : {32, 8, 2}) {
        tile.set(t);
        try {
            Buffer<uint8_t> out = blur.realize({W, H, 3});
            out.for_each_element([&](int i, int j, int k) {
                auto at = [&](int xx) { return (int)planar(std::min(std::max(xx, 0), W - 1), j, k); };
                mismatches += out(i, j, k) != (at(i - 1) + at(i) * 2 + at(i + 1)) / 4;
            });
            std::printf("3. tile = %2d: ran\n", t);
        } catch (const RuntimeError &e) {
            std::printf("3. tile = %2d: %s\n", t, e.what());
            mismatches += t >= 4;  // only the small tile may fail
        }
    }

    // 4. Constraints also tell the compiler what it may assume. Fixing the
    //    output's width makes the loop over x a constant 40 iterations; a
    //    buffer of another width is refused before anything is written.
    Func gradient("gradient");
    gradient(x, y) = x + y * 100;
    gradient.output_buffer().dim(0).set_bounds(0, W);
    Buffer<int> ok = gradient.realize({W, H});
    ok.for_each_element([&](int i, int j) { mismatches += ok(i, j) != i + j * 100; });
    try {
        gradient.realize({W + 1, H});
        mismatches++;
    } catch (const RuntimeError &e) {
        std::printf("\n4. %s\n", e.what());
    }

    if (mismatches) {
        std::printf("%d mismatches\n", mismatches);
        return 1;
    }
    std::printf("Success!\n");
    return 0;
}
