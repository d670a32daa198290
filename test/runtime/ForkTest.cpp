// The runtime of Func::async (runtime/Fork.c): semaphores, loom_do_fork's
// two tasks running at once (they can wait for each other), a failing task
// poisoning the semaphores so that the other stops waiting, and forks
// started from every iteration of a parallel loop whatever the pool's
// thread count (fork threads are not pool workers, so none deadlocks).

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "loom/runtime/loom_runtime.h"
#include "runtime/RuntimeInternal.h"

namespace {

struct alignas(16) Semaphore {
    unsigned char bytes[LOOM_SEMAPHORE_BYTES];
};

/** Task 0 and task 1 take turns, each waiting for the other's release. */
struct PingPong {
    Semaphore ping, pong;
    std::vector<int> order;  // written alternately, never at once
    int rounds = 0;
};

int ping_pong(void *, int index, uint8_t *closure) {
    PingPong *p = (PingPong *)closure;
    for (int i = 0; i < p->rounds; i++) {
        if (index == 0) {
            if (int r = loom_semaphore_acquire(&p->ping, 1)) return r;
            p->order.push_back(0);
            loom_semaphore_release(&p->pong, 1);
        } else {
            if (int r = loom_semaphore_acquire(&p->pong, 1)) return r;
            p->order.push_back(1);
            loom_semaphore_release(&p->ping, 1);
        }
    }
    return 0;
}

TEST(Fork, TasksRunAtOnceAndWaitForEachOther) {
    PingPong p;
    p.rounds = 500;
    loom_semaphore_init(&p.ping, 1);
    loom_semaphore_init(&p.pong, 0);
    void *semaphores[] = {&p.ping, &p.pong};
    ASSERT_EQ(loom_do_fork(nullptr, ping_pong, (uint8_t *)&p, semaphores, 2), 0);
    ASSERT_EQ(p.order.size(), 1000u);
    for (size_t i = 0; i < p.order.size(); i++) EXPECT_EQ(p.order[i], (int)(i % 2)) << i;
}

/** Task 0 fails at once; task 1 waits for a release that never comes. */
int fail_or_wait(void *, int index, uint8_t *closure) {
    Semaphore *s = (Semaphore *)closure;
    if (index == 0) return -3;
    return loom_semaphore_acquire(s, 1);
}

TEST(Fork, AFailingTaskPoisonsTheSemaphoresAndItsCodeIsReturned) {
    Semaphore s;
    loom_semaphore_init(&s, 0);
    void *semaphores[] = {&s};
    EXPECT_EQ(loom_do_fork(nullptr, fail_or_wait, (uint8_t *)&s, semaphores, 1), -3);
    // Poisoned: every later wait fails too.
    EXPECT_NE(loom_semaphore_acquire(&s, 1), 0);
}

/** A producer/consumer pair through a ring of 2 slots, n items. */
struct Ring {
    Semaphore space, ready;
    int slots[2] = {0, 0};
    int items = 0;
    long sum = 0;
};

int ring_task(void *, int index, uint8_t *closure) {
    Ring *r = (Ring *)closure;
    for (int i = 0; i < r->items; i++) {
        if (index == 0) {
            if (int e = loom_semaphore_acquire(&r->space, 1)) return e;
            r->slots[i % 2] = i;
            loom_semaphore_release(&r->ready, 1);
        } else {
            if (int e = loom_semaphore_acquire(&r->ready, 1)) return e;
            r->sum += r->slots[i % 2];
            loom_semaphore_release(&r->space, 1);
        }
    }
    return 0;
}

std::atomic<int> forks_done{0};

int fork_per_iteration(void *, int index, uint8_t *) {
    Ring r;
    r.items = 200 + index;
    loom_semaphore_init(&r.space, 2);
    loom_semaphore_init(&r.ready, 0);
    void *semaphores[] = {&r.space, &r.ready};
    if (int e = loom_do_fork(nullptr, ring_task, (uint8_t *)&r, semaphores, 2)) return e;
    if (r.sum != (long)r.items * (r.items - 1) / 2) return -1;
    forks_done++;
    return 0;
}

TEST(Fork, ForksInEveryIterationOfAParallelLoop) {
    for (int threads : {1, 2, 8}) {
        const int previous = loom_set_num_threads(threads);
        forks_done = 0;
        EXPECT_EQ(loom_do_par_for(nullptr, fork_per_iteration, 0, 32, nullptr), 0) << threads << " threads";
        EXPECT_EQ(forks_done.load(), 32) << threads << " threads";
        loom_set_num_threads(previous);
    }
}

}  // namespace
