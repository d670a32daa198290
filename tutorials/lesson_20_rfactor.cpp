// Lesson 20: parallel and vectorized reductions with rfactor.
//
// An update over an RDom is a serial loop: total() += in(r.x, r.y) writes
// total() in every iteration, so its RVars can't be parallelized or
// vectorized. When the update is associative (+, *, min, max, &&, ||, or an
// argmin/argmax Tuple), Stage::rfactor splits it in two:
//
//   Func intm = total.update().rfactor(r.y, u);
//   intm(u)   = 0;  intm(u) += in(r.x, u)          partial sums, one per row u
//   total()   = total() + intm(r.y)                the merge, over r.y
//
// The intermediate is an ordinary Func whose new Var u can be parallelized
// or vectorized.

#include <cstdint>
#include <cstdio>
#include <vector>

#include <loom/Loom.h>

using namespace loom;

int main() {
    const int W = 256, H = 128;
    Buffer<uint8_t> image(W, H);
    image.for_each_element([&](const std::vector<int> &p) { image(p) = (uint8_t)((p[0] * 7 + p[1] * 13) % 251); });
    int mismatches = 0;

    // 1. A sum, parallel over rows: each thread sums one row into intm(u),
    //    then the merge adds the H partial sums.
    {
        RDom r(0, W, 0, H, "r");
        Var u("u");
        Func total("total");
        total() = 0;
        total() += cast<int>(image(r.x, r.y));
        Func intm = total.update().rfactor(r.y, u);
        intm.compute_root().update().parallel(u);
        std::printf("1. sum, parallel over rows:\n");
        total.print_loop_nest();

        int expected = 0;
        image.for_each_element([&](const std::vector<int> &p) { expected += image(p); });
        int got = Buffer<int>(total.realize())();
        std::printf("   sum = %d (expected %d)\n", got, expected);
        mismatches += got != expected;
    }

    // 2. The same sum, vectorized: preserve the inner RVar r.x instead, so
    //    intm(u) is the sum of column u; 8 columns at a time form one vector.
    {
        RDom r(0, W, 0, H, "r");
        Var u("u"), uo("uo"), ui("ui");
        Func total("total");
        total() = 0;
        total() += cast<int>(image(r.x, r.y));
        Func intm = total.update().rfactor(r.x, u);
        intm.compute_root().vectorize(u, 8);
        intm.update().split(u, uo, ui, 8).reorder(ui, r.y, uo).vectorize(ui);
        std::printf("\n2. sum, vectorized over columns:\n");
        total.print_loop_nest();

        int expected = 0;
        image.for_each_element([&](const std::vector<int> &p) { expected += image(p); });
        int got = Buffer<int>(total.realize())();
        std::printf("   sum = %d (expected %d)\n", got, expected);
        mismatches += got != expected;
    }

    // 3. A histogram: the left-hand side scatters, and rfactor still applies.
    //    intm(bin, u) is the histogram of row u; the merge adds them up.
    {
        RDom r(0, W, 0, H, "r");
        Var bin("bin"), u("u");
        Func hist("hist");
        hist(bin) = 0;
        hist(cast<int>(image(r.x, r.y))) += 1;
        Func intm = hist.update().rfactor(r.y, u);
        intm.compute_root().update().parallel(u);
        hist.update().vectorize(bin, 8);  // the merge is data parallel over bins

        std::vector<int> expected(256, 0);
        image.for_each_element([&](const std::vector<int> &p) { expected[image(p)]++; });
        Buffer<int> got = hist.realize({256});
        int wrong = 0;
        for (int b = 0; b < 256; b++) wrong += got(b) != expected[b];
        std::printf("\n3. histogram: %d of 256 bins wrong; bin 0 holds %d\n", wrong, got(0));
        mismatches += wrong;
    }

    // 4. The histogram per 8x8 tile: an associative and commutative update
    //    may visit its RVars in any order, so they can be tiled first; the
    //    tile's outer RVars become the intermediate's Vars (u, v).
    {
        RDom r(0, W, 0, H, "r");
        Var bin("bin"), u("u"), v("v");
        RVar rxo("rxo"), ryo("ryo"), rxi("rxi"), ryi("ryi");
        Func hist("hist");
        hist(bin) = 0;
        hist(cast<int>(image(r.x, r.y))) += 1;
        hist.update().tile(r.x, r.y, rxo, ryo, rxi, ryi, 8, 8);
        Func intm = hist.update().rfactor({{rxo, u}, {ryo, v}});
        intm.compute_root().update().parallel(v);

        std::vector<int> expected(256, 0);
        image.for_each_element([&](const std::vector<int> &p) { expected[image(p)]++; });
        Buffer<int> got = hist.realize({256});
        int wrong = 0;
        for (int b = 0; b < 256; b++) wrong += got(b) != expected[b];
        std::printf("\n4. histogram of %d x %d tiles of 8 x 8 (%s has %d dimensions): %d bins wrong\n", W / 8,
                    H / 8, intm.name().c_str(), intm.dimensions(), wrong);
        mismatches += wrong;
    }

    // 5. What rfactor refuses: an update that is not associative.
    {
        RDom r(0, W, "r");
        Var u("u");
        Func decay("decay");
        decay() = 0.0f;
        decay() = decay() * 0.5f + cast<float>(image(r, 0));
        try {
            decay.update().rfactor(r, u);
            std::printf("\n5. expected a CompileError\n");
            mismatches++;
        } catch (const CompileError &e) {
            std::printf("\n5. %s\n", e.what());
        }
    }

    if (mismatches) {
        std::printf("%d mismatches\n", mismatches);
        return 1;
    }
    std::printf("Success!\n");
    return 0;
}
