/* The profiler behind the `profile` target feature (loom_runtime.h,
 * lower/InjectProfiling.cpp), sampling as Halide's does.
 *
 * A run of a profiled pipeline records which Func it is computing in a
 * word of a record that this file owns (a store, no clock reading), and a
 * sampling thread wakes every LOOM_PROFILER_INTERVAL_NS, reads the word of
 * each running pipeline and bills the time since its last sample of that
 * run to that Func. So a fine-grained switch of Funcs (one per scanline)
 * costs a store, and the report's time is the sum of the samples, Halide's
 * numbers: a run shorter than the interval may get no sample at all.
 *
 * Parallel loops (Halide's sampling token): each task of a parallel loop
 * whose body has no other parallel loop or fork in it tries to take the
 * run's token when it starts; only the thread that holds it writes the
 * current Func, so the samples follow one thread's Funcs at a time instead
 * of the last writer's. Other tasks (and fork branches) write it when they
 * start and at their productions. Each thread working for the run counts
 * itself in the record's active threads while it works (the thread that
 * starts a parallel loop or a fork does not, while it waits), and each
 * sample adds that count to the Func's: the report shows the average
 * threads used where it is not 1, as Halide's does.
 *
 * The record is on the heap, not in the pipeline's stack instance, so that
 * no path out of a run can leave the sampler reading a dead stack. A run
 * that fails returns through loom_profiler_pipeline_abort, wherever it
 * failed (intrinsic::cleanup_on_failure runs it on the pipeline's way out,
 * after every task of the run has ended): the record leaves the running
 * list and is freed, and the run is not reported. Memory events stay in
 * the stack instance, updated atomically.
 *
 * The totals are process-wide, one entry per pipeline name and list of
 * Funcs, under a mutex. State is in plain (non-static) globals, as in
 * Runtime.c: AOT libraries linked into one program share one profiler. */

#include "loom/runtime/loom_runtime.h"
#include "runtime/RuntimePlatform.h"

#define LOOM_PROFILER_INTERVAL_NS 1000000 /* 1 ms, as Halide samples */

/* What the sampler bills a Func of one run. */
typedef struct loom_profiler_sampled_func {
    uint64_t time_ns, samples, thread_samples;
} loom_profiler_sampled_func;

/* A running pipeline as the sampler sees it (heap memory). */
typedef struct loom_profiler_record {
    struct loom_profiler_record *next;
    uint64_t last_sample_ns;
    int32_t current_func;   /* atomic */
    int32_t active_threads; /* atomic */
    int32_t sampling_token; /* atomic: 0 free, 1 taken by a task */
    int32_t num_funcs;
    loom_profiler_sampled_func funcs[];
} loom_profiler_record;

typedef struct loom_profiler_func_run {
    loom_atomic_uint64_t memory_current, memory_peak, memory_total, num_allocs;
    uint64_t unused[2];
} loom_profiler_func_run;

/* The pipeline's stack instance. The strings are the generated code's
 * constants. The run finds its pipeline's totals only when it ends: a
 * report and reset by another thread meanwhile (the JIT's, after each
 * realize) cannot free them under it. */
typedef struct loom_profiler_instance {
    loom_profiler_record *record; /* NULL when out of memory: nothing is sampled */
    const char *pipeline_name, *func_names;
    loom_atomic_uint64_t memory_current, memory_peak;
    int32_t num_funcs;
    int32_t unused;
    loom_profiler_func_run funcs[];
} loom_profiler_instance;

/* 64 bytes with 64-bit pointers, less with 32-bit ones: the generated
 * code's allocation is big enough for both. */
_Static_assert(sizeof(loom_profiler_instance) <= LOOM_PROFILER_INSTANCE_BYTES(0), "profiler instance header");
_Static_assert(sizeof(loom_profiler_func_run) * 2 == LOOM_PROFILER_INSTANCE_BYTES(2) - LOOM_PROFILER_INSTANCE_BYTES(0),
               "profiler instance entry");

