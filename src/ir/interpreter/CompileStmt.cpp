// Statements for the interpreter. Each exec function returns 0 to go on or a
// nonzero error code (from a failed AssertStmt or an allocation failure) that
// every enclosing statement passes straight up, so the run unwinds without
// exceptions; Allocate frees its memory on the way out.

#include <set>
#include <exception>
#include <thread>

#include "ir/IRVisitor.h"
#include "ir/interpreter/InterpCore.h"
#include "runtime/ErrorCapture.h"
#include "runtime/RuntimeInternal.h"

extern "C" int loom_jit_run_captured(void *capture, int (*body)(void *, int, uint8_t *), void *user_context,
                                     int index, uint8_t *closure);

namespace loom {
namespace internal {
namespace interp {

namespace {

int exec_block(Exec &s, Frame &f) {
    for (ExecPtr &child : s.stmts) {
        if (int r = child->fn(*child, f)) return r;
        if (f.failure) return f.failure;
    }
    return 0;
}

int exec_let(Exec &s, Frame &f) {
    s.exprs[0]->fn(*s.exprs[0], f, &f.values[s.value_offset]);
    if (s.op) apply_handle_binding(s.handle, f, s.slot);
    return s.stmts[0]->fn(*s.stmts[0], f);
}

// A scalar value that is not a host pointer, read in place (a sum that
// share_store_subexpressions named, a copy of a variable).
template<InPlaceForm F>
int exec_let_in_place(Exec &s, Frame &f) {
    f.values[s.value_offset] = read_in_place<F>(s.in_place[0], f);
    return s.stmts[0]->fn(*s.stmts[0], f);
}

ExecFn pick_let(InPlaceForm form) {
    switch (form) {
    case InPlaceForm::Slot: return exec_let_in_place<InPlaceForm::Slot>;
    case InPlaceForm::Constant: return exec_let_in_place<InPlaceForm::Constant>;
    case InPlaceForm::SlotPlusSlot: return exec_let_in_place<InPlaceForm::SlotPlusSlot>;
    case InPlaceForm::SlotPlusConstant: return exec_let_in_place<InPlaceForm::SlotPlusConstant>;
    default: return exec_let;
    }
}

int exec_assert(Exec &s, Frame &f) {
    if (s.run(0, f)[0].u != 0) return 0;
    Scalar code = s.run(1, f)[0];
    Type t = s.exprs[1]->type;
    if (!t.is_int_or_uint() || code.i == 0) return loom_error_code_generic;
    return (int)code.i;
}

int exec_body(Exec &s, Frame &f) { return s.stmts[0]->fn(*s.stmts[0], f); }

// Every ForType but Parallel (CompileParallel.cpp) runs serially; min and
// extent are evaluated once.
int exec_for(Exec &s, Frame &f) {
    int64_t min = s.run(0, f)[0].i;
    int64_t extent = s.run(1, f)[0].i;
    Exec &body = *s.stmts[0];
    Scalar &var = f.values[s.value_offset];
    for (int64_t i = min; i < min + extent; i++) {
        var.i = i;
        if (int r = body.fn(body, f)) return r;
        if (f.failure) return f.failure;
    }
    return 0;
}

int exec_while(Exec &s, Frame &f) {
    Exec &body = *s.stmts[0];
    while (s.run(0, f)[0].u != 0) {
        if (int r = body.fn(body, f)) return r;
        if (f.failure) return f.failure;
    }
    return 0;
}

int exec_if(Exec &s, Frame &f) {
    if (s.run(0, f)[0].u != 0) return s.stmts[0]->fn(*s.stmts[0], f);
    if (s.stmts.size() > 1) return s.stmts[1]->fn(*s.stmts[1], f);
    return 0;
}

// A condition that is a variable (hoist_loop_invariant_work names
// invariant ones), read in place.
int exec_if_slot(Exec &s, Frame &f) {
    if (f.values[s.in_place[0].slot[0]].u != 0) return s.stmts[0]->fn(*s.stmts[0], f);
    if (s.stmts.size() > 1) return s.stmts[1]->fn(*s.stmts[1], f);
    return 0;
}

int exec_evaluate(Exec &s, Frame &f) {
    s.run(0, f);
    return 0;
}

// A LetStmt of make_semaphore(count): the semaphore lives in this frame of
// the C++ stack for the body's run.
int exec_let_semaphore(Exec &s, Frame &f) {
    alignas(16) unsigned char storage[LOOM_SEMAPHORE_BYTES];
    loom_semaphore_init(storage, (int)s.run(0, f)[0].i);
    f.values[s.value_offset].u = (uintptr_t)storage;
    return s.stmts[0]->fn(*s.stmts[0], f);
}

struct ForkBranch {
    Exec *stmt;
    Frame *frame;
};

int run_fork_branch(void *, int, uint8_t *closure) {
    ForkBranch *b = (ForkBranch *)closure;
    int r = b->stmt->fn(*b->stmt, *b->frame);
    return r != 0 ? r : b->frame->failure;
}

// A Fork: the first branch on a thread of its own, with a copy of the frame
// (each branch binds slots of its own and only reads the enclosing ones, so
// the copies share what matters: the values of the enclosing slots, pointers
// to the same memory), the second on this thread. exprs are the enclosing
// semaphores the branches use: poisoned when a branch fails.
int exec_fork(Exec &s, Frame &f) {
    std::vector<void *> semaphores;
    for (size_t i = 0; i < s.exprs.size(); i++) semaphores.push_back((void *)(uintptr_t)s.run((int)i, f)[0].u);
    auto poison = [&] {
        for (void *semaphore : semaphores) loom_semaphore_poison(semaphore);
    };
    Frame producer_frame = f;
    ForkBranch producer{s.stmts[0].get(), &producer_frame};
    ForkBranch consumer{s.stmts[1].get(), &f};
    void *capture = current_error_capture();
    int producer_result = 0, consumer_result = 0;
    // An exception (an InternalError of the interpreter) must not leave
    // either thread: it would terminate the process on the producer's, and
    // skip the join on the consumer's. Each is kept, the other branch
    // released, and the first rethrown after the join.
    std::exception_ptr producer_error, consumer_error;
    std::thread thread([&] {
        try {
            producer_result = capture ? loom_jit_run_captured(capture, run_fork_branch, f.user_context, 0,
                                                              (uint8_t *)&producer)
                                      : run_fork_branch(f.user_context, 0, (uint8_t *)&producer);
        } catch (...) {
            producer_error = std::current_exception();
            producer_result = loom_error_code_generic;
        }
        if (producer_result != 0) poison();
    });
    try {
        consumer_result = run_fork_branch(f.user_context, 1, (uint8_t *)&consumer);
    } catch (...) {
        consumer_error = std::current_exception();
        consumer_result = loom_error_code_generic;
    }
    if (consumer_result != 0) poison();
    thread.join();
    if (producer_error) std::rethrow_exception(producer_error);
    if (consumer_error) std::rethrow_exception(consumer_error);
    // The first failure is the one that poisoned the other branch; a
    // poisoned wait fails with loom_error_code_generic.
    if (producer_result != 0 && consumer_result != 0) {
        return consumer_result == loom_error_code_generic ? producer_result : consumer_result;
    }
    return producer_result != 0 ? producer_result : consumer_result;
}

ExecPtr make_exec(ExecFn fn) {
    auto e = std::make_unique<Exec>();
    e->fn = fn;
    return e;
}

// The semaphores s waits on or releases, by name.
void collect_semaphores(const Stmt &s, std::set<std::string> &names) {
    struct Collect : IRGraphVisitor {
        std::set<std::string> *names;
        using IRGraphVisitor::visit;
        void visit(const Call *op) override {
            if (op->is_intrinsic(intrinsic::semaphore_acquire) || op->is_intrinsic(intrinsic::semaphore_release)) {
                if (const Variable *v = op->args.at(0).as<Variable>()) names->insert(v->name);
            }
            IRGraphVisitor::visit(op);
        }
    } collect;
    collect.names = &names;
    s.accept(&collect);
}

void require_scalar(const Expr &e, const char *what) {
    if (!e.type().is_scalar()) fail(std::string("Interpreter: ") + what + " must be a scalar, not " + e.type().to_string());
}

}  // namespace

ExecPtr Compiler::loop_exec(const For *op, ExecFn fn) {
    ExecPtr e = make_exec(fn);
    e->name = op->name;
    e->add_expr(expr(op->min));
    e->add_expr(expr(op->extent));
    e->slot = bind(op->name, op->min.type());
    e->value_offset = slot(e->slot).offset;
    e->stmts.push_back(stmt(op->body));
    unbind(op->name);
    return e;
}

ExecPtr Compiler::stmt(const Stmt &s) {
    if (!s.defined()) return make_exec(exec_block);  // an empty block
    switch (s.node_type()) {
    case IRNodeType::LetStmt: {
        const LetStmt *l = s.as<LetStmt>();
        if (const Call *c = l->value.as<Call>(); c && c->is_intrinsic(intrinsic::make_semaphore)) {
            ExecPtr e = make_exec(exec_let_semaphore);
            e->name = l->name;
            e->add_expr(expr(c->args.at(0)));
            e->slot = bind(l->name, l->value.type());
            e->value_offset = slot(e->slot).offset;
            e->stmts.push_back(stmt(l->body));
            unbind(l->name);
            return e;
        }
        ExecPtr e = make_exec(exec_let);
        e->name = l->name;
        e->add_expr(expr(l->value));
        e->op = l->value.type().is_handle() ? 1 : 0;
        if (e->op) {
            handle_binding(l->value, e->handle);
        } else {
            e->fn = pick_let(in_place_form(l->value, *e->exprs[0], true, e->in_place[0]));
        }
        e->slot = bind(l->name, l->value.type());
        e->value_offset = slot(e->slot).offset;
        e->stmts.push_back(stmt(l->body));
        unbind(l->name);
        return e;
    }
    case IRNodeType::AssertStmt: {
        const AssertStmt *a = s.as<AssertStmt>();
        require_scalar(a->condition, "an AssertStmt condition");
        ExecPtr e = make_exec(exec_assert);
        e->add_expr(expr(a->condition));
        e->add_expr(expr(a->message));
        return e;
    }
    case IRNodeType::ProducerConsumer: {
        ExecPtr e = make_exec(exec_body);
        e->stmts.push_back(stmt(s.as<ProducerConsumer>()->body));
        return e;
    }
    case IRNodeType::For: {
        const For *op = s.as<For>();
        require_scalar(op->min, "a loop min");
        require_scalar(op->extent, "a loop extent");
        // The runtime's loop index is a C int (as in the LLVM back end).
        if (op->for_type == ForType::Parallel && op->min.type() == Int(32)) return parallel_for(op);
        return loop_exec(op, exec_for);
    }
    case IRNodeType::While: {
        const While *op = s.as<While>();
        require_scalar(op->condition, "a While condition");
        ExecPtr e = make_exec(exec_while);
        e->add_expr(expr(op->condition));
        e->stmts.push_back(stmt(op->body));
        return e;
    }
    case IRNodeType::Store: return store(s.as<Store>());
    case IRNodeType::Allocate: return allocate(s.as<Allocate>());
    case IRNodeType::Free: return free_stmt(s.as<Free>());
    case IRNodeType::Block: {
        // Flatten nested Blocks into one list.
        ExecPtr e = make_exec(exec_block);
        std::vector<Stmt> pending{s};
        while (!pending.empty()) {
            Stmt cur = pending.back();
            pending.pop_back();
            if (const Block *b = cur.as<Block>()) {
                if (b->rest.defined()) pending.push_back(b->rest);
                if (b->first.defined()) pending.push_back(b->first);
            } else {
                e->stmts.push_back(stmt(cur));
            }
        }
        return e;
    }
    case IRNodeType::IfThenElse: {
        const IfThenElse *op = s.as<IfThenElse>();
        require_scalar(op->condition, "an IfThenElse condition");
        ExecPtr e = make_exec(exec_if);
        e->add_expr(expr(op->condition));
        if (in_place_form(op->condition, *e->exprs[0], false, e->in_place[0]) == InPlaceForm::Slot) e->fn = exec_if_slot;
        e->stmts.push_back(stmt(op->then_case));
        if (op->else_case.defined()) e->stmts.push_back(stmt(op->else_case));
        return e;
    }
    case IRNodeType::Evaluate: {
        ExecPtr e = make_exec(exec_evaluate);
        e->add_expr(expr(s.as<Evaluate>()->value));
        return e;
    }
    case IRNodeType::Fork: {
        const Fork *op = s.as<Fork>();
        ExecPtr e = make_exec(exec_fork);
        std::set<std::string> used;
        collect_semaphores(op->first, used);
        collect_semaphores(op->rest, used);
        for (const std::string &name : used) {
            const int found = lookup(name);
            if (found >= 0) e->add_expr(expr(Variable::make(slot(found).type, name)));
        }
        e->stmts.push_back(stmt(op->first));
        e->stmts.push_back(stmt(op->rest));
        return e;
    }
    case IRNodeType::Provide:
        fail("Interpreter: Provide to " + s.as<Provide>()->name +
             " is not part of the lowered form (storage flattening turns it into Store)");
    case IRNodeType::Realize:
        fail("Interpreter: Realize of " + s.as<Realize>()->name +
             " is not part of the lowered form (storage flattening turns it into Allocate)");
    default: break;
    }
    fail("Interpreter: an expression node was found where a statement was expected");
}

}  // namespace interp
}  // namespace internal
}  // namespace loom
