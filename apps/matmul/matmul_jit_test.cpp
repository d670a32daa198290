// Runs the scheduled matrix product with the JIT and checks it against the
// C++ reference exactly: the entries are small integers, so every partial
// sum is an exact float and the order of the additions cannot matter.
// Sizes: one that the tiles divide and one that they do not.
#include <cstdio>
#include <exception>

#include "../common/image_util.h"
#include "matmul_algorithm.h"
#include "matmul_reference.h"

using namespace loom;

namespace {

Runtime::Buffer<float> random_matrix(int columns, int rows, uint64_t seed) {
    Runtime::Buffer<float> m(columns, rows);
    apps::Random random(seed);
    m.for_each_element([&](int x, int y) { m(x, y) = float(int(random.next(7)) - 3); });
    return m;
}

bool check(int n, int m_rows, int k) {
    Runtime::Buffer<float> a_data = random_matrix(k, m_rows, 1), b_data = random_matrix(n, k, 2);
    ImageParam a(Float(32), 2, "a"), b(Float(32), 2, "b");
    Func output("matmul");
    apps::Matmul mm = apps::define_matmul(a, b, a.width(), a.height(), b.width(), output);
    apps::schedule_matmul(mm);
    a.set(Buffer<float>(a_data, "a"));
    b.set(Buffer<float>(b_data, "b"));
    Buffer<float> result = output.realize({n, m_rows});

    Runtime::Buffer<float> expected(n, m_rows);
    apps::matmul_reference(a_data, b_data, expected);
    char what[96];
    std::snprintf(what, sizeof what, "matmul, JIT, %dx%d times %dx%d", k, m_rows, n, k);
    return apps::report(what, apps::compare<float>(result, expected, 0), 0);
}

}  // namespace

int main() {
    try {
        bool ok = check(128, 96, 64);
        ok = check(120, 70, 45) && ok;
        return ok ? 0 : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "matmul_jit_test: %s\n", e.what());
        return 1;
    }
}
