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

LOOM_RUNTIME_EXPORT void loom_msg_format(char *buffer, uint64_t capacity, const char *format, const uint64_t *values) {
    loom_msg_begin(buffer, capacity);
    if (!buffer || capacity == 0 || !format) return;
    size_t used = 0, next = 0;
    const size_t room = (size_t)capacity - 1;
    const char *p = format;
    while (*p && used < room) {
        if (*p != '\x01') {
            buffer[used++] = *p++;
            continue;
        }
        char kind = p[1];
        if (kind == '\0') break;
        p += 2;
        if (kind == '\x01') {
            buffer[used++] = '\x01';
            continue;
        }
        buffer[used] = '\0';
        uint64_t bits = values ? values[next++] : 0;
        switch (kind) {
        case 'i': loom_msg_append_int(buffer, capacity, (int64_t)bits); break;
        case 'u': loom_msg_append_uint(buffer, capacity, bits); break;
        case 'f': {
            double d;
            memcpy(&d, &bits, sizeof d);
            loom_msg_append_float(buffer, capacity, d);
            break;
        }
        default: loom_msg_append_ptr(buffer, capacity, (const void *)(uintptr_t)bits); break;
        }
        used = loom_bounded_length(buffer, room);
    }
    buffer[used] = '\0';
}
