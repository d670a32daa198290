// Lesson 24: the autoscheduler.
//
// Every lesson so far wrote its schedule by hand. Loom can also write one:
// give the outputs and inputs a typical size (an estimate), name an
// autoscheduler, and it chooses which Funcs to inline and which to compute
// at root, how to tile, which loop to vectorize and which to run in
// parallel. It applies that schedule and returns it as C++ source, which
// you can paste into your program and improve by hand.
//
//   f.set_estimates({{0, w}, {0, h}})            a typical region of an output
//   in.dim(d).set_estimate(min, extent)          a typical size of an input
//   p.apply_autoscheduler(target, {"LoomHeuristic"})           (Halide 16's call)
//   p.auto_schedule(target, MachineParams::generic())          (Halide 14's call)
//
// Halide's autoscheduler names (Mullapudi2016, Adams2019, Li2018,
// Anderson2021) select Loom's heuristic too, so Halide programs port. In a
// generator, the GeneratorParam autoscheduler=LoomHeuristic does the same
// after schedule(); docs/AUTOSCHEDULER.md has the rules it follows.

#include <algorithm>
#include <cstdio>

#include <loom/Loom.h>

using namespace loom;

int main() {
    int mismatches = 0;

    // A 3x3 box blur with a clamped edge, and a brightness curve after it.
    ImageParam in(UInt(8), 2, "in");
    Var x("x"), y("y");
    Func clamped = BoundaryConditions::repeat_edge(in);
    Func blur_x("blur_x"), blur_y("blur_y"), curve("curve");
    blur_x(x, y) = cast<uint16_t>(clamped(x - 1, y)) + clamped(x, y) + clamped(x + 1, y);
    blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 9;
    curve(x, y) = cast<uint8_t>(min(blur_y(x, y) * 3 / 2, 255));

    // 1. Estimates. The autoscheduler plans for a typical size; the schedule
    //    stays correct for every size (its tiles guard their edges).
    in.dim(0).set_estimate(0, 1920);
    in.dim(1).set_estimate(0, 1080);
    curve.set_estimates({{0, 1920}, {0, 1080}});

    // 2. Autoschedule. A fixed target makes the printed schedule the same on
    //    every machine; the JIT still compiles for this one.
    Pipeline p(curve);
    AutoSchedulerResults result = p.apply_autoscheduler(Target("x86-64-linux-avx2"), {"LoomHeuristic"});
    std::printf("The schedule it chose:\n%s\n", result.schedule_source.c_str());
    // Its cost model (docs/AUTOSCHEDULER.md) counts operations and cache
    // lines. The clamp is a mere read and blur_y is used once at the same
    // point, so both are inlined into curve, the output, which is tiled,
    // vectorized and run in parallel. blur_x is read at three rows by every
    // pixel; at the root its 4 MB would go through memory, and three adds of
    // bytes done three times a pixel in curve's 32 lanes cost less than
    // storing and reloading it per tile in 16-bit lanes, so it is inlined
    // too. (A dearer producer is computed per tile: compute_at.)
    if (result.schedule_source.find("    curve\n        .tile(") == std::string::npos ||
        result.schedule_source.find(".parallel(") == std::string::npos ||
        result.schedule_source.find(".vectorize(") == std::string::npos) {
        std::printf("unexpected schedule\n");
        mismatches++;
    }

    // 3. Run it on an image of another size than the estimate, and check it
    //    against plain C++.
    const int W = 203, H = 97;
    Buffer<uint8_t> image(W, H);
    image.fill([](int i, int j) { return uint8_t((i * 7 + j * 13) % 256); });
    in.set(image);
    Buffer<uint8_t> out = p.realize({W, H});
    auto at = [&](int i, int j) { return int(image(std::clamp(i, 0, W - 1), std::clamp(j, 0, H - 1))); };
    for (int j = 0; j < H; j++) {
        for (int i = 0; i < W; i++) {
            auto row = [&](int jj) { return at(i - 1, jj) + at(i, jj) + at(i + 1, jj); };
            int expected = std::min((row(j - 1) + row(j) + row(j + 1)) / 9 * 3 / 2, 255);
            if (out(i, j) != expected && mismatches++ < 5) {
                std::printf("mismatch at (%d, %d): %d instead of %d\n", i, j, out(i, j), expected);
            }
        }
    }

    // 4. A pipeline is autoscheduled once, and never on top of a schedule
    //    written by hand (Halide refuses partial schedules too).
    try {
        p.apply_autoscheduler(Target("x86-64-linux-avx2"), {"LoomHeuristic"});
        std::printf("a second autoscheduling was accepted\n");
        mismatches++;
    } catch (const CompileError &e) {
        std::printf("A second autoscheduling is refused:\n  %s\n", e.what());
    }

    std::printf(mismatches ? "FAILED\n" : "Success!\n");
    return mismatches ? 1 : 0;
}
