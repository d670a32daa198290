#ifndef LOOM_CODEGEN_LLVM_EMITOBJECT_H
#define LOOM_CODEGEN_LLVM_EMITOBJECT_H

/** \file
 * Ahead-of-time output: assembly text or an object file for any target with
 * an LLVM back end in Loom (x86 and arm-64, any OS).
 */

#include "loom/Target.h"

#include <string>

namespace llvm {
class Module;
}

namespace loom::internal {

/** Assembly text for m compiled for t. Sets m's triple and data layout to
 * t's; does not optimise (call optimize_module first). The code generator
 * may rewrite m's IR while lowering it.
 * \throws CompileError if t has no LLVM back end in Loom.
 * \throws InternalError if LLVM cannot emit code for the module. */
std::string emit_assembly(llvm::Module &m, const Target &t);

/** Writes an object file (ELF, Mach-O or COFF, following t's OS) for m to
 * `path`. Same contract as emit_assembly.
 * \throws CompileError if `path` cannot be written. */
void emit_object_file(llvm::Module &m, const Target &t, const std::string &path);

/** The bytes of an object file for m, in memory (for static libraries).
 * Same contract as emit_assembly. */
std::string emit_object(llvm::Module &m, const Target &t);

}  // namespace loom::internal

#endif
