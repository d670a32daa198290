/* The profiler behind the `profile` target feature (loom_runtime.h,
 * lower/InjectProfiling.cpp).
 *
 * Halide samples the current Func with a thread; Loom reads a monotonic
 * clock instead, at each switch of the current Func: the time since the last
 * switch goes to the Func that was current. A run keeps its numbers in its
 * own instance (stack memory of the pipeline), and pipeline_end adds them to
 * the process-wide totals of the pipeline, one entry per pipeline name and
 * list of Funcs, under a mutex. Memory events may come from parallel loops,
 * so they update the instance atomically.
 *
 * State is in plain (non-static) globals, as in Runtime.c: AOT libraries
 * linked into one program share one profiler. */

#include "loom/runtime/loom_runtime.h"
#include "runtime/RuntimePlatform.h"

typedef struct loom_profiler_func_run {
    uint64_t time_ns;
    loom_atomic_uint64_t memory_current, memory_peak, memory_total, num_allocs;
    uint64_t unused;
} loom_profiler_func_run;

/* The strings are the generated code's constants. The run finds its
 * pipeline's totals only when it ends: a report and reset by another thread
 * meanwhile (the JIT's, after each realize) cannot free them under it. */
typedef struct loom_profiler_instance {
    const char *pipeline_name, *func_names;
    uint64_t start_ns, last_ns, switches;
    loom_atomic_uint64_t memory_current, memory_peak;
    int32_t current_func, num_funcs;
    loom_profiler_func_run funcs[];
} loom_profiler_instance;

/* 64 bytes with 64-bit pointers, 56 with 32-bit ones: the generated code's
 * allocation is big enough for both. */
_Static_assert(sizeof(loom_profiler_instance) <= LOOM_PROFILER_INSTANCE_BYTES(0), "profiler instance header");
_Static_assert(sizeof(loom_profiler_func_run) * 2 == LOOM_PROFILER_INSTANCE_BYTES(2) - LOOM_PROFILER_INSTANCE_BYTES(0),
               "profiler instance entry");

typedef struct loom_profiler_func_total {
    const char *name;
    uint64_t time_ns, memory_peak, memory_total, num_allocs;
} loom_profiler_func_total;

typedef struct loom_profiler_pipeline {
    struct loom_profiler_pipeline *next;
    char *name, *func_names, *cut_names; /* cut_names: func_names cut into one string per Func */
    int32_t num_funcs;
    uint64_t time_ns, samples, runs, num_allocs, memory_peak;
    loom_profiler_func_total *funcs;
} loom_profiler_pipeline;

pthread_mutex_t loom_rt_profiler_mutex = PTHREAD_MUTEX_INITIALIZER;
loom_profiler_pipeline *loom_rt_profiler_pipelines = 0;

static uint64_t profiler_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static int same_text(const char *a, const char *b) {
    while (*a && *a == *b) a++, b++;
    return *a == *b;
}

static char *copy_text(const char *text) {
    size_t n = strlen(text) + 1;
    char *copy = (char *)aligned_alloc(16, (n + 15) & ~(size_t)15);
    if (copy) memcpy(copy, text, n);
    return copy;
}

static void free_pipeline(loom_profiler_pipeline *p) {
    if (!p) return;
    free(p->name);
    free(p->func_names);
    free(p->cut_names);
    free(p->funcs);
    free(p);
}

/* The totals of (name, func_names), created on first use; the caller holds
 * the mutex. NULL when out of memory. */
static loom_profiler_pipeline *find_pipeline(const char *name, const char *func_names, int32_t num_funcs) {
    for (loom_profiler_pipeline *p = loom_rt_profiler_pipelines; p; p = p->next) {
        if (p->num_funcs == num_funcs && same_text(p->name, name) && same_text(p->func_names, func_names)) return p;
    }
    loom_profiler_pipeline *p = (loom_profiler_pipeline *)aligned_alloc(16, (sizeof *p + 15) & ~(size_t)15);
    if (!p) return 0;
    memset(p, 0, sizeof *p);
    size_t func_bytes = ((size_t)num_funcs * sizeof(loom_profiler_func_total) + 15) & ~(size_t)15;
    p->name = copy_text(name);
    p->func_names = copy_text(func_names);
    p->cut_names = copy_text(func_names);
    p->funcs = (loom_profiler_func_total *)aligned_alloc(16, func_bytes ? func_bytes : 16);
    if (!p->name || !p->func_names || !p->cut_names || !p->funcs) {
        free_pipeline(p);
        return 0;
    }
    memset(p->funcs, 0, func_bytes);
    p->num_funcs = num_funcs;
    /* The names are each ended by '\n': cut them into strings. */
    char *cursor = p->cut_names;
    for (int32_t i = 0; i < num_funcs; i++) {
        p->funcs[i].name = cursor;
        while (*cursor && *cursor != '\n') cursor++;
        if (*cursor) *cursor++ = 0;
    }
    p->next = loom_rt_profiler_pipelines;
    loom_rt_profiler_pipelines = p;
    return p;
}