typedef struct loom_profiler_func_total {
    const char *name;
    uint64_t time_ns, samples, thread_samples, memory_peak, memory_total, num_allocs;
} loom_profiler_func_total;

typedef struct loom_profiler_pipeline {
    struct loom_profiler_pipeline *next;
    char *name, *func_names, *cut_names; /* cut_names: func_names cut into one string per Func */
    int32_t num_funcs;
    uint64_t time_ns, samples, thread_samples, runs, num_allocs, memory_peak;
    loom_profiler_func_total *funcs;
} loom_profiler_pipeline;

pthread_mutex_t loom_rt_profiler_mutex = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t loom_rt_profiler_wake = PTHREAD_COND_INITIALIZER;
loom_profiler_pipeline *loom_rt_profiler_pipelines = 0;
/* The runs in flight, the sampling thread and its state (all under the
 * mutex). */
loom_profiler_record *loom_rt_profiler_running = 0;
pthread_t loom_rt_profiler_sampler;
int loom_rt_profiler_sampler_started = 0, loom_rt_profiler_sampler_stopping = 0;

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

/* Takes r off the running list; the caller holds the mutex. */
static void unlink_record(loom_profiler_record *r) {
    for (loom_profiler_record **link = &loom_rt_profiler_running; *link; link = &(*link)->next) {
        if (*link == r) {
            *link = r->next;
            r->next = 0;
            return;
        }
    }
}

/* Bills the time since each running record's last sample to its current
 * Func; the caller holds the mutex. */
static void sample_running(void) {
    const uint64_t now = profiler_now_ns();
    for (loom_profiler_record *r = loom_rt_profiler_running; r; r = r->next) {
        int32_t func = __atomic_load_n(&r->current_func, __ATOMIC_RELAXED);
        int32_t threads = __atomic_load_n(&r->active_threads, __ATOMIC_RELAXED);
        if (func < 0 || func >= r->num_funcs) func = 0;
        loom_profiler_sampled_func *f = &r->funcs[func];
        f->time_ns += now - r->last_sample_ns;
        f->samples++;
        f->thread_samples += (uint64_t)(threads > 0 ? threads : 0);
        r->last_sample_ns = now;
    }
}

static void *sampler_main(void *unused) {
    (void)unused;
    pthread_mutex_lock(&loom_rt_profiler_mutex);
    while (!loom_rt_profiler_sampler_stopping) {
        if (!loom_rt_profiler_running) {
            /* Nothing runs: sleep until a run starts (no idle wake-ups). */
            pthread_cond_wait(&loom_rt_profiler_wake, &loom_rt_profiler_mutex);
            continue;
        }
        pthread_mutex_unlock(&loom_rt_profiler_mutex);
        struct timespec interval = {0, LOOM_PROFILER_INTERVAL_NS};
        nanosleep(&interval, 0);
        pthread_mutex_lock(&loom_rt_profiler_mutex);
        sample_running();
    }
    pthread_mutex_unlock(&loom_rt_profiler_mutex);
    return 0;
}

/* Joins the sampling thread when the program (or libLoom, or an AOT
 * library) is unloaded, as the thread pool's workers are. */
__attribute__((destructor)) static void loom_profiler_stop_sampler(void) {
    pthread_mutex_lock(&loom_rt_profiler_mutex);
    if (!loom_rt_profiler_sampler_started || loom_rt_profiler_sampler_stopping) {
        pthread_mutex_unlock(&loom_rt_profiler_mutex);
        return;
    }
    loom_rt_profiler_sampler_stopping = 1;
    pthread_cond_broadcast(&loom_rt_profiler_wake);
    pthread_mutex_unlock(&loom_rt_profiler_mutex);
    pthread_join(loom_rt_profiler_sampler, 0);
    pthread_mutex_lock(&loom_rt_profiler_mutex);
    loom_rt_profiler_sampler_started = 0;
    loom_rt_profiler_sampler_stopping = 0;
    pthread_mutex_unlock(&loom_rt_profiler_mutex);
}

