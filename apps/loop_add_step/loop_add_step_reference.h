// loop_add_step as a plain C++ loop (seed 002's contract, see
// loop_add_step_algorithm.h).
#ifndef LOOM_APPS_LOOP_ADD_STEP_REFERENCE_H
#define LOOM_APPS_LOOP_ADD_STEP_REFERENCE_H

#include <cstdint>
#include <vector>

namespace apps {

/** scan: rows x dim floats, row-major; v_final: dim floats. */
void loop_add_step_reference(uint32_t m, uint32_t cond, const std::vector<float> &v_initial,
                             const std::vector<float> &step, int rows, std::vector<float> &scan,
                             std::vector<float> &v_final);

}  // namespace apps

#endif
