#include "lower/LargeBuffers.h"

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "loom/Error.h"
#include "loom/runtime/loom_runtime.h"

namespace loom {
namespace internal {

namespace {

constexpr int64_t kLimitBytes = int64_t(1) << 31;

Expr text(const std::string &s) { return StringImm::make(s); }

Expr too_large(const std::vector<Expr> &pieces) {
    std::vector<Expr> args = {Expr(int(loom_error_code_buffer_too_large))};
    args.insert(args.end(), pieces.begin(), pieces.end());
    return Call::make(Int(32), intrinsic::error, args, CallType::Intrinsic);
}

Expr wide(const Expr &e) { return Cast::make(Int(64), e); }

/** What to do about a buffer of 2^31 bytes or more: on a 64-bit target,
 * large_buffers; a 32-bit target can't address one at all. */
std::string advice(const Target &t) {
    if (t.bits == 32) {
        return " A 32-bit target (" + t.to_string() +
               ") cannot address buffers of 2^31 bytes or more: use smaller buffers, or a 64-bit target with the "
               "feature large_buffers.";
    }
    return " Add the target feature large_buffers to use buffers of 2^31 bytes or more.";
}

/** The buffer's actual field, as the constraint checks read it (the body's
 * <b>.stride.0 symbol is the constant 1 of the dense-innermost constraint). */
Expr field(const std::string &buffer, const char *intrinsic_name, int d) {
    return Call::make(Int(32), intrinsic_name, {Variable::make(Handle(), buffer + ".buffer"), Expr(d)},
                      CallType::PureIntrinsic);
}

/** Checks of one buffer argument: in each dimension the bytes its extent
 * spans at its stride, and the product of its extents in bytes. A buffer
 * whose host pointer is NULL (a bounds query) is not checked. */
std::vector<Stmt> argument_checks(const LoweredArgument &a, const std::string &advice) {
    const std::string who = (a.kind == LoweredArgument::OutputBuffer ? "Output buffer " : "Input buffer ") + a.name;
    const int64_t element_bytes = a.type.bytes();
    Expr is_query = Call::make(Bool(), intrinsic::buffer_host_is_null, {Variable::make(Handle(), a.name + ".buffer")},
                               CallType::PureIntrinsic);
    const Expr limit = make_const(Int(64), kLimitBytes);
    std::vector<Stmt> checks;
    Expr elements = make_const(Int(64), 1);
    for (int d = 0; d < a.dimensions; d++) {
        Expr extent = field(a.name, intrinsic::buffer_get_extent, d);
        Expr stride = field(a.name, intrinsic::buffer_get_stride, d);
        Expr abs_stride = Max::make(wide(stride), Sub::make(make_const(Int(64), 0), wide(stride)));
        Expr abs_span = Mul::make(Mul::make(wide(extent), abs_stride), make_const(Int(64), element_bytes));
        checks.push_back(AssertStmt::make(
            Or::make(is_query, LT::make(abs_span, limit)),
            too_large({text(who + " spans "), abs_span,
                       text(" bytes in dimension " + std::to_string(d) + " (extent "), extent, text(" x stride "),
                       stride, text(" x " + std::to_string(element_bytes) +
                                    " bytes), 2^31 or more." + advice)})));
        // Each factor is below 2^31 bytes (the check above), so the product
        // of two stays exact in 64 bits; checked after each factor.
        elements = Mul::make(elements, wide(extent));
        if (d == 0) continue;
        Expr bytes = Mul::make(elements, make_const(Int(64), element_bytes));
        checks.push_back(AssertStmt::make(
            Or::make(is_query, LT::make(bytes, limit)),
            too_large({text(who + " has "), bytes,
                       text(" bytes in its first " + std::to_string(d + 1) +
                            " dimensions, 2^31 or more." + advice)})));
    }
    return checks;
}

/** Puts checks below the LetStmts and header checks at the top of s, where
 * the buffer fields are defined. */
Stmt insert_after_fields(const Stmt &s, const std::vector<Stmt> &checks) {
    if (const LetStmt *l = s.as<LetStmt>()) {
        return LetStmt::make(l->name, l->value, insert_after_fields(l->body, checks));
    }
    if (const Block *b = s.as<Block>(); b && b->first.as<AssertStmt>()) {
        return Block::make(b->first, insert_after_fields(b->rest, checks));
    }
    std::vector<Stmt> all = checks;
    all.push_back(s);
    return Block::make(all);
}

/** Without large_buffers: every allocation outside GPU loops stays under
 * 2^31 bytes, checked before it is made (a constant size too: the
 * simplifier folds its check, which then always fails). */
class CheckAllocations : public IRMutator {
public:
    explicit CheckAllocations(std::string advice) : advice_(std::move(advice)) {}

protected:
    using IRMutator::visit;

    Stmt visit(const For *op) override {
        if (op->for_type == ForType::GPUBlock || op->for_type == ForType::GPUThread) return op;
        return IRMutator::visit(op);
    }

    Stmt visit(const Allocate *op) override {
        Stmt body = mutate(op->body);
        Stmt result = Allocate::make(op->name, op->type, op->memory_type, op->extents, op->condition, body);
        const int64_t element_bytes = int64_t(op->type.bytes()) * op->type.lanes();
        // The running product in bytes, checked after each extent: every
        // earlier product is below 2^31, so none overflows 64 bits.
        Expr bytes = make_const(Int(64), element_bytes);
        Expr ok;
        for (const Expr &e : op->extents) {
            bytes = Mul::make(bytes, Cast::make(Int(64), e));
            Expr fits = LT::make(bytes, make_const(Int(64), kLimitBytes));
            ok = ok.defined() ? And::make(ok, fits) : fits;
        }
        if (!ok.defined()) return result;  // a scalar
        if (op->condition.defined() && !is_const_one(op->condition)) ok = Or::make(Not::make(op->condition), ok);
        Stmt check = AssertStmt::make(
            ok, too_large({text("The allocation of " + op->name + " needs "), bytes,
                           text(" bytes, 2^31 or more." + advice_)}));
        return Block::make(check, result);
    }

private:
    std::string advice_;
};

}  // namespace

Stmt add_buffer_size_checks(const Stmt &s, const std::vector<LoweredArgument> &args, const Target &target) {
    if (target.has_feature(Target::LargeBuffers)) return s;
    std::vector<Stmt> checks;
    for (const LoweredArgument &a : args) {
        if (!a.is_buffer()) continue;
        std::vector<Stmt> more = argument_checks(a, advice(target));
        checks.insert(checks.end(), more.begin(), more.end());
    }
    Stmt body = CheckAllocations(advice(target)).mutate(s);
    return checks.empty() ? body : insert_after_fields(body, checks);
}

}  // namespace internal
}  // namespace loom
