// Applies a fuzzer ScheduleDesc to built Funcs, and prints it as the C++
// calls it stands for.

#include "fuzz/FuzzModel.h"

using namespace loom;

namespace fuzz {

namespace {

const char *tail_name(TailStrategy t) {
    switch (t) {
    case TailStrategy::Auto: return "TailStrategy::Auto";
    case TailStrategy::RoundUp: return "TailStrategy::RoundUp";
    case TailStrategy::GuardWithIf: return "TailStrategy::GuardWithIf";
    case TailStrategy::ShiftInwards: return "TailStrategy::ShiftInwards";
    case TailStrategy::PredicateLoads: return "TailStrategy::PredicateLoads";
    case TailStrategy::PredicateStores: return "TailStrategy::PredicateStores";
    }
    return "?";
}

const char *align_name(LoopAlignStrategy a) {
    switch (a) {
    case LoopAlignStrategy::AlignStart: return "LoopAlignStrategy::AlignStart";
    case LoopAlignStrategy::AlignEnd: return "LoopAlignStrategy::AlignEnd";
    case LoopAlignStrategy::NoAlign: return "LoopAlignStrategy::NoAlign";
    case LoopAlignStrategy::Auto: return "LoopAlignStrategy::Auto";
    }
    return "?";
}

VarOrRVar loop(const SchedOp &o, int i) { return VarOrRVar(o.vars[i], o.rvars[i]); }

std::string loop_text(const SchedOp &o, int i) {
    return (o.rvars[i] ? "RVar(\"" : "Var(\"") + o.vars[i] + "\")";
}

const char *memory_name(MemoryType m) {
    switch (m) {
    case MemoryType::Auto: return "MemoryType::Auto";
    case MemoryType::Heap: return "MemoryType::Heap";
    case MemoryType::Stack: return "MemoryType::Stack";
    case MemoryType::Register: return "MemoryType::Register";
    case MemoryType::GPUShared: return "MemoryType::GPUShared";
    }
    return "?";
}

void apply_gpu_loops(const SchedOp &o, Stage &st) {
    if (o.kind == SchedKind::GpuBlocks) {
        if (o.vars.size() == 1) st.gpu_blocks(loop(o, 0));
        if (o.vars.size() == 2) st.gpu_blocks(loop(o, 0), loop(o, 1));
        return;
    }
    if (o.vars.size() == 1) st.gpu_threads(loop(o, 0));
    if (o.vars.size() == 2) st.gpu_threads(loop(o, 0), loop(o, 1));
}

LoopLevel level(const SchedOp &o, const BuiltPipeline &b) {
    return LoopLevel(b.funcs[o.at_func], loop(o, 0), o.at_stage);
}

std::string level_text(const SchedOp &o, const PipelineDesc &p) {
    std::string s = "LoopLevel(" + p.funcs[o.at_func].name + ", " + loop_text(o, 0);
    if (o.at_stage >= 0) s += ", " + std::to_string(o.at_stage);
    return s + ")";
}

}  // namespace

void apply_schedule(const ScheduleDesc &s, BuiltPipeline &b) {
    for (const SchedOp &o : s.ops) {
        Func &f = b.funcs[o.func];
        Stage st = o.stage == 0 ? Stage(f) : f.update(o.stage - 1);
        switch (o.kind) {
        case SchedKind::ComputeRoot: f.compute_root(); break;
        case SchedKind::ComputeAt: f.compute_at(level(o, b)); break;
        case SchedKind::StoreRoot: f.store_root(); break;
        case SchedKind::StoreAt: f.store_at(level(o, b)); break;
        case SchedKind::Split: st.split(loop(o, 0), loop(o, 1), loop(o, 2), o.factor, o.tail); break;
        case SchedKind::Fuse: st.fuse(loop(o, 0), loop(o, 1), loop(o, 2)); break;
        case SchedKind::Reorder: {
            std::vector<VarOrRVar> order;
            for (size_t i = 0; i < o.vars.size(); i++) order.push_back(loop(o, (int)i));
            st.reorder(order);
            break;
        }
        case SchedKind::Tile:
            st.tile(loop(o, 0), loop(o, 1), loop(o, 2), loop(o, 3), loop(o, 4), loop(o, 5), o.factor, o.factor2,
                    o.tail);
            break;
        case SchedKind::Vectorize: st.vectorize(loop(o, 0)); break;
        case SchedKind::VectorizeSplit: st.vectorize(loop(o, 0), o.factor, o.tail); break;
        case SchedKind::Unroll: st.unroll(loop(o, 0)); break;
        case SchedKind::UnrollSplit: st.unroll(loop(o, 0), o.factor, o.tail); break;
        case SchedKind::UnrollCascade: st.unroll(loop(o, 0), o.cascade); break;
        case SchedKind::Parallel: st.parallel(loop(o, 0)); break;
        case SchedKind::ParallelTask: st.parallel(loop(o, 0), o.factor, o.tail); break;
        case SchedKind::Bound: f.bound(Var(o.vars[0]), o.bound_min, o.factor); break;
        case SchedKind::FoldStorage: f.fold_storage(Var(o.vars[0]), o.factor); break;
        case SchedKind::ComputeWith: {
            Func &parent = b.funcs[o.at_func];
            Stage with = o.at_stage == 0 ? Stage(parent) : parent.update(o.at_stage - 1);
            if (o.align < 0) {
                st.compute_with(with, loop(o, 0));
            } else {
                st.compute_with(with, loop(o, 0), (LoopAlignStrategy)o.align);
            }
            break;
        }
        case SchedKind::GpuTile1D: st.gpu_tile(loop(o, 0), loop(o, 1), loop(o, 2), o.factor, o.tail); break;
        case SchedKind::GpuTile2D:
            st.gpu_tile(loop(o, 0), loop(o, 1), loop(o, 2), loop(o, 3), loop(o, 4), loop(o, 5), o.factor, o.factor2,
                        o.tail);
            break;
        case SchedKind::GpuBlocks:
        case SchedKind::GpuThreads: apply_gpu_loops(o, st); break;
        case SchedKind::GpuSingleThread: st.gpu_single_thread(); break;
        case SchedKind::StoreIn: f.store_in((MemoryType)o.factor); break;
        }
    }
}

std::string ScheduleDesc::to_text(const PipelineDesc &p) const {
    std::string s;
    for (const SchedOp &o : ops) {
        std::string f = p.funcs[o.func].name;
        std::string st = o.stage == 0 ? f : f + ".update(" + std::to_string(o.stage - 1) + ")";
        auto n = [&](int i) { return loop_text(o, i); };
        std::string factor = std::to_string(o.factor);
        std::string tail = std::string(", ") + tail_name(o.tail);
        switch (o.kind) {
        case SchedKind::ComputeRoot: s += f + ".compute_root();\n"; break;
        case SchedKind::ComputeAt: s += f + ".compute_at(" + level_text(o, p) + ");\n"; break;
        case SchedKind::StoreRoot: s += f + ".store_root();\n"; break;
        case SchedKind::StoreAt: s += f + ".store_at(" + level_text(o, p) + ");\n"; break;
        case SchedKind::Split:
            s += st + ".split(" + n(0) + ", " + n(1) + ", " + n(2) + ", " + factor + tail + ");\n";
            break;
        case SchedKind::Fuse: s += st + ".fuse(" + n(0) + ", " + n(1) + ", " + n(2) + ");\n"; break;
        case SchedKind::Reorder: {
            s += st + ".reorder({";
            for (size_t i = 0; i < o.vars.size(); i++) s += (i ? ", " : "") + n((int)i);
            s += "});\n";
            break;
        }
        case SchedKind::Tile:
            s += st + ".tile(" + n(0) + ", " + n(1) + ", " + n(2) + ", " + n(3) + ", " + n(4) + ", " + n(5) + ", " +
                 factor + ", " + std::to_string(o.factor2) + tail + ");\n";
            break;
        case SchedKind::Vectorize: s += st + ".vectorize(" + n(0) + ");\n"; break;
        case SchedKind::VectorizeSplit: s += st + ".vectorize(" + n(0) + ", " + factor + tail + ");\n"; break;
        case SchedKind::Unroll: s += st + ".unroll(" + n(0) + ");\n"; break;
        case SchedKind::UnrollSplit: s += st + ".unroll(" + n(0) + ", " + factor + tail + ");\n"; break;
        case SchedKind::UnrollCascade: {
            s += st + ".unroll(" + n(0) + ", {";
            for (size_t i = 0; i < o.cascade.size(); i++) s += (i ? ", " : "") + std::to_string(o.cascade[i]);
            s += "});\n";
            break;
        }
        case SchedKind::Parallel: s += st + ".parallel(" + n(0) + ");\n"; break;
        case SchedKind::ParallelTask: s += st + ".parallel(" + n(0) + ", " + factor + tail + ");\n"; break;
        case SchedKind::Bound:
            s += f + ".bound(" + n(0) + ", " + std::to_string(o.bound_min) + ", " + factor + ");\n";
            break;
        case SchedKind::FoldStorage: s += f + ".fold_storage(" + n(0) + ", " + factor + ");\n"; break;
        case SchedKind::ComputeWith: {
            const std::string &pf = p.funcs[o.at_func].name;
            std::string parent = o.at_stage == 0 ? pf : pf + ".update(" + std::to_string(o.at_stage - 1) + ")";
            s += st + ".compute_with(" + parent + ", " + n(0);
            if (o.align >= 0) s += std::string(", ") + align_name((LoopAlignStrategy)o.align);
            s += ");\n";
            break;
        }
        case SchedKind::GpuTile1D:
            s += st + ".gpu_tile(" + n(0) + ", " + n(1) + ", " + n(2) + ", " + factor + tail + ");\n";
            break;
        case SchedKind::GpuTile2D:
            s += st + ".gpu_tile(" + n(0) + ", " + n(1) + ", " + n(2) + ", " + n(3) + ", " + n(4) + ", " + n(5) +
                 ", " + factor + ", " + std::to_string(o.factor2) + tail + ");\n";
            break;
        case SchedKind::GpuBlocks:
        case SchedKind::GpuThreads: {
            s += st + (o.kind == SchedKind::GpuBlocks ? ".gpu_blocks(" : ".gpu_threads(");
            for (size_t i = 0; i < o.vars.size(); i++) s += (i ? ", " : "") + n((int)i);
            s += ");\n";
            break;
        }
        case SchedKind::GpuSingleThread: s += st + ".gpu_single_thread();\n"; break;
        case SchedKind::StoreIn: s += f + ".store_in(" + memory_name((MemoryType)o.factor) + ");\n"; break;
        }
    }
    return s.empty() ? "// (no directives: everything inline)\n" : s;
}

}  // namespace fuzz
