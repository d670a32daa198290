// PNG files to and from loom::Runtime::Buffer, through libpng.
//
// Images are (width, height, channels) buffers, x innermost, with one or
// three channels (gray or RGB; an alpha channel is dropped, a palette is
// expanded). Saving also accepts a 2-D buffer as a gray image. Errors (a
// missing file, a file that is not a PNG, a buffer of the wrong shape)
// throw std::runtime_error naming the file.
#ifndef LOOM_APPS_PNG_IO_H
#define LOOM_APPS_PNG_IO_H

#include <cstdint>
#include <string>

#include <loom/runtime/Buffer.h>

namespace apps {

/** Loads a PNG with 8-bit samples; 16-bit files are rounded to 8 bits. */
loom::Runtime::Buffer<uint8_t> load_png8(const std::string &path);
/** Loads a PNG with 16-bit samples; 8-bit files are scaled by 257 (255 -> 65535). */
loom::Runtime::Buffer<uint16_t> load_png16(const std::string &path);

/** Writes an 8-bit PNG: gray for a 2-D buffer or one channel, RGB for three. */
void save_png(const std::string &path, const loom::Runtime::Buffer<uint8_t> &image);
/** Writes a 16-bit PNG, same shapes as above. */
void save_png(const std::string &path, const loom::Runtime::Buffer<uint16_t> &image);

}  // namespace apps

#endif
