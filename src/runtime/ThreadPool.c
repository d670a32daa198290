/* The thread pool behind parallel loops: loom_do_par_for and the thread-count
 * setters of runtime/RuntimeInternal.h.
 *
 * One process-wide pool of worker threads, started on the first parallel
 * loop that can use them. A loop is a job: its iterations are handed out one
 * at a time from an atomic counter, to the calling thread (the job's owner)
 * and to any idle worker, at most loom_get_num_threads() threads per loop.
 * The owner returns once no iterations are left and every thread that took
 * one has finished.
 *
 * Nested loops: a loop started inside an iteration is a job like any other,
 * wherever that iteration runs, so idle workers share it (as in Halide's
 * pool). iir_blur's channels x strips: 3 channels on 2 threads, each channel
 * a loop of strips; the thread that finishes its channel's strips helps with
 * the other's. While its own job's last iterations finish elsewhere, an
 * owner runs iterations of loops nested in that job, and only those: they
 * finish before its job can, so it never starts unrelated work that would
 * delay its return. A waiting owner waits only for threads that are running
 * its job's iterations (or, in turn, waiting for deeper loops), so the pool
 * cannot deadlock.
 *
 * Idle threads first spin for a few tens of microseconds, without the
 * mutex, before they sleep: a pipeline's next parallel loop, or the last
 * iteration of the current one, usually comes sooner than a sleeping thread
 * is woken (a futex wake, and under a hypervisor an interrupt to a halted
 * virtual CPU). Halide's pool spins in the same places (40 yields).
 *
 * Errors: after an iteration returns non-zero no new iterations start; the
 * first code is returned. In libLoom, while the JIT front end captures this
 * thread's errors (ErrorCapture.h), each iteration on another thread runs
 * under its own capture whose messages are forwarded to the caller's.
 *
 * Portable C with pthreads and __atomic builtins (RuntimePlatform.h), so that
 * AOT libraries carry the same pool. The workers are joined when the program
 * (or libLoom) is unloaded. */

#include "loom/runtime/loom_runtime.h"
#include "runtime/RuntimeInternal.h"
#include "runtime/RuntimePlatform.h"

#define LOOM_MAX_THREADS 256
/* How long an idle thread spins before it sleeps. */
#define LOOM_SPIN_NANOSECONDS 50000

/* One parallel loop in flight. Lives on the stack of the thread that runs it. */
typedef struct loom_job {
    loom_parallel_body_t body;
    void *user_context;
    uint8_t *closure;
    int max_threads;  /* threads allowed to work on it at once */
    loom_atomic_int64_t next; /* next iteration to hand out (atomic) */
    int64_t end;      /* one past the last iteration */
    int error;        /* first non-zero result (atomic) */
    int active;       /* threads working on it (changed under the pool mutex, read atomically) */
    void *capture;    /* the caller's JIT error capture, or NULL */
    struct loom_job *parent;    /* the job whose iteration started this loop, or NULL */
    struct loom_job *next_job;  /* the pool's list of jobs (pool mutex) */
} loom_job;

typedef struct loom_thread_pool {
    pthread_mutex_t mutex;
    pthread_cond_t work_available; /* a job was added: idle workers look */
    pthread_cond_t owners_wake;    /* a job finished or a nested job was added: waiting owners look */
    pthread_t workers[LOOM_MAX_THREADS];
    int worker_count;
    int shutting_down;
    int jobs_added;   /* jobs added so far (atomic, wraps): spinning threads watch it */
    loom_job *jobs;
} loom_thread_pool;

/* Non-static so that the copies in several AOT libraries merge (Runtime.c). */
loom_thread_pool loom_rt_thread_pool = {.mutex = PTHREAD_MUTEX_INITIALIZER,
                                        .work_available = PTHREAD_COND_INITIALIZER,
                                        .owners_wake = PTHREAD_COND_INITIALIZER};
