#include "lower/InjectDebugToFile.h"

#include <algorithm>
#include <cctype>

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "loom/Error.h"
#include "lower/ExternStages.h"

namespace loom {
namespace internal {

namespace {

Expr var(const std::string &name) { return Variable::make(Int(32), name); }

/** NULL: codegen passes the pipeline's user_context in its place. */
Expr null_user_context() { return Reinterpret::make(Handle(), make_zero(UInt(64))); }

std::string lower_case(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return (char)std::tolower(c); });
    return s;
}

bool ends_with(const std::string &s, const std::string &suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/** The checks that need no loop nest: the extension, the value's type and
 * count, and that the Func has storage of its own. */
void check_function(const FunctionContents &f, const PipelineStages &p) {
    const std::string file = lower_case(f.schedule.debug_file);
    const std::string who = "Func '" + f.name + "' has debug_to_file(\"" + f.schedule.debug_file + "\")";
    const bool mat = ends_with(file, ".mat");
    if (!ends_with(file, ".npy") && !mat && !ends_with(file, ".tiff") && !ends_with(file, ".tif")) {
        const size_t dot = file.find_last_of("./");
        const bool none = dot == std::string::npos || file[dot] == '/';
        const std::string ext = none ? "no extension" : "the extension '" + file.substr(dot) + "'";
        throw CompileError(who + ", with " + ext + ": name a file ending in .npy (NumPy), .mat (MATLAB) or "
                           ".tiff/.tif (TIFF), which says the format.");
    }
    if (std::find(p.order.begin(), p.order.end(), f.name) == p.order.end()) {
        throw CompileError(who + ", but it is inlined, so it has no storage to write. Schedule it compute_root() "
                           "or compute_at() a loop.");
    }
    if (f.outputs() != 1) {
        throw CompileError(who + ", but it has a Tuple value of " + std::to_string(f.outputs()) +
                           " elements; a file holds one. Write each element from a Func of its own.");
    }
    const Type t = f.output_types[0];
    if (t.is_handle() || t.is_bfloat() || (mat && t.is_float() && t.bits() == 16)) {
        throw CompileError(who + ", but its type " + t.to_string() + " has no " +
                           (mat ? "MATLAB class" : "type in that format") +
                           (t.is_handle() ? "." : "; write it to a .npy or .tiff file, or cast it to Float(32)."));
    }
}

bool is_gpu_loop(const For *op) { return op->for_type == ForType::GPUBlock || op->for_type == ForType::GPUThread; }

struct FindGPULoop : IRVisitor {
    bool found = false;
    using IRVisitor::visit;
    void visit(const For *op) override {
        found = found || is_gpu_loop(op);
        IRVisitor::visit(op);
    }
};

class InjectDebugToFile : public IRMutator {
public:
    explicit InjectDebugToFile(const PipelineStages &p) : p_(p) {}

protected:
    using IRMutator::visit;

    Stmt visit(const For *op) override {
        const bool gpu = is_gpu_loop(op);
        gpu_depth_ += gpu;
        Stmt s = IRMutator::visit(op);
        gpu_depth_ -= gpu;
        return s;
    }

    Stmt visit(const ProducerConsumer *op) override {
        Stmt s = IRMutator::visit(op);
        if (!op->is_producer || !p_.env.count(op->name)) return s;
        const FunctionContents &f = p_.func(op->name);
        if (f.schedule.debug_file.empty()) return s;
        FindGPULoop gpu;
        op->body.accept(&gpu);
        if (gpu_depth_ > 0 || gpu.found) {
            throw CompileError("Func '" + f.name + "' has debug_to_file(\"" + f.schedule.debug_file +
                               "\"), but it is computed in GPU loops; the file is written from the CPU. Remove "
                               "its GPU schedule, or write a CPU copy of it (f.in()) instead.");
        }
        return Block::make(s, write_call(f));
    }

private:
    /** The call writing f's storage, and the check of its result. */
    static Stmt write_call(const FunctionContents &f) {
        const std::string storage = storage_name(f, 0);
        std::vector<Expr> args = {Variable::make(Handle(), storage),
                                  make_const(UInt(8), int64_t(f.output_types[0].code())),
                                  make_const(UInt(8), int64_t(f.output_types[0].bits())), Expr(0)};
        for (int d = 0; d < f.dimensions(); d++) {
            const std::string dim = std::to_string(d);
            args.insert(args.end(), {var(storage + ".min." + dim), var(storage + ".extent." + dim),
                                     var(storage + ".stride." + dim)});
        }
        Expr buffer = Call::make(Handle(), intrinsic::extern_make_buffer, args, CallType::Intrinsic);
        Expr call = Call::make(Int(32), "loom_debug_to_file",
                               {null_user_context(), StringImm::make(f.schedule.debug_file), buffer},
                               CallType::Extern);
        const std::string result_name = f.name + ".debug_to_file.result";
        Expr result = var(result_name);
        Expr message = Call::make(
            Int(32), intrinsic::error,
            {result, StringImm::make("Func '" + f.name + "': debug_to_file could not write '" + f.schedule.debug_file +
                                     "' (loom_debug_to_file returned "),
             result, StringImm::make("). Check that its folder exists and can be written.")},
            CallType::Intrinsic);
        return LetStmt::make(result_name, call, AssertStmt::make(EQ::make(result, Expr(0)), message));
    }

    const PipelineStages &p_;
    int gpu_depth_ = 0;
};

}  // namespace

Stmt inject_debug_to_file(const Stmt &s, const PipelineStages &pipeline) {
    bool any = false;
    for (const auto &[name, f] : pipeline.env) {
        if (f.get()->schedule.debug_file.empty()) continue;
        check_function(*f.get(), pipeline);
        any = true;
    }
    if (!any) return s;
    return InjectDebugToFile(pipeline).mutate(s);
}

}  // namespace internal
}  // namespace loom
