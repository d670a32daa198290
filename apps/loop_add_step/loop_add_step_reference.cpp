#include "loop_add_step_reference.h"

#include <algorithm>

namespace apps {

void loop_add_step_reference(uint32_t m, uint32_t cond, const std::vector<float> &v_initial,
                             const std::vector<float> &step, int rows, std::vector<float> &scan,
                             std::vector<float> &v_final) {
    const size_t dim = v_initial.size();
    const int trips = cond ? (int)std::min<uint64_t>(m, (uint64_t)std::max(rows, 0)) : 0;
    v_final = v_initial;
    scan.assign((size_t)std::max(rows, 0) * dim, 0.0f);
    for (int t = 0; t < trips; t++) {
        for (size_t x = 0; x < dim; x++) {
            v_final[x] += step[x];
            scan[(size_t)t * dim + x] = v_final[x];
        }
    }
}

}  // namespace apps
