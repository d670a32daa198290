#include "aot/EmbeddedFiles.h"

// Defined by the sources cmake/LoomEmbed.cmake generates.
extern "C" const unsigned char loom_embedded_runtime_header[];
extern "C" const unsigned long loom_embedded_runtime_header_size;
#ifdef LOOM_HAVE_RUNTIME_BITCODE
extern "C" const unsigned char loom_embedded_runtime_bitcode_x86_64[];
extern "C" const unsigned long loom_embedded_runtime_bitcode_x86_64_size;
extern "C" const unsigned char loom_embedded_runtime_bitcode_aarch64[];
extern "C" const unsigned long loom_embedded_runtime_bitcode_aarch64_size;
extern "C" const unsigned char loom_embedded_runtime_bitcode_x86_32[];
extern "C" const unsigned long loom_embedded_runtime_bitcode_x86_32_size;
extern "C" const unsigned char loom_embedded_runtime_bitcode_arm_32[];
extern "C" const unsigned long loom_embedded_runtime_bitcode_arm_32_size;
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
    if (t.os != Target::Linux) return {};
    const bool bits64 = t.bits == 64;
    if (t.arch == Target::X86) {
        return bits64 ? view(loom_embedded_runtime_bitcode_x86_64, loom_embedded_runtime_bitcode_x86_64_size)
                      : view(loom_embedded_runtime_bitcode_x86_32, loom_embedded_runtime_bitcode_x86_32_size);
    }
    if (t.arch == Target::ARM) {
        return bits64 ? view(loom_embedded_runtime_bitcode_aarch64, loom_embedded_runtime_bitcode_aarch64_size)
                      : view(loom_embedded_runtime_bitcode_arm_32, loom_embedded_runtime_bitcode_arm_32_size);
    }
#endif
    (void)t;
    return {};
}

}  // namespace internal
}  // namespace loom
