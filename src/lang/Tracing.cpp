// Func's tracing calls (Halide's trace_loads/trace_stores/trace_realizations
// and add_trace_tag). They only set flags on the Function; the lowering pass
// lower/InjectTracing.cpp turns them into trace events.

#include "ir/Function.h"
#include "lang/Backend.h"
#include "loom/Func.h"

namespace loom {

Func &Func::trace_loads() {
    func_.get()->trace_loads = true;
    internal::mark_changed(*func_.get());
    return *this;
}

Func &Func::trace_stores() {
    func_.get()->trace_stores = true;
    internal::mark_changed(*func_.get());
    return *this;
}

Func &Func::trace_realizations() {
    func_.get()->trace_realizations = true;
    internal::mark_changed(*func_.get());
    return *this;
}

Func &Func::add_trace_tag(const std::string &trace_tag) {
    func_.get()->trace_tags.push_back(trace_tag);
    internal::mark_changed(*func_.get());
    return *this;
}

}  // namespace loom
