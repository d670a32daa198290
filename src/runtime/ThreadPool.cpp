// The thread pool behind parallel loops: loom_do_par_for and the thread-count
// setters of runtime/RuntimeInternal.h.
//
// One process-wide pool of worker threads, started on the first parallel
// loop that can use them. A loop is a Job: its iterations are handed out one
// at a time from an atomic counter, to the calling thread and to any idle
// worker, at most loom_get_num_threads() threads per loop. The caller returns
// once no iterations are left and every thread that took one has finished.
//
// Nested loops: a loop started by a worker inside an iteration runs serially
// on that worker, so a worker never waits for other workers and the pool
// cannot deadlock. A loop started by any other thread (an application thread,
// or a caller running one of its own loop's iterations) becomes a new Job.
//
// Errors: after an iteration returns non-zero no new iterations start; the
// first code is returned. While the JIT front end captures this thread's
// errors (ErrorCapture.h, a thread-local), each iteration runs under its own
// capture and its messages are forwarded to the caller's, so that messages
// reported on workers are not lost to the global handler.
//
// Plain C++ threads only, so that the same code links into AOT libraries.

#include "runtime/ErrorCapture.h"
#include "runtime/RuntimeInternal.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#define LOOM_RUNTIME_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using loom::internal::ScopedErrorCapture;

constexpr int kMaxThreads = 256;

// LOOM_NUM_THREADS if it is a positive integer, else the number of cores.
int default_thread_count() {
    if (const char *env = std::getenv("LOOM_NUM_THREADS")) {
        char *end = nullptr;
        long n = std::strtol(env, &end, 10);
        if (end != env && *end == '\0' && n > 0) return (int)std::min<long>(n, kMaxThreads);
    }
    unsigned cores = std::thread::hardware_concurrency();
    return cores == 0 ? 1 : (int)std::min<unsigned>(cores, kMaxThreads);
}

// 0 until the first parallel loop or loom_get/set_num_threads decides it.
std::atomic<int> thread_count{0};

int current_thread_count() {
    int n = thread_count.load();
    if (n != 0) return n;
    int expected = 0;
    thread_count.compare_exchange_strong(expected, default_thread_count());
    return thread_count.load();
}

// True on the pool's own threads: loops they start run serially.
thread_local bool on_pool_worker = false;

// One parallel loop in flight. Lives on the stack of the thread that runs it.
struct Job {
    loom_parallel_body_t body;
    void *user_context;
    uint8_t *closure;
    int max_threads;                 // threads allowed to work on it at once
    std::atomic<int64_t> next;       // next iteration to hand out
    int64_t end;                     // one past the last iteration
    std::atomic<int> error{0};       // first non-zero result
    int active = 0;                  // threads working on it (pool mutex)
    ScopedErrorCapture *capture;     // the caller's error capture, or null
    std::mutex capture_mutex;        // serialises forwarding into `capture`

    bool has_work() const { return error.load(std::memory_order_relaxed) == 0 && next.load() < end; }
};

int run_iteration(Job &job, int index) {
    if (!job.capture) return job.body(job.user_context, index, job.closure);
    ScopedErrorCapture local;
    int result = job.body(job.user_context, index, job.closure);
    if (!local.message().empty()) {
        std::lock_guard<std::mutex> lock(job.capture_mutex);
        loom::internal::append_to_error_capture(job.capture, local.message().c_str());
    }
    return result;
}

// Takes and runs iterations until none are left or one has failed.
void run_iterations(Job &job) {
    while (job.error.load(std::memory_order_relaxed) == 0) {
        const int64_t i = job.next.fetch_add(1);
        if (i >= job.end) return;
        if (int result = run_iteration(job, (int)i)) {
            int expected = 0;
            job.error.compare_exchange_strong(expected, result);
        }
    }
}

class ThreadPool {
public:
    static ThreadPool &instance() {
        static ThreadPool pool;
        return pool;
    }

    // Runs job to completion with the caller's help; returns its error code.
    int run(Job &job) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            start_workers(job.max_threads - 1);
            jobs_.push_back(&job);
            job.active = 1;  // the caller
        }
        work_available_.notify_all();
        run_iterations(job);
        std::unique_lock<std::mutex> lock(mutex_);
        job.active--;
        jobs_.erase(std::find(jobs_.begin(), jobs_.end(), &job));
        job_finished_.wait(lock, [&] { return job.active == 0; });
        return job.error.load();
    }

    ~ThreadPool() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            shutting_down_ = true;
        }
        work_available_.notify_all();
        for (std::thread &t : workers_) t.join();
    }

private:
    ThreadPool() = default;

    // Grows (never shrinks) the pool to `count` workers; a smaller thread
    // count is honoured by each Job's max_threads instead. If the system
    // refuses a thread, loops run on the threads there are. Holds mutex_.
    void start_workers(int count) {
        try {
            while ((int)workers_.size() < count) workers_.emplace_back([this] { worker_loop(); });
        } catch (const std::system_error &) {
        }
    }

    // A job that has iterations left and room for one more thread. Holds mutex_.
    Job *find_job() const {
        for (Job *job : jobs_) {
            if (job->has_work() && job->active < job->max_threads) return job;
        }
        return nullptr;
    }

    void worker_loop() {
        on_pool_worker = true;
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            Job *job = nullptr;
            work_available_.wait(lock, [&] { return shutting_down_ || (job = find_job()) != nullptr; });
            if (shutting_down_) return;
            job->active++;
            lock.unlock();
            run_iterations(*job);
            lock.lock();
            if (--job->active == 0) job_finished_.notify_all();
        }
    }

    std::mutex mutex_;
    std::condition_variable work_available_;
    std::condition_variable job_finished_;
    std::vector<std::thread> workers_;
    std::vector<Job *> jobs_;
    bool shutting_down_ = false;
};

int run_serially(void *user_context, loom_parallel_body_t body, int64_t min, int64_t end, uint8_t *closure) {
    for (int64_t i = min; i < end; i++) {
        if (int result = body(user_context, (int)i, closure)) return result;
    }
    return 0;
}

}  // namespace

LOOM_RUNTIME_EXPORT int loom_do_par_for(void *user_context, loom_parallel_body_t body, int min, int extent,
                                        uint8_t *closure) {
    if (extent <= 0) return 0;
    const int64_t end = int64_t(min) + extent;
    const int threads = std::min(current_thread_count(), extent);
    if (on_pool_worker || threads <= 1) return run_serially(user_context, body, min, end, closure);

    Job job;
    job.body = body;
    job.user_context = user_context;
    job.closure = closure;
    job.max_threads = threads;
    job.next = min;
    job.end = end;
    job.capture = loom::internal::current_error_capture();
    return ThreadPool::instance().run(job);
}

LOOM_RUNTIME_EXPORT int loom_set_num_threads(int n) {
    const int previous = current_thread_count();
    thread_count.store(n <= 0 ? default_thread_count() : std::min(n, kMaxThreads));
    return previous;
}

LOOM_RUNTIME_EXPORT int loom_get_num_threads(void) { return current_thread_count(); }
