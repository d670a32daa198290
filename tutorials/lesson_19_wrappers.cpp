// Lesson 19: wrappers (Func::in) and clones (Func::clone_in).
//
// A schedule says where each Func is computed. Sometimes one Func should be
// computed in two ways at once: once for the whole image, and then copied
// tile by tile next to the consumer that reads it; or inlined into one
// consumer but computed at the root for another. Halide's answer, which Loom
// follows, is a wrapper: a new Func w(x, y) = f(x, y) that the consumers call
// instead of f, scheduled on its own.
//
//   f.in()          a wrapper every consumer of f calls
//   f.in(g)         a wrapper only g calls (others still call f)
//   f.in({g, h})    one wrapper shared by g and h
//   f.clone_in(g)   a copy of f, definitions and schedule, that g calls

#include <cstdio>

#include <loom/Loom.h>

using namespace loom;

namespace {

int producer_ref(int x, int y) { return (x * 17 + y * 31) % 255; }

}  // namespace

int main() {
    const int W = 64, H = 32;
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    int mismatches = 0;

    // 1. A global wrapper: producer is computed once at the root; each tile
    //    of blur copies the part it needs into a small buffer (the wrapper,
    //    computed inside the tile), where the copy can be vectorized.
    {
        Func producer("producer"), blur("blur");
        producer(x, y) = (x * 17 + y * 31) % 255;
        blur(x, y) = (producer(x, y) + producer(x + 1, y) + producer(x, y + 1)) / 3;

        producer.compute_root();
        Func copy = producer.in();  // blur now calls copy, and copy calls producer
        blur.tile(x, y, xo, yo, xi, yi, 16, 8);
        copy.compute_at(blur, xo).vectorize(x, 8);
        std::printf("1. blur reads %s, a wrapper of %s:\n", copy.name().c_str(), producer.name().c_str());
        blur.print_loop_nest();

        Buffer<int> out = blur.realize({W, H});
        out.for_each_element([&](const std::vector<int> &p) {
            int e = (producer_ref(p[0], p[1]) + producer_ref(p[0] + 1, p[1]) + producer_ref(p[0], p[1] + 1)) / 3;
            mismatches += out(p) != e;
        });
    }

    // 2. A wrapper for one consumer: g reads the producer through its own
    //    wrapper, computed per row of g; h keeps reading the producer itself,
    //    which stays inlined into h.
    {
        Func producer("producer"), g("g"), h("h"), out("out");
        producer(x, y) = (x * 17 + y * 31) % 255;
        g(x, y) = producer(x, y) * 2;
        h(x, y) = producer(x, y) + 1;
        out(x, y) = g(x, y) + h(x, y);
        g.compute_root();
        Func for_g = producer.in(g);
        for_g.compute_at(g, y);
        std::printf("\n2. g reads %s; h still reads %s (inlined):\n", for_g.name().c_str(), producer.name().c_str());
        out.print_loop_nest();

        Buffer<int> result = out.realize({W, H});
        result.for_each_element([&](const std::vector<int> &p) {
            mismatches += result(p) != producer_ref(p[0], p[1]) * 3 + 1;
        });
    }

    // 3. A clone: a Func with an update, computed at the root for h but
    //    computed per row of g. A wrapper would read the root computation;
    //    the clone computes the values again, where g needs them.
    {
        Func acc("acc"), g("g"), h("h"), out("out");
        RDom r(0, 4, "r");
        acc(x, y) = x + y;
        acc(x, y) += r * 10;  // acc = x + y + 60
        g(x, y) = acc(x, y) * 2;
        h(x, y) = acc(x, y) - 1;
        out(x, y) = g(x, y) + h(x, y);
        acc.compute_root();
        g.compute_root();
        Func acc_for_g = acc.clone_in(g);
        acc_for_g.compute_at(g, y);
        std::printf("\n3. g reads %s, a clone of %s with its update:\n", acc_for_g.name().c_str(), acc.name().c_str());
        out.print_loop_nest();

        Buffer<int> result = out.realize({W, H});
        result.for_each_element([&](const std::vector<int> &p) {
            int a = p[0] + p[1] + 60;
            mismatches += result(p) != a * 2 + a - 1;
        });
    }

    if (mismatches) {
        std::printf("%d mismatches\n", mismatches);
        return 1;
    }
    std::printf("Success!\n");
    return 0;
}
