/* Run-time formatting of error and print messages for generated code (see
 * RuntimeInternal.h). Each call appends to a NUL-terminated string in a
 * caller-owned buffer, so generated code needs no allocation and no varargs.
 * Portable C, shared by libLoom and AOT libraries (RuntimePlatform.h). */

#include "runtime/RuntimeInternal.h"
#include "runtime/RuntimePlatform.h"

/* Length of buffer's text, looking at no more than limit characters. */
static size_t loom_bounded_length(const char *buffer, size_t limit) {
    size_t n = 0;
    while (n < limit && buffer[n] != '\0') n++;
    return n;
}

/* Appends text, truncating at capacity - 1 characters. */
static void loom_append(char *buffer, uint64_t capacity, const char *text) {
    if (!buffer || capacity == 0 || !text) return;
    size_t used = loom_bounded_length(buffer, (size_t)capacity - 1);
    size_t room = (size_t)capacity - 1 - used;
    size_t length = strlen(text);
    if (length > room) length = room;
    memcpy(buffer + used, text, length);
    buffer[used + length] = '\0';
}

LOOM_RUNTIME_EXPORT void loom_msg_begin(char *buffer, uint64_t capacity) {
    if (buffer && capacity > 0) buffer[0] = '\0';
}

LOOM_RUNTIME_EXPORT void loom_msg_append_str(char *buffer, uint64_t capacity, const char *text) {
    loom_append(buffer, capacity, text ? text : "(null)");
}

LOOM_RUNTIME_EXPORT void loom_msg_append_int(char *buffer, uint64_t capacity, int64_t value) {
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)value);
    loom_append(buffer, capacity, text);
}

LOOM_RUNTIME_EXPORT void loom_msg_append_uint(char *buffer, uint64_t capacity, uint64_t value) {
    char text[32];
    snprintf(text, sizeof text, "%llu", (unsigned long long)value);
    loom_append(buffer, capacity, text);
}

LOOM_RUNTIME_EXPORT void loom_msg_append_float(char *buffer, uint64_t capacity, double value) {
    char text[64];
    snprintf(text, sizeof text, "%g", value);
    loom_append(buffer, capacity, text);
}

LOOM_RUNTIME_EXPORT void loom_msg_append_ptr(char *buffer, uint64_t capacity, const void *value) {
    char text[64];
    snprintf(text, sizeof text, "%p", value);
    loom_append(buffer, capacity, text);
}
