/* Tracing (include/loom/runtime/loom_runtime.h): generated code builds a
 * loom_trace_event_t and calls loom_trace, which hands it to the installed
 * handler, by default one that prints a line in Halide's format through
 * loom_print:
 *
 *     Store f.0(1, 2) = 3
 *     Load f.0(<0, 1, 2, 3>) = <0, 1, 4, 9>      (a vector access)
 *     Begin realization f.0(0, 4, 0, 3)          (min, extent per dimension)
 *     Tag f.0() tag = "my tag"
 *
 * Integers print in decimal, floats as C's "%f" (Halide's printer shows six
 * decimals too). Portable C like Runtime.c: the handler is process-global and
 * read atomically. */

#include "loom/runtime/loom_runtime.h"
#include "runtime/RuntimePlatform.h"

loom_trace_handler_t loom_rt_trace_handler = 0;
static int32_t loom_trace_last_id = 0; /* the default handler's ids: 1, 2, ... */

static const char *const loom_trace_event_names[] = {
    "Load",    "Store",       "Begin realization", "End realization", "Produce", "End produce",
    "Consume", "End consume", "Begin pipeline",    "End pipeline",    "Tag"};

/* Appends to buffer[*used..capacity) like snprintf, keeping *used the length
 * the whole text needs even when it does not fit. */
#define LOOM_TRACE_APPEND(...)                                                                    \
    do {                                                                                          \
        size_t room = *used < capacity ? capacity - *used : 0;                                    \
        int n = snprintf(room ? buffer + *used : 0, room, __VA_ARGS__);                           \
        if (n > 0) *used += (size_t)n;                                                            \
    } while (0)

static void loom_trace_append_value(const loom_trace_event_t *e, int lane, char *buffer, size_t capacity,
                                    size_t *used) {
    int bits = e->type.bits <= 8 ? 8 : e->type.bits <= 16 ? 16 : e->type.bits <= 32 ? 32 : 64;
    const void *v = e->value;
    if (e->type.code == loom_type_int) {
        long long x = bits == 8    ? ((const int8_t *)v)[lane]
                      : bits == 16 ? ((const int16_t *)v)[lane]
                      : bits == 32 ? ((const int32_t *)v)[lane]
                                   : ((const int64_t *)v)[lane];
        LOOM_TRACE_APPEND("%lld", x);
    } else if (e->type.code == loom_type_uint) {
        unsigned long long x = bits == 8    ? ((const uint8_t *)v)[lane]
                               : bits == 16 ? ((const uint16_t *)v)[lane]
                               : bits == 32 ? ((const uint32_t *)v)[lane]
                                            : ((const uint64_t *)v)[lane];
        LOOM_TRACE_APPEND("%llu", x);
    } else if (e->type.code == loom_type_float) {
        double x = bits == 64 ? ((const double *)v)[lane] : (double)((const float *)v)[lane];
        LOOM_TRACE_APPEND("%f", x);
    } else {
        LOOM_TRACE_APPEND("%p", ((void *const *)v)[lane]);
    }
}

LOOM_RUNTIME_EXPORT int loom_trace_format(const loom_trace_event_t *e, char *buffer, size_t capacity) {
    size_t storage = 0, *used = &storage;
    if (capacity) buffer[0] = 0;
    const int event = e->event >= 0 && e->event <= loom_trace_tag ? e->event : loom_trace_tag;
    const int lanes = e->type.lanes > 1 ? e->type.lanes : 1;
    LOOM_TRACE_APPEND("%s %s.%d(", loom_trace_event_names[event], e->func ? e->func : "", (int)e->value_index);
    if (lanes > 1) LOOM_TRACE_APPEND("<");
    for (int i = 0; i < e->dimensions; i++) {
        if (i > 0) LOOM_TRACE_APPEND(lanes > 1 && i % lanes == 0 ? ">, <" : ", ");
        LOOM_TRACE_APPEND("%d", (int)e->coordinates[i]);
    }
    LOOM_TRACE_APPEND(lanes > 1 ? ">)" : ")");
    if (event <= loom_trace_store && e->value) {
        LOOM_TRACE_APPEND(lanes > 1 ? " = <" : " = ");
        for (int i = 0; i < lanes; i++) {
            if (i > 0) LOOM_TRACE_APPEND(", ");
            loom_trace_append_value(e, i, buffer, capacity, used);
        }
        if (lanes > 1) LOOM_TRACE_APPEND(">");
    }
    if (e->trace_tag && *e->trace_tag) LOOM_TRACE_APPEND(" tag = \"%s\"", e->trace_tag);
    LOOM_TRACE_APPEND("\n");
    return (int)storage;
}

/* Prints the event and returns a new id for it (unique in the process, as
 * Halide's default handler does), which events inside it get as parent_id. */
static int32_t loom_default_trace_handler(void *user_context, const loom_trace_event_t *e) {
    const int32_t id = __atomic_add_fetch(&loom_trace_last_id, 1, __ATOMIC_RELAXED);
    char line[4096];
    int needed = loom_trace_format(e, line, sizeof line);
    if ((size_t)needed < sizeof line) {
        loom_print(user_context, line);
        return id;
    }
    char *big = (char *)aligned_alloc(64, ((size_t)needed + 64) & ~(size_t)63);
    if (!big) {
        loom_print(user_context, line);
        return id;
    }
    loom_trace_format(e, big, (size_t)needed + 1);
    loom_print(user_context, big);
    free(big);
    return id;
}

LOOM_RUNTIME_EXPORT loom_trace_handler_t loom_set_trace_handler(loom_trace_handler_t handler) {
    loom_trace_handler_t previous = __atomic_exchange_n(&loom_rt_trace_handler, handler, __ATOMIC_ACQ_REL);
    return previous ? previous : &loom_default_trace_handler;
}

LOOM_RUNTIME_EXPORT int32_t loom_trace(void *user_context, const loom_trace_event_t *event) {
#ifdef LOOM_RUNTIME_JIT_GLUE
    int32_t custom = 0;
    if (loom_jit_custom_trace(user_context, event, &custom)) return custom;
#endif
    loom_trace_handler_t handler = __atomic_load_n(&loom_rt_trace_handler, __ATOMIC_ACQUIRE);
    return (handler ? handler : &loom_default_trace_handler)(user_context, event);
}
