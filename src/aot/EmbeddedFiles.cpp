#include "aot/EmbeddedFiles.h"

// Defined by the sources cmake/LoomEmbed.cmake generates.
extern "C" const unsigned char loom_embedded_runtime_header[];
extern "C" const unsigned long loom_embedded_runtime_header_size;
#ifdef LOOM_HAVE_RUNTIME_BITCODE
extern "C" const unsigned char loom_embedded_runtime_bitcode_x86_64[];
extern "C" const unsigned long loom_embedded_runtime_bitcode_x86_64_size;
extern "C" const unsigned char loom_embedded_runtime_bitcode_aarch64[];
extern "C" const unsigned long loom_embedded_runtime_bitcode_aarch64_size;
#endif

namespace loom {
namespace internal {

namespace {
std::string_view view(const unsigned char *data, unsigned long size) {
    return std::string_view(reinterpret_cast<const char *>(data), size);
}
}  // namespace

std::string_view embedded_runtime_header() {
    return view(loom_embedded_runtime_header, loom_embedded_runtime_header_size);
}

std::string_view embedded_runtime_bitcode(const Target &t) {
#ifdef LOOM_HAVE_RUNTIME_BITCODE
    if (t.os != Target::Linux || t.bits != 64) return {};
    if (t.arch == Target::X86) return view(loom_embedded_runtime_bitcode_x86_64, loom_embedded_runtime_bitcode_x86_64_size);
    if (t.arch == Target::ARM) {
        return view(loom_embedded_runtime_bitcode_aarch64, loom_embedded_runtime_bitcode_aarch64_size);
    }
#endif
    (void)t;
    return {};
}

}  // namespace internal
}  // namespace loom
