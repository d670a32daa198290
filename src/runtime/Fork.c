/* Semaphores and forks of async producers (Func::async,
 * lower/ForkAsyncProducers.h): loom_semaphore_* and loom_do_fork of
 * runtime/RuntimeInternal.h.
 *
 * A fork runs two tasks that wait for each other through semaphores, so each
 * needs a thread of its own for as long as it runs: the thread pool of
 * parallel loops cannot give that guarantee (all workers may be busy, and a
 * waiting thread helps only with its own loop's nested loops). A fork therefore runs its second
 * task on the calling thread and its first on a fork thread: an idle one if
 * there is one, else a new one. Fork threads are never handed to parallel
 * loops and wait idle between forks, so a fork never waits for a thread and
 * nested forks (a chain of async producers, async inside parallel loops)
 * cannot deadlock. Parallel loops started by a fork thread use the pool.
 *
 * Failures: when a task returns non-zero, the fork poisons the semaphores it
 * was given (those both tasks use), so that the other task's waits return an
 * error instead of blocking for ever; the fork returns the first code.
 *
 * Portable C with pthreads and __atomic builtins (RuntimePlatform.h), so that
 * AOT libraries carry it too. Fork threads are joined when the program (or
 * libLoom) is unloaded. */

#include "loom/runtime/loom_runtime.h"
#include "runtime/RuntimeInternal.h"
#include "runtime/RuntimePlatform.h"

typedef struct loom_semaphore {
    pthread_mutex_t mutex;
    pthread_cond_t changed;
    int count;
    int poisoned;
} loom_semaphore;

_Static_assert(sizeof(loom_semaphore) <= LOOM_SEMAPHORE_BYTES, "LOOM_SEMAPHORE_BYTES is too small");

LOOM_RUNTIME_EXPORT int loom_semaphore_init(void *semaphore, int count) {
    loom_semaphore *s = (loom_semaphore *)semaphore;
    memset(s, 0, sizeof(*s)); /* glibc's static initialisers are all-zero bytes */
    s->count = count;
    return 0;
}

LOOM_RUNTIME_EXPORT int loom_semaphore_acquire(void *semaphore, int n) {
    loom_semaphore *s = (loom_semaphore *)semaphore;
    pthread_mutex_lock(&s->mutex);
    while (s->count < n && !s->poisoned) pthread_cond_wait(&s->changed, &s->mutex);
    const int poisoned = s->poisoned;
    if (!poisoned) s->count -= n;
    pthread_mutex_unlock(&s->mutex);
    return poisoned ? loom_error_code_generic : 0;
}

LOOM_RUNTIME_EXPORT int loom_semaphore_release(void *semaphore, int n) {
    loom_semaphore *s = (loom_semaphore *)semaphore;
    pthread_mutex_lock(&s->mutex);
    s->count += n;
    pthread_mutex_unlock(&s->mutex);
    pthread_cond_broadcast(&s->changed);
    return 0;
}

LOOM_RUNTIME_EXPORT void loom_semaphore_poison(void *semaphore) {
    loom_semaphore *s = (loom_semaphore *)semaphore;
    pthread_mutex_lock(&s->mutex);
    s->poisoned = 1;
    pthread_mutex_unlock(&s->mutex);
    pthread_cond_broadcast(&s->changed);
}

#define LOOM_MAX_FORK_THREADS 1024

/* One fork thread; while it runs a task, `task` holds it. */
typedef struct loom_fork_thread {
    pthread_t thread;
    struct loom_fork_task *task;
} loom_fork_thread;

/* The first task of one fork, handed to a fork thread. Lives on the stack of
 * the thread that forked. */
typedef struct loom_fork_task {
    loom_parallel_body_t body;
    void *user_context;
    uint8_t *closure;
    void *capture; /* the forking thread's JIT error capture, or NULL */
    void **semaphores; /* poisoned when a task fails */
    int semaphore_count;
    int first_error;   /* the first non-zero result (atomic) */
    int done;          /* fork mutex */
} loom_fork_task;

typedef struct loom_fork_threads {
    pthread_mutex_t mutex;
    pthread_cond_t changed; /* a task was handed out or finished, or shutdown */
    loom_fork_thread *threads[LOOM_MAX_FORK_THREADS];
    int count;
    int shutting_down;
} loom_fork_threads;

/* Non-static so that the copies in several AOT libraries merge (Runtime.c). */
loom_fork_threads loom_rt_fork_threads = {.mutex = PTHREAD_MUTEX_INITIALIZER,
                                          .changed = PTHREAD_COND_INITIALIZER};

