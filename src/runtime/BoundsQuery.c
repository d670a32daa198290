/* The answer to a bounds query (RuntimeInternal.h). Portable C, shared by
 * libLoom and AOT libraries (RuntimePlatform.h). */

#include "loom/runtime/loom_runtime.h"
#include "runtime/RuntimeInternal.h"
#include "runtime/RuntimePlatform.h"

LOOM_RUNTIME_EXPORT int32_t loom_buffer_set_bounds(loom_buffer_t *buffer, int32_t d, int32_t min, int32_t extent) {
    if (!buffer || !buffer->dim || d < 0 || d >= buffer->dimensions) return loom_error_code_bad_argument;
    int32_t stride = 1;
    for (int32_t i = 0; i < d; i++) stride *= buffer->dim[i].extent;
    buffer->dim[d].min = min;
    buffer->dim[d].extent = extent;
    buffer->dim[d].stride = stride;
    return 0;
}
