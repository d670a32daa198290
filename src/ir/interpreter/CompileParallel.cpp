// Parallel loops for the interpreter. A parallel For goes through
// loom_do_par_for as the LLVM back end's does (codegen/llvm/
// CodeGen_LLVM_Parallel.cpp): the same user_context, min and extent, so the
// runtime's thread pool (or a JITUserContext's custom_do_par_for) runs the
// iterations, at once on as many threads as it allows. Races and atomics
// then behave as in compiled code.
//
// Each thread runs the body on a Frame of its own, so nothing an iteration
// writes (its slots, regions, scratch lanes, a require() failure) is shared.
// A thread's Frame gets copies of the enclosing slots the body reads when it
// joins a run of the loop; the slots the body binds are written before they
// are read, as in a serial loop. Thread Frames are kept between runs.

#include <atomic>
#include <exception>
#include <mutex>
#include <set>

#include "ir/interpreter/InterpCore.h"
#include "runtime/RuntimeInternal.h"

namespace loom {
namespace internal {
namespace interp {

/** An enclosing slot the body of a parallel loop reads. */
struct CapturedSlot {
    int slot;
    int value_offset;
    int lanes;
};

struct ParallelLoopState {
    std::vector<CapturedSlot> captured;
    std::mutex mutex;                          // guards spare
    std::vector<std::unique_ptr<Frame>> spare; // thread Frames of earlier runs
};

namespace {

/** The Frames this thread runs iterations on, by run: the Frame a thread
 * took for a run stays its own until the run ends, and its next iterations
 * of the run take it again without a lock. (The runtime's pool never runs
 * two iterations of one run on a thread at once: while an iteration waits
 * for a loop nested in it, its thread runs only iterations of that loop
 * and of loops nested deeper.) Runs are numbered, never reused. */
struct ThreadFrames {
    static constexpr int kEntries = 4;  // loops nested in loops in loops...
    uint64_t run[kEntries] = {0, 0, 0, 0};
    Frame *frame[kEntries] = {nullptr, nullptr, nullptr, nullptr};
    int next = 0;  // the entry replaced next

    Frame *find(uint64_t id) const {
        for (int i = 0; i < kEntries; i++) {
            if (run[i] == id) return frame[i];
        }
        return nullptr;
    }
    void add(uint64_t id, Frame *f) {
        run[next] = id;
        frame[next] = f;
        next = (next + 1) % kEntries;
    }
};

thread_local ThreadFrames thread_frames;
std::atomic<uint64_t> next_run_id{1};

/** One run of a parallel loop: the thread Frames in use and the first
 * exception an iteration threw. */
class ParallelRun {
public:
    ParallelRun(Exec &loop, Frame &parent)
        : loop_(loop), state_(*loop.parallel), parent_(parent), id_(next_run_id.fetch_add(1)) {}

    // The Frames go back to the loop for its next run.
    ~ParallelRun() {
        std::lock_guard<std::mutex> lock(state_.mutex);
        for (std::unique_ptr<Frame> &f : frames_) state_.spare.push_back(std::move(f));
    }

    int iteration(int index) {
        if (failed_.load(std::memory_order_acquire)) return loom_error_code_generic;
        int result = 0;
        Frame *f = nullptr;
        try {
            f = thread_frames.find(id_);
            // A custom do_par_for may run an iteration of the run while this
            // thread's iteration of it waits: that one takes another Frame.
            if (!f || f->in_iteration) {
                f = acquire();
                thread_frames.add(id_, f);
            }
            f->in_iteration = true;
            f->failure = 0;
            f->values[loop_.value_offset].i = index;
            Exec &body = *loop_.stmts[0];
            result = body.fn(body, *f);
            if (result == 0) result = f->failure;
            f->in_iteration = false;
        } catch (...) {
            if (f) f->in_iteration = false;
            // Not through the runtime's C frames: rethrown by rethrow_if_thrown
            // on the loop's own thread.
            std::lock_guard<std::mutex> lock(mutex_);
            if (!thrown_) thrown_ = std::current_exception();
            failed_.store(true, std::memory_order_release);
            result = loom_error_code_generic;
        }
        return result;
    }