static int loom_run_task(loom_parallel_body_t body, void *user_context, int index, uint8_t *closure,
                         void *capture) {
#ifdef LOOM_RUNTIME_JIT_GLUE
    if (capture) return loom_jit_run_captured(capture, body, user_context, index, closure);
#else
    (void)capture;
#endif
    return body(user_context, index, closure);
}

/* Runs task `index` of the fork; a failure poisons the fork's semaphores at
 * once, so that a task waiting for the failed one stops waiting. */
static void loom_run_fork_task(loom_fork_task *task, int index) {
    const int result = loom_run_task(task->body, task->user_context, index, task->closure, task->capture);
    if (result == 0) return;
    int expected = 0;
    __atomic_compare_exchange_n(&task->first_error, &expected, result, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    for (int i = 0; i < task->semaphore_count; i++) loom_semaphore_poison(task->semaphores[i]);
}

static void *loom_fork_thread_main(void *arg) {
    loom_fork_thread *self = (loom_fork_thread *)arg;
    loom_fork_threads *all = &loom_rt_fork_threads;
    pthread_mutex_lock(&all->mutex);
    for (;;) {
        while (!self->task && !all->shutting_down) pthread_cond_wait(&all->changed, &all->mutex);
        if (!self->task) break; /* shutting down */
        loom_fork_task *task = self->task;
        pthread_mutex_unlock(&all->mutex);
        loom_run_fork_task(task, 0);
        pthread_mutex_lock(&all->mutex);
        task->done = 1;
        self->task = NULL;
        pthread_cond_broadcast(&all->changed);
    }
    pthread_mutex_unlock(&all->mutex);
    return NULL;
}

/* An idle fork thread given `task`, started if none is idle; NULL if the
 * system refuses a new thread. Holds the mutex. */
static loom_fork_thread *loom_hand_out(loom_fork_threads *all, loom_fork_task *task) {
    for (int i = 0; i < all->count; i++) {
        if (!all->threads[i]->task) {
            all->threads[i]->task = task;
            return all->threads[i];
        }
    }
    if (all->count == LOOM_MAX_FORK_THREADS) return NULL;
    loom_fork_thread *t = (loom_fork_thread *)aligned_alloc(16, sizeof(loom_fork_thread));
    if (!t) return NULL;
    t->task = task;
    if (pthread_create(&t->thread, NULL, &loom_fork_thread_main, t) != 0) {
        free(t);
        return NULL;
    }
    all->threads[all->count++] = t;
    return t;
}

LOOM_RUNTIME_EXPORT int loom_do_fork(void *user_context, loom_parallel_body_t body, uint8_t *closure,
                                     void **semaphores, int semaphore_count) {
    loom_fork_threads *all = &loom_rt_fork_threads;
    loom_fork_task task;
    task.body = body;
    task.user_context = user_context;
    task.closure = closure;
    task.capture = NULL;
#ifdef LOOM_RUNTIME_JIT_GLUE
    task.capture = loom_jit_current_capture();
#endif
    task.semaphores = semaphores;
    task.semaphore_count = semaphore_count;
    task.first_error = 0;
    task.done = 0;

    pthread_mutex_lock(&all->mutex);
    loom_fork_thread *thread = loom_hand_out(all, &task);
    pthread_mutex_unlock(&all->mutex);
    if (!thread) {
        loom_error(user_context, "Cannot start a thread for an async producer (Func::async): the system refused "
                                 "one, or 1024 async producers already run at once");
        return loom_error_code_generic;
    }
    pthread_cond_broadcast(&all->changed);

    loom_run_fork_task(&task, 1);

    pthread_mutex_lock(&all->mutex);
    while (!task.done) pthread_cond_wait(&all->changed, &all->mutex);
    pthread_mutex_unlock(&all->mutex);
    return __atomic_load_n(&task.first_error, __ATOMIC_ACQUIRE);
}

/* Joins the fork threads when the program or library is unloaded (they are
 * all idle then: no pipeline runs). Every copy of the runtime registers
 * this; the first call does the work. */
__attribute__((destructor)) static void loom_fork_threads_shutdown(void) {
    loom_fork_threads *all = &loom_rt_fork_threads;
    pthread_mutex_lock(&all->mutex);
    if (all->count == 0 || all->shutting_down) {
        pthread_mutex_unlock(&all->mutex);
        return;
    }
    all->shutting_down = 1;
    const int count = all->count;
    pthread_mutex_unlock(&all->mutex);
    pthread_cond_broadcast(&all->changed);
    for (int i = 0; i < count; i++) {
        pthread_join(all->threads[i]->thread, NULL);
        free(all->threads[i]);
    }
    pthread_mutex_lock(&all->mutex);
    all->count = 0;
    all->shutting_down = 0;
    pthread_mutex_unlock(&all->mutex);
}
