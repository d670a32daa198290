#ifndef LOOM_STAGE_H
#define LOOM_STAGE_H

/** \file
 * Stage: one definition of a Func, its pure definition (stage 0) or update n
 * (stage n + 1, from Func::update(n)), and the calls that shape its loop
 * nest. Func has the same calls for its pure definition.
 *
 *     Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
 *     blur.tile(x, y, xo, yo, xi, yi, 64, 16).vectorize(xi, 8).parallel(yo);
 *     hist.update(0).unroll(r, {8, 4, 1});   // blocks of 8, then 4, then 1
 *
 * Loops are listed innermost first, as in Halide: a pure definition f(x, y)
 * starts as loops (x, y) with x innermost; an update starts with its RVars
 * innermost (first RVar innermost) and then the pure Vars it keeps.
 *
 * Every call throws CompileError naming the Func, the stage and the Var
 * when the directive is invalid: a loop the stage does not have (or no
 * longer has, because it was split, fused or renamed), a name already in
 * use, a split factor that is not a positive integer, a tail strategy not
 * allowed where it is used, fusing loops that are not adjacent, reordering
 * with a repeated loop, giving a loop two kinds (vectorize then parallel)
 * or the same kind twice, splitting or fusing a loop already marked
 * parallel/vectorized/unrolled, and vectorizing or parallelizing an RVar
 * whose iterations may depend on each other. An RVar counts as independent
 * only when the update writes f(..., r, ...) with r a bare argument, and
 * every read of f in the update reads at r in that same position: then
 * different iterations touch different elements. Reordering two RVar loops
 * that are not independent is refused for the same reason, unless the update
 * is an associative and commutative reduction of integers or booleans
 * (f(x) += e, *, min, max, &&, ||: see rfactor), whose RVars may be visited
 * in any order, as in Halide. A directive that
 * throws leaves the schedule unchanged.
 */

#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "loom/DeviceAPI.h"
#include "loom/Expr.h"
#include "loom/LoopLevel.h"
#include "loom/Schedule.h"
#include "loom/VarOrRVar.h"
#include "loom/internal/FunctionPtr.h"
#include "loom/internal/Parameter.h"

namespace loom {

class Func;

class Stage {
public:
    Stage(const internal::FunctionPtr &func, int stage) : func_(func), stage_(stage) {}
    /** A specialization of stage `stage`: specialization[0] of the stage,
     * then specialization[1] of that one, ... (what specialize() returns). */
    Stage(const internal::FunctionPtr &func, int stage, std::vector<int> specialization)
        : func_(func), stage_(stage), specialization_(std::move(specialization)) {}

    /** "f" for the pure definition, "f.update(n)" for update n. */
    std::string name() const;
    int stage_index() const { return stage_; }
    const internal::FunctionPtr &function() const { return func_; }
    /** Empty for the stage itself; the path of specialize() calls that led
     * to this Stage otherwise. */
    const std::vector<int> &specialization_path() const { return specialization_; }

