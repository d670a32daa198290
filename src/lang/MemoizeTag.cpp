#include "loom/MemoizeTag.h"

#include <string>

#include "ir/IR.h"
#include "loom/Error.h"
#include "lower/Memoize.h"

namespace loom {

using namespace internal;

Expr memoize_tag(const Expr &value, const std::vector<Expr> &cache_key_values) {
    if (!value.defined()) throw CompileError("memoize_tag(): the value is undefined.");
    std::vector<Expr> args = {value};
    for (size_t i = 0; i < cache_key_values.size(); i++) {
        const Expr &tag = cache_key_values[i];
        if (!tag.defined()) {
            throw CompileError("memoize_tag(): cache key value " + std::to_string(i) + " is undefined.");
        }
        if (tag.type().is_vector() || tag.type().is_handle()) {
            throw CompileError("memoize_tag(): cache key value " + std::to_string(i) + " has type " +
                               tag.type().to_string() +
                               "; a key value must be a scalar number or bool (its bits are the key).");
        }
        args.push_back(tag);
    }
    if (cache_key_values.empty() && (value.type().is_vector() || value.type().is_handle())) {
        throw CompileError("memoize_tag(value) keys on the value, which has type " + value.type().to_string() +
                           "; it must be a scalar number or bool. Give key values: memoize_tag(value, tags...).");
    }
    return Call::make(value.type(), memoize_tag_intrinsic, args, CallType::PureIntrinsic);
}

Tuple memoize_tag(const Tuple &value, const std::vector<Expr> &cache_key_values) {
    std::vector<Expr> tagged;
    for (const Expr &e : value.as_vector()) tagged.push_back(memoize_tag(e, cache_key_values));
    return Tuple(tagged);
}

}  // namespace loom