    void rethrow_if_thrown() {
        if (thrown_) std::rethrow_exception(thrown_);
    }

private:
    // A Frame joining this run, for the calling thread.
    Frame *acquire() {
        std::unique_ptr<Frame> f;
        {
            std::lock_guard<std::mutex> lock(state_.mutex);
            if (!state_.spare.empty()) {
                f = std::move(state_.spare.back());
                state_.spare.pop_back();
            }
        }
        if (!f) f = std::make_unique<Frame>();
        join(*f);
        std::lock_guard<std::mutex> lock(mutex_);
        frames_.push_back(std::move(f));
        return frames_.back().get();
    }

    // The parent Frame is only read while the loop runs.
    void join(Frame &f) {
        f.values.resize(parent_.values.size());
        f.regions.resize(parent_.regions.size());
        f.scratch.resize(parent_.scratch.size());
        f.user_context = parent_.user_context;
        f.failure = 0;
        for (const CapturedSlot &c : state_.captured) {
            for (int i = 0; i < c.lanes; i++) f.values[c.value_offset + i] = parent_.values[c.value_offset + i];
            f.regions[c.slot] = parent_.regions[c.slot];
        }
    }

    Exec &loop_;
    ParallelLoopState &state_;
    const Frame &parent_;
    const uint64_t id_;
    std::mutex mutex_;  // guards frames_ and thrown_
    std::vector<std::unique_ptr<Frame>> frames_;
    std::exception_ptr thrown_;
    std::atomic<bool> failed_{false};  // thrown_ is set
};

int run_iteration(void *, int index, uint8_t *closure) { return ((ParallelRun *)closure)->iteration(index); }

int exec_parallel_for(Exec &s, Frame &f) {
    const int min = (int)s.run(0, f)[0].i;
    const int extent = (int)s.run(1, f)[0].i;
    int result;
    {
        ParallelRun run(s, f);
        result = loom_do_par_for(f.user_context, run_iteration, min, extent, (uint8_t *)&run);
        run.rethrow_if_thrown();
    }
    return result != 0 ? result : f.failure;
}

// The slots that nodes under a statement or expression name.
void collect_slots(Node &n, std::set<int> &slots);

void collect_binding_slots(HandleBinding &h, std::set<int> &slots) {
    if (h.from_slot >= 0) slots.insert(h.from_slot);
    if (h.buffer) collect_slots(*h.buffer, slots);
}

void collect_slots(Node &n, std::set<int> &slots) {
    if (n.slot >= 0) slots.insert(n.slot);
    collect_binding_slots(n.handle, slots);
    for (NodePtr &kid : n.kids) collect_slots(*kid, slots);
}

void collect_slots(Exec &s, std::set<int> &slots) {
    if (s.slot >= 0) slots.insert(s.slot);
    collect_binding_slots(s.handle, slots);
    for (NodePtr &e : s.exprs) collect_slots(*e, slots);
    for (ExecPtr &child : s.stmts) collect_slots(*child, slots);
}

}  // namespace

ExecPtr Compiler::parallel_for(const For *op) {
    ExecPtr e = loop_exec(op, exec_parallel_for);
    // Slots are numbered in binding order: those below the loop variable's
    // were bound outside the loop.
    e->parallel = std::make_shared<ParallelLoopState>();
    std::set<int> used;
    collect_slots(*e->stmts[0], used);
    for (int s : used) {
        if (s >= e->slot) break;
        e->parallel->captured.push_back({s, slot(s).offset, slot(s).type.lanes()});
    }
    return e;
}

}  // namespace interp
}  // namespace internal
}  // namespace loom
