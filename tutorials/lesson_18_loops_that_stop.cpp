// Lesson 18: loops that stop early, trip counts and loop-carried state.
//
// Halide has no while loop. Loom has one, written as an update definition
// over an RDom whose loop_while() condition ends it: the recurrences of the
// ONNX Loop operator ("repeat the body while cond holds, at most M times").
//
//   state(i, ...)                  the state before iteration i
//   state(0, ...) = initial        an update: the first state
//   r.loop_while(cond(state(r)))   checked before iteration r runs
//   state(r + 1, ...) = body(r)    one iteration
//   r.trip_count()                 how many iterations ran
//
// Here: the Fibonacci numbers, carried as a pair (a, b), until b passes a
// limit given at run time; the last pair, the trip count, and every b the
// loop made (a scan output).

#include <cstdio>
#include <vector>

#include <loom/Loom.h>

using namespace loom;

int main() {
    Param<int> limit("limit");
    const int max_steps = 100;

    // The state: a Tuple (a, b) per iteration i. undef(): the pure definition
    // stores nothing; update 0 writes the first state.
    Var i("i");
    Func fib("fib");
    fib(i) = Tuple(undef<int>(), undef<int>());
    fib(0) = Tuple(0, 1);

    // The loop: at most max_steps iterations, while b <= limit. The condition
    // reads the state the previous iteration left, before iteration r runs.
    RDom r(0, max_steps, "r");
    r.loop_while(fib(r)[1] <= limit);
    fib(r + 1) = Tuple(fib(r)[1], fib(r)[0] + fib(r)[1]);
    fib.compute_root();

    // After the loop: the trip count, the last state, and the scan output
    // (one b per iteration that ran).
    Func steps("steps"), last_b("last_b"), scan("scan");
    steps() = r.trip_count();
    last_b() = fib(r.trip_count())[1];
    scan(i) = fib(i + 1)[1];

    // Realize all three together; the scan is realized at the bound
    // (max_steps rows) and cropped to the rows that ran.
    Pipeline p({steps, last_b});
    Pipeline rows({scan});
    int mismatches = 0;
    for (int lim : {0, 1, 100, 1000000}) {
        limit.set(lim);
        Buffer<int> n = Buffer<int>::make_scalar(), b = Buffer<int>::make_scalar();
        Realization outputs(n, b);
        p.realize(outputs);
        Buffer<int> all(max_steps);
        rows.realize(all);
        Buffer<int> ran = all.cropped(0, 0, n());

        // The same loop in C++.
        int a0 = 0, b0 = 1, count = 0;
        std::vector<int> expected;
        while (count < max_steps && b0 <= lim) {
            int next = a0 + b0;
            a0 = b0;
            b0 = next;
            expected.push_back(b0);
            count++;
        }
        std::printf("limit %7d: %2d iterations, last b = %7d, scan:", lim, n(), b());
        for (int k = 0; k < ran.dim(0).extent() && k < 6; k++) std::printf(" %d", ran(k));
        std::printf("%s\n", ran.dim(0).extent() > 6 ? " ..." : "");
        if (n() != count || b() != b0 || ran.dim(0).extent() != count) mismatches++;
        for (int k = 0; k < count && k < ran.dim(0).extent(); k++) mismatches += ran(k) != expected[k];
    }

    // Only two states are live at a time when nothing reads the others:
    // fold_storage(i, 2) keeps a 10,000-step loop in two slots. (The scan
    // above reads every state, so there it stays unfolded.)
    Func counter("counter"), ended("ended");
    counter(i) = undef<int>();
    counter(0) = 0;
    RDom s(0, 10000, "s");
    s.loop_while(counter(s) < 7777);
    counter(s + 1) = counter(s) + 1;
    ended() = counter(s.trip_count()) * 1000 + s.trip_count() % 1000;
    counter.compute_root().fold_storage(i, 2);
    int e = Buffer<int>(ended.realize({}))();
    std::printf("folded counter: %d (expected %d)\n", e, 7777 * 1000 + 777);
    if (e != 7777 * 1000 + 777) mismatches++;

    if (mismatches) {
        std::printf("%d mismatches\n", mismatches);
        return 1;
    }
    std::printf("Success!\n");
    return 0;
}
