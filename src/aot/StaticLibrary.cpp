#include "aot/StaticLibrary.h"

#include <llvm/Object/ArchiveWriter.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

#include <vector>

#include "loom/Error.h"

namespace loom {
namespace internal {

void write_static_library(const std::string &path, const std::string &member_name, const std::string &object) {
    std::unique_ptr<llvm::MemoryBuffer> buffer =
        llvm::MemoryBuffer::getMemBuffer(object, member_name, /*RequiresNullTerminator=*/false);
    std::vector<llvm::NewArchiveMember> members;
    members.emplace_back(buffer->getMemBufferRef());
    members.back().MemberName = member_name;

    std::string warnings;
    auto warn = [&](llvm::Error e) { warnings += (warnings.empty() ? "" : "; ") + llvm::toString(std::move(e)); };
    llvm::Error error = llvm::writeArchive(path, members, llvm::SymtabWritingMode::NormalSymtab,
                                           llvm::object::Archive::K_GNU, /*Deterministic=*/true, /*Thin=*/false,
                                           nullptr, std::nullopt, warn);
    if (error) {
        throw CompileError("Cannot write static library '" + path + "': " + llvm::toString(std::move(error)));
    }
    if (!warnings.empty()) throw InternalError("Writing static library '" + path + "': " + warnings);
}

}  // namespace internal
}  // namespace loom