/* 0 until the first parallel loop or loom_get/set_num_threads decides it. */
int loom_rt_thread_count = 0;
/* The job whose iteration this thread runs, or NULL: the parent of the loops
 * it starts. */
_Thread_local loom_job *loom_rt_current_job = NULL;

static int loom_clamp_threads(long n) { return n > LOOM_MAX_THREADS ? LOOM_MAX_THREADS : (int)n; }

/* LOOM_NUM_THREADS if it is a positive integer, else the number of cores. */
static int loom_default_thread_count(void) {
    const char *env = getenv("LOOM_NUM_THREADS");
    if (env) {
        char *end = NULL;
        long n = strtol(env, &end, 10);
        if (end != env && *end == '\0' && n > 0) return loom_clamp_threads(n);
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores <= 0 ? 1 : loom_clamp_threads(cores);
}

static int loom_current_thread_count(void) {
    int n = __atomic_load_n(&loom_rt_thread_count, __ATOMIC_ACQUIRE);
    if (n != 0) return n;
    int expected = 0;
    __atomic_compare_exchange_n(&loom_rt_thread_count, &expected, loom_default_thread_count(), 0, __ATOMIC_ACQ_REL,
                                __ATOMIC_ACQUIRE);
    return __atomic_load_n(&loom_rt_thread_count, __ATOMIC_ACQUIRE);
}

static int loom_job_failed(loom_job *job) { return __atomic_load_n(&job->error, __ATOMIC_RELAXED) != 0; }

static int loom_job_has_work(loom_job *job) {
    return !loom_job_failed(job) && __atomic_load_n(&job->next, __ATOMIC_ACQUIRE) < job->end;
}

static int loom_run_iteration(loom_job *job, int index) {
#ifdef LOOM_RUNTIME_JIT_GLUE
    if (job->capture) {
        return loom_jit_run_captured(job->capture, job->body, job->user_context, index, job->closure);
    }
#endif
    return job->body(job->user_context, index, job->closure);
}

/* Takes and runs iterations until none are left or one has failed. */
static void loom_run_iterations(loom_job *job) {
    loom_job *const enclosing = loom_rt_current_job;
    loom_rt_current_job = job;
    while (!loom_job_failed(job)) {
        const int64_t i = __atomic_fetch_add(&job->next, 1, __ATOMIC_ACQ_REL);
        if (i >= job->end) break;
        int result = loom_run_iteration(job, (int)i);
        if (result != 0) {
            int expected = 0;
            __atomic_compare_exchange_n(&job->error, &expected, result, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
        }
    }
    loom_rt_current_job = enclosing;
}

static int loom_descends_from(const loom_job *job, const loom_job *ancestor) {
    for (const loom_job *j = job->parent; j; j = j->parent) {
        if (j == ancestor) return 1;
    }
    return 0;
}

/* A job that has iterations left and room for one more thread (for an owner
 * waiting on `ancestor`: one nested in it). Holds the mutex. */
static loom_job *loom_find_job(loom_thread_pool *pool, const loom_job *ancestor) {
    for (loom_job *job = pool->jobs; job; job = job->next_job) {
        if (!loom_job_has_work(job) || job->active >= job->max_threads) continue;
        if (!ancestor || loom_descends_from(job, ancestor)) return job;
    }
    return NULL;
}

/* Runs iterations of another thread's job. Holds the mutex before and after. */
static void loom_help(loom_thread_pool *pool, loom_job *job) {
    __atomic_store_n(&job->active, job->active + 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&pool->mutex);
    loom_run_iterations(job);
    pthread_mutex_lock(&pool->mutex);
    const int active = job->active - 1;
    __atomic_store_n(&job->active, active, __ATOMIC_RELEASE);
    if (active == 0) pthread_cond_broadcast(&pool->owners_wake);
}

static uint64_t loom_now_nanoseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static void loom_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
    __asm__ __volatile__("yield");
#endif
}

/* Spins, with the mutex released, until a job is added, `job` (if not
 * NULL) has no thread left on it, or LOOM_SPIN_NANOSECONDS pass. Holds the
 * mutex before and after. */
static void loom_spin(loom_thread_pool *pool, loom_job *job) {
    const int seen = __atomic_load_n(&pool->jobs_added, __ATOMIC_ACQUIRE);
    pthread_mutex_unlock(&pool->mutex);
    const uint64_t start = loom_now_nanoseconds();
    for (;;) {
        for (int i = 0; i < 32; i++) loom_cpu_relax();
        if (__atomic_load_n(&pool->jobs_added, __ATOMIC_ACQUIRE) != seen) break;
        if (job && __atomic_load_n(&job->active, __ATOMIC_ACQUIRE) == 0) break;
        if (loom_now_nanoseconds() - start > LOOM_SPIN_NANOSECONDS) break;
    }
    pthread_mutex_lock(&pool->mutex);
}

static void *loom_worker_main(void *arg) {
    loom_thread_pool *pool = (loom_thread_pool *)arg;
    int spun = 0;
    pthread_mutex_lock(&pool->mutex);
    while (!pool->shutting_down) {
        loom_job *job = loom_find_job(pool, NULL);
        if (job) {
            loom_help(pool, job);
            spun = 0;
        } else if (!spun) {
            loom_spin(pool, NULL);
            spun = 1;
        } else {
            pthread_cond_wait(&pool->work_available, &pool->mutex);
            spun = 0;
        }
    }
    pthread_mutex_unlock(&pool->mutex);
    return NULL;
}

/* Grows (never shrinks) the pool to `count` workers; a smaller thread count is
 * honoured by each job's max_threads instead. If the system refuses a thread,
 * loops run on the threads there are. Holds the mutex. */
static void loom_start_workers(loom_thread_pool *pool, int count) {
    while (pool->worker_count < count) {
        if (pthread_create(&pool->workers[pool->worker_count], NULL, &loom_worker_main, pool) != 0) return;
        pool->worker_count++;
    }
}

/* Runs job to completion with the caller's help; returns its error code. */
static int loom_pool_run(loom_thread_pool *pool, loom_job *job) {
    pthread_mutex_lock(&pool->mutex);
    loom_start_workers(pool, job->max_threads - 1);
    job->next_job = pool->jobs;
    pool->jobs = job;
    job->active = 1; /* the caller */
    __atomic_fetch_add(&pool->jobs_added, 1, __ATOMIC_ACQ_REL);
    pthread_mutex_unlock(&pool->mutex);
    pthread_cond_broadcast(&pool->work_available);
    if (job->parent) pthread_cond_broadcast(&pool->owners_wake);

    loom_run_iterations(job);

    pthread_mutex_lock(&pool->mutex);
    __atomic_store_n(&job->active, job->active - 1, __ATOMIC_RELEASE);
    for (loom_job **link = &pool->jobs; *link; link = &(*link)->next_job) {
        if (*link == job) {
            *link = job->next_job;
            break;
        }
    }
    /* Other threads still run iterations: help with loops nested in them. */
    int spun = 0;
    while (job->active != 0) {
        loom_job *nested = loom_find_job(pool, job);
        if (nested) {
            loom_help(pool, nested);
            spun = 0;
        } else if (!spun) {
            loom_spin(pool, job);
            spun = 1;
        } else {
            pthread_cond_wait(&pool->owners_wake, &pool->mutex);
            spun = 0;
        }
    }
    pthread_mutex_unlock(&pool->mutex);
    return __atomic_load_n(&job->error, __ATOMIC_ACQUIRE);
}

/* Joins the workers when the program or library is unloaded. Every copy of
 * the runtime registers this; the first call does the work. */
__attribute__((destructor)) static void loom_thread_pool_shutdown(void) {
    loom_thread_pool *pool = &loom_rt_thread_pool;
    pthread_mutex_lock(&pool->mutex);
    if (pool->worker_count == 0 || pool->shutting_down) {
        pthread_mutex_unlock(&pool->mutex);
        return;
    }
    pool->shutting_down = 1;
    const int count = pool->worker_count;
    pthread_mutex_unlock(&pool->mutex);
    pthread_cond_broadcast(&pool->work_available);
    for (int i = 0; i < count; i++) pthread_join(pool->workers[i], NULL);
    pthread_mutex_lock(&pool->mutex);
    pool->worker_count = 0;
    pool->shutting_down = 0;
    pthread_mutex_unlock(&pool->mutex);
}

static int loom_run_serially(void *user_context, loom_parallel_body_t body, int64_t min, int64_t end,
                             uint8_t *closure) {
    for (int64_t i = min; i < end; i++) {
        int result = body(user_context, (int)i, closure);
        if (result != 0) return result;
    }
    return 0;
}

LOOM_RUNTIME_EXPORT int loom_do_par_for(void *user_context, loom_parallel_body_t body, int min, int extent,
                                        uint8_t *closure) {
#ifdef LOOM_RUNTIME_JIT_GLUE
    int custom = 0;
    if (loom_jit_custom_do_par_for(user_context, body, min, extent, closure, &custom)) return custom;
#endif
    if (extent <= 0) return 0;
    const int64_t end = (int64_t)min + extent;
    int threads = loom_current_thread_count();
    if (threads > extent) threads = extent;
    if (threads <= 1) return loom_run_serially(user_context, body, min, end, closure);

    loom_job job;
    job.body = body;
    job.user_context = user_context;
    job.closure = closure;
    job.max_threads = threads;
    job.next = min;
    job.end = end;
    job.error = 0;
    job.active = 0;
    job.capture = NULL;
#ifdef LOOM_RUNTIME_JIT_GLUE
    job.capture = loom_jit_current_capture();
#endif
    job.parent = loom_rt_current_job;
    job.next_job = NULL;
    return loom_pool_run(&loom_rt_thread_pool, &job);
}

LOOM_RUNTIME_EXPORT int loom_set_num_threads(int n) {
    const int previous = loom_current_thread_count();
    __atomic_store_n(&loom_rt_thread_count, n <= 0 ? loom_default_thread_count() : loom_clamp_threads(n),
                     __ATOMIC_RELEASE);
    return previous;
}

LOOM_RUNTIME_EXPORT int loom_get_num_threads(void) { return loom_current_thread_count(); }

/* The locks of atomic Tuple updates (Stage::atomic, lower/LowerAtomics.cpp):
 * an update that writes several values of one element, reading them, holds
 * the lock of that element's key (a hash of the Func and the coordinates)
 * while it reads and writes them, as Halide's mutex array does. A fixed set
 * of striped pthread mutexes serves every pipeline: two elements that share
 * a stripe only wait for each other, and a thread holds one lock at a time,
 * so there is no deadlock. Static zero bytes are glibc's default mutex
 * initializer (RuntimePlatform.h); non-static so that the copies in several
 * AOT libraries merge. */
#define LOOM_ATOMIC_LOCK_STRIPES 256 /* a power of two: a mask, no 64-bit division on 32-bit targets */
pthread_mutex_t loom_rt_atomic_locks[LOOM_ATOMIC_LOCK_STRIPES];

static pthread_mutex_t *loom_atomic_lock_of(uint64_t key) {
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return &loom_rt_atomic_locks[key & (LOOM_ATOMIC_LOCK_STRIPES - 1)];
}

LOOM_RUNTIME_EXPORT int loom_atomic_mutex_lock(void *user_context, uint64_t key) {
    (void)user_context;
    return pthread_mutex_lock(loom_atomic_lock_of(key));
}

LOOM_RUNTIME_EXPORT int loom_atomic_mutex_unlock(void *user_context, uint64_t key) {
    (void)user_context;
    return pthread_mutex_unlock(loom_atomic_lock_of(key));
}
