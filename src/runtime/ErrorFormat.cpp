// Run-time formatting of error and print messages for generated code (see
// RuntimeInternal.h). Each call appends to a NUL-terminated string in a
// caller-owned buffer, so generated code needs no allocation and no varargs.

#include "runtime/RuntimeInternal.h"

#include <cstdio>
#include <cstring>

#define LOOM_RUNTIME_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

// Appends text, truncating at capacity - 1 characters.
void append(char *buffer, uint64_t capacity, const char *text) {
    if (!buffer || capacity == 0 || !text) return;
    size_t used = strnlen(buffer, capacity - 1);
    size_t room = capacity - 1 - used;
    size_t length = std::strlen(text);
    if (length > room) length = room;
    std::memcpy(buffer + used, text, length);
    buffer[used + length] = '\0';
}

}  // namespace

LOOM_RUNTIME_EXPORT void loom_msg_begin(char *buffer, uint64_t capacity) {
    if (buffer && capacity > 0) buffer[0] = '\0';
}

LOOM_RUNTIME_EXPORT void loom_msg_append_str(char *buffer, uint64_t capacity, const char *text) {
    append(buffer, capacity, text ? text : "(null)");
}

LOOM_RUNTIME_EXPORT void loom_msg_append_int(char *buffer, uint64_t capacity, int64_t value) {
    char text[32];
    std::snprintf(text, sizeof text, "%lld", static_cast<long long>(value));
    append(buffer, capacity, text);
}

LOOM_RUNTIME_EXPORT void loom_msg_append_uint(char *buffer, uint64_t capacity, uint64_t value) {
    char text[32];
    std::snprintf(text, sizeof text, "%llu", static_cast<unsigned long long>(value));
    append(buffer, capacity, text);
}

LOOM_RUNTIME_EXPORT void loom_msg_append_float(char *buffer, uint64_t capacity, double value) {
    char text[64];
    std::snprintf(text, sizeof text, "%g", value);
    append(buffer, capacity, text);
}

LOOM_RUNTIME_EXPORT void loom_msg_append_ptr(char *buffer, uint64_t capacity, const void *value) {
    char text[64];
    std::snprintf(text, sizeof text, "%p", const_cast<void *>(value));
    append(buffer, capacity, text);
}