LOOM_RUNTIME_EXPORT int32_t loom_profiler_pipeline_start(void *user_context, void *instance, const char *pipeline_name,
                                                         const char *func_names, int32_t num_funcs) {
    (void)user_context;
    loom_profiler_instance *run = (loom_profiler_instance *)instance;
    memset(run, 0, (size_t)LOOM_PROFILER_INSTANCE_BYTES(num_funcs));
    run->pipeline_name = pipeline_name;
    run->func_names = func_names;
    run->num_funcs = num_funcs;
    size_t bytes = (sizeof(loom_profiler_record) + (size_t)num_funcs * sizeof(loom_profiler_sampled_func) + 15) &
                   ~(size_t)15;
    loom_profiler_record *r = (loom_profiler_record *)aligned_alloc(16, bytes);
    if (!r) return 0; /* the run is computed, not sampled */
    memset(r, 0, bytes);
    r->num_funcs = num_funcs;
    r->active_threads = 1;
    pthread_mutex_lock(&loom_rt_profiler_mutex);
    if (!loom_rt_profiler_sampler_started) {
        loom_rt_profiler_sampler_started = pthread_create(&loom_rt_profiler_sampler, 0, &sampler_main, 0) == 0;
    }
    r->last_sample_ns = profiler_now_ns();
    r->next = loom_rt_profiler_running;
    loom_rt_profiler_running = r;
    pthread_cond_broadcast(&loom_rt_profiler_wake);
    pthread_mutex_unlock(&loom_rt_profiler_mutex);
    run->record = r;
    return 0;
}

LOOM_RUNTIME_EXPORT int32_t loom_profiler_set_current_func(void *instance, int32_t func_id) {
    loom_profiler_record *r = ((loom_profiler_instance *)instance)->record;
    if (r) __atomic_store_n(&r->current_func, func_id, __ATOMIC_RELAXED);
    return 0;
}

/* A task of a parallel loop, or a branch of a fork, starts working for the
 * run on its thread, in Func func_id. A leaf task (claim_token) becomes the
 * thread whose Funcs are sampled if no other task is; the result says
 * whether it did (loom_profiler_set_task_func and _task_end take it). */
LOOM_RUNTIME_EXPORT int32_t loom_profiler_task_start(void *instance, int32_t func_id, int32_t claim_token) {
    loom_profiler_record *r = ((loom_profiler_instance *)instance)->record;
    if (!r) return 0;
    __atomic_add_fetch(&r->active_threads, 1, __ATOMIC_RELAXED);
    int32_t holds = 0;
    if (claim_token) holds = __atomic_exchange_n(&r->sampling_token, 1, __ATOMIC_ACQUIRE) == 0;
    if (holds || !claim_token) __atomic_store_n(&r->current_func, func_id, __ATOMIC_RELAXED);
    return holds;
}

LOOM_RUNTIME_EXPORT int32_t loom_profiler_set_task_func(void *instance, int32_t func_id, int32_t holds_token) {
    if (holds_token) loom_profiler_set_current_func(instance, func_id);
    return 0;
}

LOOM_RUNTIME_EXPORT int32_t loom_profiler_task_end(void *instance, int32_t holds_token) {
    loom_profiler_record *r = ((loom_profiler_instance *)instance)->record;
    if (!r) return 0;
    __atomic_sub_fetch(&r->active_threads, 1, __ATOMIC_RELAXED);
    if (holds_token) __atomic_store_n(&r->sampling_token, 0, __ATOMIC_RELEASE);
    return 0;
}

/* The thread that starts a parallel loop or a fork waits for it: -1
 * before, +1 after. */
LOOM_RUNTIME_EXPORT int32_t loom_profiler_add_active_threads(void *instance, int32_t delta) {
    loom_profiler_record *r = ((loom_profiler_instance *)instance)->record;
    if (r) __atomic_add_fetch(&r->active_threads, delta, __ATOMIC_RELAXED);
    return 0;
}