LOOM_RUNTIME_EXPORT int32_t loom_profiler_pipeline_start(void *user_context, void *instance, const char *pipeline_name,
                                                         const char *func_names, int32_t num_funcs) {
    (void)user_context;
    loom_profiler_instance *run = (loom_profiler_instance *)instance;
    memset(run, 0, (size_t)LOOM_PROFILER_INSTANCE_BYTES(num_funcs));
    run->pipeline_name = pipeline_name;
    run->func_names = func_names;
    run->num_funcs = num_funcs;
    run->start_ns = run->last_ns = profiler_now_ns();
    return 0;
}

LOOM_RUNTIME_EXPORT int32_t loom_profiler_set_current_func(void *instance, int32_t func_id) {
    loom_profiler_instance *run = (loom_profiler_instance *)instance;
    uint64_t now = profiler_now_ns();
    run->funcs[run->current_func].time_ns += now - run->last_ns;
    run->last_ns = now;
    run->switches++;
    run->current_func = func_id;
    return 0;
}

static void raise_peak(loom_atomic_uint64_t *peak, uint64_t value) {
    uint64_t seen = __atomic_load_n(peak, __ATOMIC_RELAXED);
    while (value > seen && !__atomic_compare_exchange_n(peak, &seen, value, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

LOOM_RUNTIME_EXPORT int32_t loom_profiler_memory_allocate(void *instance, int32_t func_id, uint64_t bytes) {
    if (bytes == 0) return 0;  // a conditional allocation that did not happen
    loom_profiler_instance *run = (loom_profiler_instance *)instance;
    loom_profiler_func_run *f = &run->funcs[func_id];
    raise_peak(&f->memory_peak, __atomic_add_fetch(&f->memory_current, bytes, __ATOMIC_RELAXED));
    raise_peak(&run->memory_peak, __atomic_add_fetch(&run->memory_current, bytes, __ATOMIC_RELAXED));
    __atomic_add_fetch(&f->memory_total, bytes, __ATOMIC_RELAXED);
    __atomic_add_fetch(&f->num_allocs, 1, __ATOMIC_RELAXED);
    return 0;
}

LOOM_RUNTIME_EXPORT int32_t loom_profiler_memory_free(void *instance, int32_t func_id, uint64_t bytes) {
    loom_profiler_instance *run = (loom_profiler_instance *)instance;
    __atomic_sub_fetch(&run->funcs[func_id].memory_current, bytes, __ATOMIC_RELAXED);
    __atomic_sub_fetch(&run->memory_current, bytes, __ATOMIC_RELAXED);
    return 0;
}

LOOM_RUNTIME_EXPORT int32_t loom_profiler_pipeline_end(void *user_context, void *instance) {
    loom_profiler_instance *run = (loom_profiler_instance *)instance;
    loom_profiler_set_current_func(instance, 0);
    pthread_mutex_lock(&loom_rt_profiler_mutex);
    loom_profiler_pipeline *p = find_pipeline(run->pipeline_name, run->func_names, run->num_funcs);
    if (!p) {
        pthread_mutex_unlock(&loom_rt_profiler_mutex);
        /* The pipeline ran; only this run is missing from the totals. */
        loom_print(user_context, "Profiler: out of memory, a run of the pipeline is not recorded\n");
        return 0;
    }
    p->time_ns += run->last_ns - run->start_ns;
    p->samples += run->switches;
    p->runs++;
    if (run->memory_peak > p->memory_peak) p->memory_peak = run->memory_peak;
    for (int32_t i = 0; i < run->num_funcs; i++) {
        loom_profiler_func_total *total = &p->funcs[i];
        const loom_profiler_func_run *f = &run->funcs[i];
        total->time_ns += f->time_ns;
        total->memory_total += f->memory_total;
        total->num_allocs += f->num_allocs;
        p->num_allocs += f->num_allocs;
        if (f->memory_peak > total->memory_peak) total->memory_peak = f->memory_peak;
    }
    pthread_mutex_unlock(&loom_rt_profiler_mutex);
    return 0;
}

/* Appends spaces to line until it is `column` characters long. */
static size_t pad_to(char *line, size_t length, size_t column, size_t capacity) {
    while (length < column && length + 1 < capacity) line[length++] = ' ';
    line[length] = 0;
    return length;
}

static size_t append(char *line, size_t length, size_t capacity, int written) {
    if (written < 0) return length;
    length += (size_t)written;
    return length < capacity ? length : capacity - 1;
}

/* The report of one pipeline, Halide's format: a header with the total time,
 * samples (here: clock readings), runs and time per run, then the heap
 * totals, then one line per Func: time per run, share of the total, and for
 * Funcs that allocate, the peak bytes live at once, the number of
 * allocations and their average size. The overhead slot (time outside every
 * Func) is left out when it is zero, as in Halide. */
static void report_pipeline(void *user_context, const loom_profiler_pipeline *p) {
    char line[512];
    double total_ms = (double)p->time_ns / 1e6;
    snprintf(line, sizeof line, "%s\n total time: %.6f ms  samples: %llu  runs: %llu  time/run: %.6f ms\n", p->name,
             total_ms, (unsigned long long)p->samples, (unsigned long long)p->runs, total_ms / (double)p->runs);
    loom_print(user_context, line);
    snprintf(line, sizeof line, " heap allocations: %llu  peak heap usage: %llu bytes\n",
             (unsigned long long)p->num_allocs, (unsigned long long)p->memory_peak);
    loom_print(user_context, line);
    for (int32_t i = 0; i < p->num_funcs; i++) {
        const loom_profiler_func_total *f = &p->funcs[i];
        if (i == 0 && f->time_ns == 0) continue;
        size_t n = append(line, 0, sizeof line, snprintf(line, sizeof line, "  %s: ", f->name));
        n = pad_to(line, n, 25, sizeof line);
        n = append(line, n, sizeof line,
                   snprintf(line + n, sizeof line - n, "%.3fms", (double)f->time_ns / (1e6 * (double)p->runs)));
        n = pad_to(line, n, 35, sizeof line);
        int percent = p->time_ns ? (int)((100 * f->time_ns) / p->time_ns) : 0;
        n = append(line, n, sizeof line, snprintf(line + n, sizeof line - n, "(%d%%)", percent));
        n = pad_to(line, n, 43, sizeof line);
        if (f->memory_peak) {
            n = append(line, n, sizeof line,
                       snprintf(line + n, sizeof line - n, " peak: %llu", (unsigned long long)f->memory_peak));
            n = pad_to(line, n, 58, sizeof line);
            n = append(line, n, sizeof line,
                       snprintf(line + n, sizeof line - n, " num: %llu", (unsigned long long)f->num_allocs));
            n = pad_to(line, n, 73, sizeof line);
            unsigned long long average = f->num_allocs ? f->memory_total / f->num_allocs : 0;
            n = append(line, n, sizeof line, snprintf(line + n, sizeof line - n, " avg: %llu", average));
        }
        while (n > 0 && line[n - 1] == ' ') n--;
        line[n] = 0;
        n = append(line, n, sizeof line, snprintf(line + n, sizeof line - n, "\n"));
        loom_print(user_context, line);
    }
}

LOOM_RUNTIME_EXPORT void loom_profiler_report(void *user_context) {
    pthread_mutex_lock(&loom_rt_profiler_mutex);
    for (const loom_profiler_pipeline *p = loom_rt_profiler_pipelines; p; p = p->next) {
        if (p->runs) report_pipeline(user_context, p);
    }
    pthread_mutex_unlock(&loom_rt_profiler_mutex);
}

LOOM_RUNTIME_EXPORT void loom_profiler_reset(void) {
    pthread_mutex_lock(&loom_rt_profiler_mutex);
    while (loom_rt_profiler_pipelines) {
        loom_profiler_pipeline *p = loom_rt_profiler_pipelines;
        loom_rt_profiler_pipelines = p->next;
        free_pipeline(p);
    }
    pthread_mutex_unlock(&loom_rt_profiler_mutex);
}

/* AOT libraries report at process exit, as Halide's runtime does (the JIT
 * reports and resets after each realize, so nothing is left here then). */
__attribute__((destructor)) void loom_profiler_report_at_exit(void) {
    if (!loom_rt_profiler_pipelines) return;
    loom_profiler_report(0);
    loom_profiler_reset();
}
