#ifndef LOOM_CODEGEN_LLVM_LLVMTARGET_H
#define LOOM_CODEGEN_LLVM_LLVMTARGET_H

/** \file
 * Maps a loom::Target onto LLVM: triple, CPU name, feature string, and a
 * TargetMachine. Loom registers only the X86, AArch64 and ARM back ends;
 * 32-bit targets (x86-32, arm-32) get 32-bit pointers from their
 * DataLayout, which code generation follows everywhere.
 */

#include "loom/Target.h"

#include <memory>
#include <string>

namespace llvm {
class TargetMachine;
}

namespace loom::internal {

/** Registers the X86, AArch64 and ARM LLVM back ends (and the native one) once;
 * safe to call from any thread, any number of times. */
void initialize_llvm_targets();

/** "x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu", ...
 * \throws CompileError for an unknown arch, bits or OS. */
std::string llvm_triple(const Target &t);

/** The LLVM CPU name. The host's own CPU name (llvm::sys::getHostCPUName)
 * when t has exactly the host's arch, bits, OS and instruction-set features;
 * otherwise a generic CPU that adds nothing beyond llvm_feature_string(t)
 * ("x86-64-v3" for avx2+fma+f16c, "generic" on AArch64...). */
std::string llvm_cpu_name(const Target &t);

/** Comma-separated LLVM features, e.g. "+sse4.1,+avx,+avx2,+fma". Higher
 * Loom levels imply the lower ones (avx512_skylake adds +avx2, +fma...).
 * For the host (see llvm_cpu_name) the exact host features as LLVM sees
 * them, each one "+" or "-". */
std::string llvm_feature_string(const Target &t);

/** True for instruction-set features (sse41 ... wasm_simd128); false for
 * vulkan and code-generation flags such as debug or jit. */
bool is_isa_feature(Target::Feature f);

/** True if t describes this machine's instruction set exactly (flags such
 * as debug or jit are ignored). */
bool is_host_isa(const Target &t);

/** A TargetMachine for t: PIC, aggressive optimisation, FP contraction only
 * where the IR allows it (none at all with strict_float).
 * \throws CompileError if t's architecture has no LLVM back end in Loom
 * (only x86 and arm, 32- and 64-bit, have one), for armv7s on a 64-bit
 * target, and for sve/sve2, large_buffers or vulkan on a 32-bit one. */
std::unique_ptr<llvm::TargetMachine> make_target_machine(const Target &t);

}  // namespace loom::internal

#endif
