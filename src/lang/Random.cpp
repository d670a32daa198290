// random_float(), random_int(), random_uint(): each call is an
// intrinsic::random call carrying the optional seed and an id of the call;
// when a definition is made, replace_random_calls turns it into plain
// UInt(32) arithmetic over the definition's coordinates, so every back end
// computes the same bits, the vectorizer and the GPU path see ordinary
// arithmetic, and lowering never meets the intrinsic.
//
// The hash absorbs one 32-bit word at a time (h = mix(h ^ word)), starting
// from a constant; mix is a multiply-xorshift finalizer with good avalanche
// (C. Wellons' "lowbias32" constants). Lets keep the expression linear in
// the number of words.

#include <atomic>
#include <sstream>

#include "ir/IR.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "lang/Random.h"
#include "loom/Error.h"
#include "loom/IROperator.h"

namespace loom {

using namespace internal;

namespace {

std::atomic<int> next_call_id{0};

Expr random_call(Type t, const Expr &seed, const char *fn) {
    std::vector<Expr> args;
    if (seed.defined()) {
        if (seed.type() != Int(32)) {
            std::ostringstream s;
            s << seed;
            throw CompileError(std::string(fn) + "(): the seed " + s.str() + " has type " + seed.type().to_string() +
                               "; pass an Int(32) (cast<int>(seed)).");
        }
        args.push_back(seed);
    }
    args.push_back(Expr(next_call_id++));
    return Call::make(t, intrinsic::random, args, CallType::PureIntrinsic);
}

uint32_t fnv1a(const std::string &s) {
    uint32_t h = 2166136261u;
    for (unsigned char c : s) h = (h ^ c) * 16777619u;
    return h;
}

std::atomic<int> next_let{0};

/** mix(h ^ word) as an Expr of UInt(32), with h bound once by a Let. */
Expr absorb(const Expr &h, const Expr &word) {
    const std::string name = "random_hash$" + std::to_string(next_let++);
    Expr v = Variable::make(UInt(32), name);
    Expr a = v ^ (v >> 16);
    const std::string name2 = name + "m";
    Expr w = Variable::make(UInt(32), name2);
    Expr b = w * make_const(UInt(32), (uint64_t)0x7feb352d);
    const std::string name3 = name + "n";
    Expr u = Variable::make(UInt(32), name3);
    Expr c = (u ^ (u >> 15)) * make_const(UInt(32), (uint64_t)0x846ca68b);
    Expr result = Let::make(
        name, h ^ word,
        Let::make(name2, a, Let::make(name3, b, c ^ (c >> 16))));
    return result;
}

class ReplaceRandom : public IRMutator {
public:
    ReplaceRandom(const std::string &func_name, int stage, const std::vector<Expr> &coordinates)
        : tag_(fnv1a(func_name) ^ (uint32_t)stage * 0x9e3779b9u), coordinates_(coordinates) {}
    using IRMutator::mutate;

protected:
    using IRMutator::visit;
    Expr visit(const Call *op) override {
        if (!op->is_intrinsic(intrinsic::random)) return IRMutator::visit(op);
        std::vector<Expr> words;
        for (const Expr &a : op->args) words.push_back(cast(UInt(32), mutate(a)));
        words.push_back(make_const(UInt(32), (uint64_t)tag_));
        for (const Expr &c : coordinates_) words.push_back(cast(UInt(32), c));
        Expr h = make_const(UInt(32), (uint64_t)0x2545f491u);
        for (const Expr &w : words) h = absorb(h, w);
        if (op->type == UInt(32)) return h;
        if (op->type == Int(32)) return cast(Int(32), h);  // the same bits, wrapped
        if (op->type == Float(32)) {
            // The top 24 bits, scaled by 2^-24: exactly representable, in [0, 1).
            return cast(Float(32), h >> 8) * make_const(Float(32), 1.0 / 16777216.0);
        }
        throw InternalError("random intrinsic of type " + op->type.to_string());
    }

private:
    uint32_t tag_;
    std::vector<Expr> coordinates_;
};

}  // namespace

Expr random_float(Expr seed) { return random_call(Float(32), seed, "random_float"); }
Expr random_uint(Expr seed) { return random_call(UInt(32), seed, "random_uint"); }
Expr random_int(Expr seed) { return random_call(Int(32), seed, "random_int"); }

namespace internal {

Expr replace_random_calls(const Expr &e, const std::string &func_name, int stage,
                          const std::vector<Expr> &coordinates) {
    if (!e.defined()) return e;
    ReplaceRandom replace(func_name, stage, coordinates);
    return replace.mutate(e);
}

}  // namespace internal
}  // namespace loom