/* The run failed and is leaving the pipeline: it ends unreported. */
LOOM_RUNTIME_EXPORT int32_t loom_profiler_pipeline_abort(void *instance) {
    loom_profiler_record *r = ((loom_profiler_instance *)instance)->record;
    if (!r) return 0;
    pthread_mutex_lock(&loom_rt_profiler_mutex);
    unlink_record(r);
    pthread_mutex_unlock(&loom_rt_profiler_mutex);
    free(r);
    ((loom_profiler_instance *)instance)->record = 0;
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
    loom_profiler_record *r = run->record;
    pthread_mutex_lock(&loom_rt_profiler_mutex);
    /* After this the sampler no longer sees the run. */
    if (r) unlink_record(r);
    loom_profiler_pipeline *p = find_pipeline(run->pipeline_name, run->func_names, run->num_funcs);
    if (!p) {
        pthread_mutex_unlock(&loom_rt_profiler_mutex);
        free(r);
        run->record = 0;
        /* The pipeline ran; only this run is missing from the totals. */
        loom_print(user_context, "Profiler: out of memory, a run of the pipeline is not recorded\n");
        return 0;
    }
    p->runs++;
    if (run->memory_peak > p->memory_peak) p->memory_peak = run->memory_peak;
    for (int32_t i = 0; i < run->num_funcs; i++) {
        loom_profiler_func_total *total = &p->funcs[i];
        const loom_profiler_func_run *f = &run->funcs[i];
        total->memory_total += f->memory_total;
        total->num_allocs += f->num_allocs;
        p->num_allocs += f->num_allocs;
        if (f->memory_peak > total->memory_peak) total->memory_peak = f->memory_peak;
        if (!r) continue;
        const loom_profiler_sampled_func *s = &r->funcs[i];
        total->time_ns += s->time_ns;
        total->samples += s->samples;
        total->thread_samples += s->thread_samples;
        p->time_ns += s->time_ns;
        p->samples += s->samples;
        p->thread_samples += s->thread_samples;
    }
    pthread_mutex_unlock(&loom_rt_profiler_mutex);
    free(r);
    run->record = 0;
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

/* The report of one pipeline, Halide's format: a header with the total
 * time (the sampled time), samples, runs and time per run, the average
 * number of threads working at the samples where it is not 1, then the
 * heap totals, then one line per Func: time per run, share of the total,
 * the average threads working while it was sampled (again where the
 * pipeline's is not 1), and for Funcs that allocate, the peak bytes live at
 * once, the number of allocations and their average size. The overhead
 * slot (time outside every Func) is left out when it is zero, as in
 * Halide. */
static void report_pipeline(void *user_context, const loom_profiler_pipeline *p) {
    char line[512];
    double total_ms = (double)p->time_ns / 1e6;
    const int serial = p->thread_samples == p->samples;
    snprintf(line, sizeof line, "%s\n total time: %.6f ms  samples: %llu  runs: %llu  time/run: %.6f ms\n", p->name,
             total_ms, (unsigned long long)p->samples, (unsigned long long)p->runs, total_ms / (double)p->runs);
    loom_print(user_context, line);
    if (!serial) {
        snprintf(line, sizeof line, " average threads used: %.6f\n", (double)p->thread_samples / (double)p->samples);
        loom_print(user_context, line);
    }
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
        size_t column = 43;
        n = pad_to(line, n, column, sizeof line);
        if (!serial) {
            const double threads = f->samples ? (double)f->thread_samples / (double)f->samples : 0.0;
            n = append(line, n, sizeof line, snprintf(line + n, sizeof line - n, "threads: %.3f", threads));
            column += 15;
            n = pad_to(line, n, column, sizeof line);
        }
        if (f->memory_peak) {
            n = append(line, n, sizeof line,
                       snprintf(line + n, sizeof line - n, " peak: %llu", (unsigned long long)f->memory_peak));
            n = pad_to(line, n, column + 15, sizeof line);
            n = append(line, n, sizeof line,
                       snprintf(line + n, sizeof line - n, " num: %llu", (unsigned long long)f->num_allocs));
            n = pad_to(line, n, column + 30, sizeof line);
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
