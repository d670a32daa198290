#include "aot/StaticLibrary.h"

#include <llvm/Object/ArchiveWriter.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

#include <vector>

#include "loom/Error.h"

namespace loom {
namespace internal {

void write_static_library(const std::string &path, const std::string &member_name, const std::string &object) {
    write_static_library(path, {{member_name, object}});
}

void write_static_library(const std::string &path, const std::vector<std::pair<std::string, std::string>> &objects) {
    std::vector<std::unique_ptr<llvm::MemoryBuffer>> buffers;
    std::vector<llvm::NewArchiveMember> members;
    for (const auto &[member_name, object] : objects) {
        buffers.push_back(llvm::MemoryBuffer::getMemBuffer(object, member_name, /*RequiresNullTerminator=*/false));
        members.emplace_back(buffers.back()->getMemBufferRef());
        members.back().MemberName = member_name;
    }

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
