#include "matmul_reference.h"

namespace apps {

void matmul_reference(const loom::Runtime::Buffer<float> &a, const loom::Runtime::Buffer<float> &b,
                      loom::Runtime::Buffer<float> &out) {
    const int k_extent = a.dim(0).extent(), m_extent = a.dim(1).extent(), n_extent = b.dim(0).extent();
    for (int y = 0; y < m_extent; y++) {
        float *out_row = &out(0, y);
        for (int x = 0; x < n_extent; x++) out_row[x] = 0.0f;
        for (int k = 0; k < k_extent; k++) {
            const float a_value = a(k, y);
            const float *b_row = &b(0, k);
            for (int x = 0; x < n_extent; x++) out_row[x] += a_value * b_row[x];
        }
    }
}

}  // namespace apps
