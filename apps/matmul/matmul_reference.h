// The plain C++ matrix product: for each row of A, the k loop outside and a
// contiguous row of B inside (which compilers vectorize), one thread.
#ifndef LOOM_APPS_MATMUL_REFERENCE_H
#define LOOM_APPS_MATMUL_REFERENCE_H

#include <loom/runtime/Buffer.h>

namespace apps {

/** out(x, y) = sum_k a(k, y) * b(x, k); dense buffers with mins 0. */
void matmul_reference(const loom::Runtime::Buffer<float> &a, const loom::Runtime::Buffer<float> &b,
                      loom::Runtime::Buffer<float> &out);

}  // namespace apps

#endif