    /** Splits loop old into outer * factor + inner; inner becomes the
     * innermost of the two. outer may be old itself. */
    Stage &split(const VarOrRVar &old, const VarOrRVar &outer, const VarOrRVar &inner, const Expr &factor,
                 TailStrategy tail = TailStrategy::Auto);
    /** Splits loop old into tiles of factor whose boundaries lie at align
     * plus multiples of factor (Halide's aligned split) instead of at the
     * loop's min: old = outer * factor + inner + base, where base is the
     * largest value <= old's min that is congruent to align modulo factor.
     * align may be any Expr the loop's bounds can be computed before (e.g. a
     * Param); an expression of old that depends on (old - align) % factor
     * then simplifies per value of an unrolled inner. The tiles at both ends
     * may be partial: GuardWithIf (and the Predicate strategies) guard both;
     * RoundUp and ShiftInwards are a CompileError (they would compute before
     * the loop's min). \throws CompileError as split() does. */
    Stage &split(const VarOrRVar &old, const VarOrRVar &outer, const VarOrRVar &inner, const Expr &factor,
                 const Expr &align, TailStrategy tail = TailStrategy::Auto);
    /** Replaces adjacent loops inner and outer (outer directly outside inner)
     * by one loop fused of extent inner.extent * outer.extent. */
    Stage &fuse(const VarOrRVar &inner, const VarOrRVar &outer, const VarOrRVar &fused);
    /** Gives loop old the name new_name. */
    Stage &rename(const VarOrRVar &old, const VarOrRVar &new_name);
    /** Puts the named loops in this order, innermost first, in the places they
     * held; the other loops stay where they are. */
    Stage &reorder(const std::vector<VarOrRVar> &vars);
    template<typename... Args>
    std::enable_if_t<(std::is_convertible_v<Args, VarOrRVar> && ...), Stage &>
    reorder(const VarOrRVar &x, const VarOrRVar &y, Args &&...rest) {
        return reorder(std::vector<VarOrRVar>{x, y, VarOrRVar(std::forward<Args>(rest))...});
    }
    /** split x and y, then reorder(xi, yi, xo, yo). */
    Stage &tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xo, const VarOrRVar &yo,
                const VarOrRVar &xi, const VarOrRVar &yi, const Expr &xfactor, const Expr &yfactor,
                TailStrategy tail = TailStrategy::Auto);
    /** The same with x and y reused as the outer loops. */
    Stage &tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xi, const VarOrRVar &yi,
                const Expr &xfactor, const Expr &yfactor, TailStrategy tail = TailStrategy::Auto);
    /** Any number of dimensions: split previous[i] into outers[i] and
     * inners[i], then put all inners inside all outers. */
    Stage &tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &outers,
                const std::vector<VarOrRVar> &inners, const std::vector<Expr> &factors,
                TailStrategy tail = TailStrategy::Auto);
    /** As above with previous reused as the outer names. */
    Stage &tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &inners,
                const std::vector<Expr> &factors, TailStrategy tail = TailStrategy::Auto);

    /** Marks the loop as a SIMD loop (its extent must be a constant). */
    Stage &vectorize(const VarOrRVar &var);
    /** split(var, var, var_vi, factor) then vectorize(var_vi); factor must be
     * a positive constant. */
    Stage &vectorize(const VarOrRVar &var, const Expr &factor, TailStrategy tail = TailStrategy::Auto);
    /** Unrolls the loop completely (its extent must be a constant). */
    Stage &unroll(const VarOrRVar &var);
    /** split(var, var, var_ui, factor) then unroll(var_ui). */
    Stage &unroll(const VarOrRVar &var, const Expr &factor, TailStrategy tail = TailStrategy::Auto);
    /** A loop of any extent run as unrolled blocks: blocks of factors[0]
     * while that many iterations remain, then of factors[1], and so on.
     * factors must be positive, strictly decreasing, and end with 1, e.g.
     * unroll(x, {8, 4, 1}). */
    Stage &unroll(const VarOrRVar &var, std::initializer_list<int> factors) {
        return unroll(var, std::vector<int>(factors));
    }
    Stage &unroll(const VarOrRVar &var, const std::vector<int> &factors);
    /** Runs the iterations of the loop on the thread pool. */
    Stage &parallel(const VarOrRVar &var);
    /** split(var, var, var_pi, task_size) then parallel(var): each task runs
     * task_size iterations. */
    Stage &parallel(const VarOrRVar &var, const Expr &task_size, TailStrategy tail = TailStrategy::Auto);
    /** Marks the loop as an ordinary sequential loop (the default). */
    Stage &serial(const VarOrRVar &var);
    /** Sets the loop partitioning policy of loop var (see loom::Partition).
     * \throws CompileError if var is not a loop of this stage. */
    Stage &partition(const VarOrRVar &var, Partition policy);
    /** partition(v, Partition::Never) for each of vars. */
    Stage &never_partition(const std::vector<VarOrRVar> &vars);
    template<typename... Args>
    std::enable_if_t<(std::is_convertible_v<Args, VarOrRVar> && ...), Stage &>
    never_partition(const VarOrRVar &x, Args &&...rest) {
        return never_partition(std::vector<VarOrRVar>{x, VarOrRVar(std::forward<Args>(rest))...});
    }
    /** partition(v, Partition::Always) for each of vars. */
    Stage &always_partition(const std::vector<VarOrRVar> &vars);
    template<typename... Args>
    std::enable_if_t<(std::is_convertible_v<Args, VarOrRVar> && ...), Stage &>
    always_partition(const VarOrRVar &x, Args &&...rest) {
        return always_partition(std::vector<VarOrRVar>{x, VarOrRVar(std::forward<Args>(rest))...});
    }
    /** Never (always) partition every loop of this stage. A split, fuse or
     * rename passes a loop's policy on to the loops it makes, so loops split
     * later inherit it. */
    Stage &never_partition_all();
    Stage &always_partition_all();

    /** Makes each store of this update an atomic read-modify-write
     * (Halide's atomic()), so that its RVar loops may be parallelized or
     * vectorized although different iterations update the same element:
     *
     *     hist(im(r.x)) += 1;
     *     hist.update().atomic().parallel(r.x);   // or .vectorize(r.x, 8)
     *
     * Call it before parallel()/vectorize(). When such a loop is marked, the
     * update must be an associative and commutative reduction (+, *, min,
     * max, &&, ||, as rfactor recognizes) or assign a value that does not
     * read the Func; override_associativity_test = true skips that test for
     * updates the user knows to be associative. Floating-point sums are
     * allowed and, as in Halide, may round differently from run to run.
     * A Tuple update that reads the Func takes a lock of the element it
     * writes (Halide's mutex), so its loop may be parallel but not vectorized.
     * \throws CompileError naming the stage when the
     * written element's coordinates read the Func, when the value or an
     * RDom predicate reads the Func at another element than the one written,
     * and (when the loop is marked) when the operator is not provably
     * associative; compiling it with GPU loops, or a locked Tuple update
     * with a vectorized loop, is refused too. */
    Stage &atomic(bool override_associativity_test = false);

    /** At the top of each iteration of loop `at`, prefetches the region of f
     * (or of an ImageParam / Buffer) that the body of `at` reads `offset`
     * iterations of loop `from` ahead (Halide's prefetch). `from` is `at` or
     * a loop outside it. The prefetch never changes results; it is a hint,
     * emitted on the CPU as llvm.prefetch of each cache line of the region,
     * and ignored by the interpreter and the GPU. strategy says what happens
     * to the part of the region outside what the pipeline computes or reads
     * of f (see PrefetchBoundStrategy). \throws CompileError naming the stage
     * when `at` or `from` is not a loop of the stage, `from` is inside `at`,
     * or the stage does not read f. */
    Stage &prefetch(const Func &f, const VarOrRVar &at, const VarOrRVar &from, Expr offset = 1,
                    PrefetchBoundStrategy strategy = PrefetchBoundStrategy::GuardWithIf);
    Stage &prefetch(const internal::Parameter &param, const VarOrRVar &at, const VarOrRVar &from,
                    Expr offset = 1, PrefetchBoundStrategy strategy = PrefetchBoundStrategy::GuardWithIf);
    /** An ImageParam or Buffer (anything with parameter()). */
    template<typename T>
    Stage &prefetch(const T &image, const VarOrRVar &at, const VarOrRVar &from, Expr offset = 1,
                    PrefetchBoundStrategy strategy = PrefetchBoundStrategy::GuardWithIf) {
        return prefetch(image.parameter(), at, from, std::move(offset), strategy);
    }

    /** \name GPU schedules (Halide's). Block loops run as workgroups of a
     * kernel, thread loops as the invocations of a workgroup; device_api
     * Default_GPU means the Target's GPU API (vulkan). The innermost block
     * (thread) loop is dimension x. Stages without GPU loops run on the CPU;
     * lowering copies buffers between host and device as needed.
     *
     *     f.gpu_tile(x, y, xo, yo, xi, yi, 16, 16);   // 16x16 workgroups
     *     g.update().gpu_blocks(y).gpu_threads(x);
     *
     * Thread loops need a constant extent and must sit inside block loops;
     * at most three of each. A loop already marked parallel, vectorized or
     * unrolled can't become a GPU loop, and RVars whose iterations may depend
     * on each other can't either (as for parallel). Violations, and a GPU
     * schedule compiled for a Target without a GPU API, throw CompileError
     * naming the Func, the stage and the Var. */
    ///@{
    Stage &gpu_blocks(const VarOrRVar &block_x, DeviceAPI device_api = DeviceAPI::Default_GPU);
    Stage &gpu_blocks(const VarOrRVar &block_x, const VarOrRVar &block_y,
                      DeviceAPI device_api = DeviceAPI::Default_GPU);
    Stage &gpu_blocks(const VarOrRVar &block_x, const VarOrRVar &block_y, const VarOrRVar &block_z,
                      DeviceAPI device_api = DeviceAPI::Default_GPU);
    Stage &gpu_threads(const VarOrRVar &thread_x, DeviceAPI device_api = DeviceAPI::Default_GPU);
    Stage &gpu_threads(const VarOrRVar &thread_x, const VarOrRVar &thread_y,
                       DeviceAPI device_api = DeviceAPI::Default_GPU);
    Stage &gpu_threads(const VarOrRVar &thread_x, const VarOrRVar &thread_y, const VarOrRVar &thread_z,
                       DeviceAPI device_api = DeviceAPI::Default_GPU);
    /** gpu_blocks(block_x...) and gpu_threads(thread_x...) together. */
    Stage &gpu(const VarOrRVar &block_x, const VarOrRVar &thread_x, DeviceAPI device_api = DeviceAPI::Default_GPU);
    Stage &gpu(const VarOrRVar &block_x, const VarOrRVar &block_y, const VarOrRVar &thread_x,
               const VarOrRVar &thread_y, DeviceAPI device_api = DeviceAPI::Default_GPU);
    Stage &gpu(const VarOrRVar &block_x, const VarOrRVar &block_y, const VarOrRVar &block_z,
               const VarOrRVar &thread_x, const VarOrRVar &thread_y, const VarOrRVar &thread_z,
               DeviceAPI device_api = DeviceAPI::Default_GPU);
    /** Runs the whole stage in one invocation of a one-workgroup kernel. */
    Stage &gpu_single_thread(DeviceAPI device_api = DeviceAPI::Default_GPU);
    /** split(x, bx, tx, x_size, tail), then bx is a block loop and tx a
     * thread loop. The forms without bx reuse x as the block loop. */
    Stage &gpu_tile(const VarOrRVar &x, const VarOrRVar &bx, const VarOrRVar &tx, const Expr &x_size,
                    TailStrategy tail = TailStrategy::Auto, DeviceAPI device_api = DeviceAPI::Default_GPU);
    Stage &gpu_tile(const VarOrRVar &x, const VarOrRVar &tx, const Expr &x_size,
                    TailStrategy tail = TailStrategy::Auto, DeviceAPI device_api = DeviceAPI::Default_GPU);
    Stage &gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &bx, const VarOrRVar &by,
                    const VarOrRVar &tx, const VarOrRVar &ty, const Expr &x_size, const Expr &y_size,
                    TailStrategy tail = TailStrategy::Auto, DeviceAPI device_api = DeviceAPI::Default_GPU);
    Stage &gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &tx, const VarOrRVar &ty,
                    const Expr &x_size, const Expr &y_size, TailStrategy tail = TailStrategy::Auto,
                    DeviceAPI device_api = DeviceAPI::Default_GPU);
    Stage &gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z, const VarOrRVar &bx,
                    const VarOrRVar &by, const VarOrRVar &bz, const VarOrRVar &tx, const VarOrRVar &ty,
                    const VarOrRVar &tz, const Expr &x_size, const Expr &y_size, const Expr &z_size,
                    TailStrategy tail = TailStrategy::Auto, DeviceAPI device_api = DeviceAPI::Default_GPU);
    Stage &gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z, const VarOrRVar &tx,
                    const VarOrRVar &ty, const VarOrRVar &tz, const Expr &x_size, const Expr &y_size,
                    const Expr &z_size, TailStrategy tail = TailStrategy::Auto,
                    DeviceAPI device_api = DeviceAPI::Default_GPU);
    ///@}

    /** Fuses this stage's loops with those of stage s, from the outermost
     * loop down to s's loop var, matched by position from the outside; in
     * each fused iteration this stage runs after s. Both stages' Funcs must
     * be computed at the same level. */
    Stage &compute_with(const Stage &s, const VarOrRVar &var, LoopAlignStrategy align = LoopAlignStrategy::Auto);
    Stage &compute_with(const LoopLevel &level, LoopAlignStrategy align = LoopAlignStrategy::Auto);
    /** With a LoopAlignStrategy per fused loop of this stage (the others:
     * Auto, which is NoAlign). */
    Stage &compute_with(const Stage &s, const VarOrRVar &var,
                        const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align);
    Stage &compute_with(const LoopLevel &level, const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align);

    /** Splits this update, an associative reduction over an RDom, in two
     * (Halide's rfactor): returns a new Func, the intermediate, that computes
     * the reduction over the RVars not in `preserved` separately for each
     * value of the preserved RVars, which become its extra pure Vars (each
     * pair names the new Var); this update then becomes the merge, the same
     * operator applied over the preserved RVars to the intermediate's
     * results. The intermediate is an ordinary Func: schedule it
     * (compute_root, parallel or vectorize its new Vars, ...).
     *
     *     RDom r(0, 1024);  Var u("u");
     *     sum() = 0;  sum() += in(r);
     *     Func intm = sum.update().rfactor(r.x, u);   // intm(u) = sum over r
     *
     * The update must be f(args) = f(args) op e for op one of +, *, min,
     * max, &&, || (e may not read f), per element of a Tuple, or the argmin /
     * argmax Tuple form select(f[k] < e, f[i], e[i]) (see docs/SCHEDULING.md).
     * RVars made by split (split(r.x, rxo, rxi, 8) then rfactor(rxi, u))
     * can be preserved, as in Halide. Its schedule is reset. \throws CompileError naming the Func when the
     * stage is a pure definition or has no RDom, the update is not
     * associative (e.g. subtraction, or f(x) = f(x) * 2 + e), an RVar is not
     * one of this update's RDom or of the splits of its RVars (fused RVars
     * are refused), an RVar or a Var is
     * given twice or a Var is already a pure Var of the Func, the RDom has a loop_while
     * condition, or the operator is not commutative (argmin/argmax forms)
     * and the preserved RVars are not the outermost ones (that would change
     * the order of the reduction). */
    Func rfactor(const std::vector<std::pair<RVar, Var>> &preserved);
    Func rfactor(const RVar &r, const Var &v);

    /** \name Specializations (Halide's specialize; src/lang/Specialize.cpp,
     * lower/Specialize.cpp). specialize(cond) returns a copy of this stage's
     * schedule that runs instead of it when cond holds: the stage's loop
     * nest is duplicated under `if (cond)`, each copy scheduled on its own.
     *
     *     f.specialize(w >= 16).vectorize(x, 16);            // wide rows
     *     f.specialize(in.dim(0).stride() == 1).vectorize(x, 8);
     *     f.specialize_fail("w must be at least 16");        // else: error
     *
     * cond is a boolean Expr of Params and buffer fields (dim(d).min(),
     * .extent(), .stride() of an ImageParam or output_buffer()), evaluated
     * once where the stage runs. Specializations are tested in the order
     * they were made; the first whose condition holds runs, otherwise the
     * stage's own schedule. Inside a specialization `v == c` (v a Param or
     * buffer field, c a constant) lets the compiler use c for v, so
     * specialize(in.dim(0).stride() == 1) gives dense vector loads. A
     * condition that is constant true makes the later ones unreachable (they
     * are dropped); specialize() with a condition already used returns that
     * specialization. The schedule made before specialize() is copied into
     * it; directives given to the stage afterwards do not reach it.
     * Bounds inference sizes every region for the branch that runs (a
     * select on the conditions), as in Halide.
     *
     * specialize_fail(message) makes "no specialization matched" an error:
     * the pipeline fails at run time with message (RuntimeError in the JIT,
     * loom_error_code_user_assertion from AOT code).
     *
     * \throws CompileError naming the Func: a condition that is not boolean,
     * reads a Func, or varies per point (a Var or RVar); specialize() after
     * specialize_fail(); specialize_fail() twice; and, when the pipeline is
     * compiled, a specialized Func that is inlined (compute_root() it) or a
     * specialized stage fused by compute_with. */
    ///@{
    Stage specialize(const Expr &condition);
    void specialize_fail(const std::string &message);
    ///@}

private:
    Stage &gpu_tile_dims(const std::vector<VarOrRVar> &vars, const std::vector<VarOrRVar> &blocks,
                         const std::vector<VarOrRVar> &threads, const std::vector<Expr> &sizes, TailStrategy tail,
                         DeviceAPI device_api);

    internal::FunctionPtr func_;
    int stage_;
    std::vector<int> specialization_;
};

}  // namespace loom

#endif
