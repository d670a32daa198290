#include "loop_add_step_algorithm.h"

using namespace loom;

namespace apps {

LoopAddStep define_loop_add_step(const Func &m, const Func &cond, const Func &v_input, const Func &step_input,
                                 const Expr &dim, const Expr &scan_rows, Func state, Func v_final) {
    LoopAddStep p;
    // The two vectors copied once with a clamped index, so that no schedule
    // (a split or vector tail Loom sizes as if rounded up) reads past the
    // inputs' extent.
    Func v_initial("v_initial_padded"), step("step_padded");
    v_initial(p.x) = v_input(clamp(p.x, 0, dim - 1));
    step(p.x) = step_input(clamp(p.x, 0, dim - 1));
    p.v_initial = v_initial;
    p.step = step;
    p.state = state;
    p.v_final = v_final;
    Var x = p.x, t = p.t;
    // The trip count, read once before the loops from the inputs.
    Expr limit = cast<int>(min(m(0), cast<uint32_t>(max(scan_rows, 0))));
    Func trip_count("trip_count");
    trip_count() = clamp(select(cond(0) != cast<uint32_t>(0), limit, 0), 0, scan_rows);
    trip_count.compute_root();
    p.trips = trip_count();
    // Every RDom spans the scan rows, with a where() on the trip count: an
    // RDom whose extent reads a Func (RDom(1, trips - 1)) runs, but the rows
    // its update writes then depend on the Func's value and codegen fails
    // ("call to 'trip_count' should have been lowered to a Load"). The
    // where() is tested once per row and strip, outside the vector loop.
    // Iteration 0 reads v_initial, the others the previous row.
    p.first = RDom(0, 1, "first");
    p.first.where(p.trips > 0);
    p.rest = RDom(1, max(scan_rows - 1, 0), "rest");
    p.rest.where(p.rest.x < p.trips);
    p.zero_rows = RDom(0, scan_rows, "zero_rows");
    p.zero_rows.where(p.zero_rows.x >= p.trips);
    p.last_row = RDom(0, scan_rows, "last_row");
    p.last_row.where(p.last_row.x == p.trips - 1);

    state(x, t) = undef<float>();  // the updates write every row
    state(x, p.first) = v_initial(x) + step(x);
    state(x, p.rest) = state(x, p.rest - 1) + step(x);
    state(x, p.zero_rows) = 0.0f;
    v_final(x) = v_initial(x);
    v_final(x) = state(x, p.last_row);
    return p;
}

void schedule_loop_add_step(LoopAddStep &p) {
    Var x = p.x;
    // Row by row (the iteration loop outside), 16-float vectors across a
    // row; the previous row is still in L1/L2 when the next reads it.
    p.v_initial.compute_root().vectorize(x, 16, TailStrategy::GuardWithIf);
    p.step.compute_root().vectorize(x, 16, TailStrategy::GuardWithIf);
    p.state.update(0).reorder(x, p.first.x).vectorize(x, 16, TailStrategy::GuardWithIf);
    p.state.update(1).reorder(x, p.rest.x).vectorize(x, 16, TailStrategy::GuardWithIf);
    p.state.update(2).reorder(x, p.zero_rows.x).vectorize(x, 16, TailStrategy::GuardWithIf);
    p.v_final.vectorize(x, 16, TailStrategy::GuardWithIf);
    p.v_final.update(0).reorder(x, p.last_row.x).vectorize(x, 16, TailStrategy::GuardWithIf);
}

void schedule_loop_add_step_gpu(LoopAddStep &p) {
    Var x = p.x, bx("bx"), tx("tx");
    p.v_initial.compute_root().gpu_tile(x, bx, tx, 64, TailStrategy::GuardWithIf);
    p.step.compute_root().gpu_tile(x, bx, tx, 64, TailStrategy::GuardWithIf);
    p.state.update(0).gpu_tile(x, bx, tx, 64, TailStrategy::GuardWithIf);
    p.state.update(1).reorder(p.rest.x, x).gpu_tile(x, bx, tx, 64, TailStrategy::GuardWithIf);
    p.state.update(2).reorder(p.zero_rows.x, x).gpu_tile(x, bx, tx, 64, TailStrategy::GuardWithIf);
    p.v_final.gpu_tile(x, bx, tx, 64, TailStrategy::GuardWithIf);
    p.v_final.update(0).reorder(p.last_row.x, x).gpu_tile(x, bx, tx, 64, TailStrategy::GuardWithIf);
}

}  // namespace apps
