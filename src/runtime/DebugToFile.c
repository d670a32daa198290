/* Func::debug_to_file (include/loom/runtime/loom_runtime.h): generated code
 * calls loom_debug_to_file after each production of the Func with a buffer
 * over its storage; this writes the elements, dimension 0 fastest, in the
 * format the file's extension names (the formats of Halide's
 * halide_debug_to_file, written independently):
 *
 *   .npy   NumPy 1.0: the magic, a header dict ('descr', 'fortran_order':
 *          False, 'shape' = the extents last dimension first) padded to a
 *          multiple of 64 bytes, then the data.
 *   .mat   MATLAB level 5: a 128-byte header, then one miMATRIX element
 *          (array flags with the class, the extents, the name: the file's
 *          stem, the data), each sub-element padded to 8 bytes. MATLAB's
 *          arrays are column-major, so the extents are in Loom's order.
 *   .tiff  little-endian TIFF, one sample per pixel, one uncompressed strip
 *   .tif   per image; dimension 0 is the width, 1 the height, and each
 *          plane of the dimensions above is a further image (IFD).
 *
 * Portable C like Runtime.c (it is part of the AOT runtime bitcode too). The
 * lowering pass (lower/InjectDebugToFile.cpp) reports a failure, with the
 * Func's name, when this returns non-zero. */

#include "loom/runtime/loom_runtime.h"
#include "runtime/RuntimePlatform.h"

enum loom_debug_format_t { loom_format_npy, loom_format_mat, loom_format_tiff, loom_format_unknown };

static int loom_debug_ends_with(const char *text, const char *suffix) {
    size_t n = strlen(text), m = strlen(suffix);
    if (m > n) return 0;
    for (size_t i = 0; i < m; i++) {
        char c = text[n - m + i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != suffix[i]) return 0;
    }
    return 1;
}

static enum loom_debug_format_t loom_debug_format_of(const char *filename) {
    if (loom_debug_ends_with(filename, ".npy")) return loom_format_npy;
    if (loom_debug_ends_with(filename, ".mat")) return loom_format_mat;
    if (loom_debug_ends_with(filename, ".tiff") || loom_debug_ends_with(filename, ".tif")) return loom_format_tiff;
    return loom_format_unknown;
}

/* A FILE with a sticky error flag, so that the writers check once at the end. */
typedef struct {
    FILE *file;
    int failed;
} loom_debug_out_t;

static void loom_debug_write(loom_debug_out_t *out, const void *data, size_t bytes) {
    if (out->failed || bytes == 0) return;
    if (fwrite(data, 1, bytes, out->file) != bytes) out->failed = 1;
}

static void loom_debug_u16(loom_debug_out_t *out, uint16_t v) {
    uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    loom_debug_write(out, b, 2);
}

static void loom_debug_u32(loom_debug_out_t *out, uint32_t v) {
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    loom_debug_write(out, b, 4);
}

static void loom_debug_zeros(loom_debug_out_t *out, size_t bytes) {
    static const uint8_t zeros[8] = {0};
    while (bytes > 0) {
        size_t n = bytes < sizeof zeros ? bytes : sizeof zeros;
        loom_debug_write(out, zeros, n);
        bytes -= n;
    }
}

static int loom_debug_element_bytes(const loom_buffer_t *buf) { return (buf->type.bits + 7) / 8; }

static uint64_t loom_debug_element_count(const loom_buffer_t *buf) {
    uint64_t count = 1;
    for (int d = 0; d < buf->dimensions; d++) count *= (uint64_t)(buf->dim[d].extent > 0 ? buf->dim[d].extent : 0);
    return count;
}

/* The elements of dimensions [0, dims) from `base` (one plane), dimension 0
 * fastest, through a small staging block. */
static void loom_debug_write_elements(loom_debug_out_t *out, const loom_buffer_t *buf, const uint8_t *base, int dims) {
    const int bytes = loom_debug_element_bytes(buf);
    uint8_t block[4096];
    size_t used = 0;
    int32_t index[16] = {0};
    uint64_t total = 1;
    for (int d = 0; d < dims; d++) total *= (uint64_t)buf->dim[d].extent;
    for (uint64_t n = 0; n < total; n++) {
        int64_t offset = 0;
        for (int d = 0; d < dims; d++) offset += (int64_t)index[d] * buf->dim[d].stride;
        memcpy(block + used, base + offset * bytes, (size_t)bytes);
        used += (size_t)bytes;
        if (used + (size_t)bytes > sizeof block) {
            loom_debug_write(out, block, used);
            used = 0;
        }
        for (int d = 0; d < dims; d++) {
            if (++index[d] < buf->dim[d].extent) break;
            index[d] = 0;
        }
    }
    loom_debug_write(out, block, used);
}

/* ---- .npy ---------------------------------------------------------------- */

static int loom_debug_npy_descr(const loom_buffer_t *buf, char *descr, size_t capacity) {
    const int bytes = loom_debug_element_bytes(buf);
    if (buf->type.bits == 1) return snprintf(descr, capacity, "|b1") > 0;
    char kind = buf->type.code == loom_type_int ? 'i' : buf->type.code == loom_type_uint ? 'u'
                : buf->type.code == loom_type_float ? 'f' : 0;
    if (!kind) return 0;
    return snprintf(descr, capacity, "%c%c%d", bytes == 1 ? '|' : '<', kind, bytes) > 0;
}

static void loom_debug_npy(loom_debug_out_t *out, const loom_buffer_t *buf, const char *descr) {
    char header[1024];
    int n = snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
    for (int d = buf->dimensions - 1; d >= 0; d--) {
        n += snprintf(header + n, sizeof header - (size_t)n, "%d%s", (int)buf->dim[d].extent,
                      buf->dimensions == 1 ? "," : d > 0 ? ", " : "");
    }
    n += snprintf(header + n, sizeof header - (size_t)n, "), }");
    /* magic (6) + version (2) + length (2) + dict + spaces + '\n': a multiple of 64. */
    size_t total = 10 + (size_t)n + 1;
    size_t padded = (total + 63) / 64 * 64;
    while ((size_t)n < padded - 11) header[n++] = ' ';
    header[n++] = '\n';
    static const uint8_t magic[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
    loom_debug_write(out, magic, sizeof magic);
    loom_debug_u16(out, (uint16_t)n);
    loom_debug_write(out, header, (size_t)n);
    loom_debug_write_elements(out, buf, buf->host, buf->dimensions);
}

/* ---- .mat ---------------------------------------------------------------- */

/* MATLAB's array class and data type codes for buf's type; 0 if none. */
static int loom_debug_mat_codes(const loom_buffer_t *buf, uint32_t *class_code, uint32_t *data_type) {
    const int bits = buf->type.bits == 1 ? 8 : buf->type.bits;
    const int is_signed = buf->type.code == loom_type_int;
    if (buf->type.code == loom_type_float) {
        if (bits == 32) *class_code = 7, *data_type = 7;       /* mxSINGLE, miSINGLE */
        else if (bits == 64) *class_code = 6, *data_type = 9;  /* mxDOUBLE, miDOUBLE */
        else return 0;
        return 1;
    }
    if (buf->type.code != loom_type_int && buf->type.code != loom_type_uint) return 0;
    switch (bits) {
    case 8: *class_code = is_signed ? 8 : 9, *data_type = is_signed ? 1 : 2; return 1;
    case 16: *class_code = is_signed ? 10 : 11, *data_type = is_signed ? 3 : 4; return 1;
    case 32: *class_code = is_signed ? 12 : 13, *data_type = is_signed ? 5 : 6; return 1;
    case 64: *class_code = is_signed ? 14 : 15, *data_type = is_signed ? 12 : 13; return 1;
    default: return 0;
    }
}

static uint32_t loom_debug_pad8(uint64_t bytes) { return (uint32_t)((bytes + 7) & ~(uint64_t)7); }

static void loom_debug_mat(loom_debug_out_t *out, const loom_buffer_t *buf, const char *filename, uint32_t class_code,
                           uint32_t data_type, uint64_t payload) {
    /* The array's name: the file's stem. */
    const char *end = filename + strlen(filename);
    while (end > filename && end[-1] != '.') end--;
    if (end > filename) end--;
    const char *start = end;
    while (start > filename && start[-1] != '/') start--;
    uint32_t name_bytes = (uint32_t)(end - start);
    if (name_bytes > 63) name_bytes = 63; /* MATLAB names are at most 63 characters */

    char text[128];
    memset(text, ' ', sizeof text);
    const char *banner = "MATLAB 5.0 MAT-file, written by Loom's debug_to_file";
    memcpy(text, banner, strlen(banner));
    memset(text + 116, 0, 8); /* no subsystem data */
    text[124] = 0x00, text[125] = 0x01; /* version 0x0100, little-endian */
    text[126] = 'I', text[127] = 'M';
    loom_debug_write(out, text, sizeof text);

    const int dims = buf->dimensions < 2 ? 2 : buf->dimensions; /* MATLAB arrays have two or more */
    const uint32_t dims_bytes = (uint32_t)dims * 4;
    const uint32_t matrix_bytes = 16 + 8 + loom_debug_pad8(dims_bytes) + 8 + loom_debug_pad8(name_bytes) + 8 +
                                  loom_debug_pad8(payload);
    loom_debug_u32(out, 14); /* miMATRIX */
    loom_debug_u32(out, matrix_bytes);
    loom_debug_u32(out, 6); /* array flags: miUINT32, 8 bytes */
    loom_debug_u32(out, 8);
    loom_debug_u32(out, class_code);
    loom_debug_u32(out, 0);
    loom_debug_u32(out, 5); /* dimensions: miINT32 */
    loom_debug_u32(out, dims_bytes);
    for (int d = 0; d < dims; d++) loom_debug_u32(out, d < buf->dimensions ? (uint32_t)buf->dim[d].extent : 1);
    loom_debug_zeros(out, loom_debug_pad8(dims_bytes) - dims_bytes);
    loom_debug_u32(out, 1); /* name: miINT8 */
    loom_debug_u32(out, name_bytes);
    loom_debug_write(out, start, name_bytes);
    loom_debug_zeros(out, loom_debug_pad8(name_bytes) - name_bytes);
    loom_debug_u32(out, data_type);
    loom_debug_u32(out, (uint32_t)payload);
    loom_debug_write_elements(out, buf, buf->host, buf->dimensions);
    loom_debug_zeros(out, loom_debug_pad8(payload) - payload);
}

/* ---- .tiff --------------------------------------------------------------- */

enum { loom_tiff_short = 3, loom_tiff_long = 4 };

static void loom_debug_tiff_entry(loom_debug_out_t *out, uint16_t tag, uint16_t type, uint32_t value) {
    loom_debug_u16(out, tag);
    loom_debug_u16(out, type);
    loom_debug_u32(out, 1); /* count */
    if (type == loom_tiff_short) {
        loom_debug_u16(out, (uint16_t)value);
        loom_debug_u16(out, 0);
    } else {
        loom_debug_u32(out, value);
    }
}

static void loom_debug_tiff(loom_debug_out_t *out, const loom_buffer_t *buf) {
    const int bytes = loom_debug_element_bytes(buf);
    const uint32_t width = buf->dimensions > 0 ? (uint32_t)buf->dim[0].extent : 1;
    const uint32_t height = buf->dimensions > 1 ? (uint32_t)buf->dim[1].extent : 1;
    const int image_dims = buf->dimensions < 2 ? buf->dimensions : 2;
    uint64_t planes = 1;
    for (int d = 2; d < buf->dimensions; d++) planes *= (uint64_t)buf->dim[d].extent;
    const uint32_t image_bytes = width * height * (uint32_t)bytes;
    const uint32_t image_padded = (image_bytes + 1) & ~1u; /* IFDs start on a word boundary */
    enum { entries = 10, ifd_bytes = 2 + entries * 12 + 4 };
    const uint16_t sample_format = buf->type.code == loom_type_int ? 2 : buf->type.code == loom_type_float ? 3 : 1;

    loom_debug_write(out, "II", 2);
    loom_debug_u16(out, 42);
    loom_debug_u32(out, 8); /* the first IFD follows the header */
    uint32_t offset = 8;
    int32_t plane_index[16] = {0};
    for (uint64_t p = 0; p < planes; p++) {
        const uint32_t data_offset = offset + ifd_bytes;
        const uint32_t next = p + 1 < planes ? data_offset + image_padded : 0;
        loom_debug_u16(out, entries);
        loom_debug_tiff_entry(out, 256, loom_tiff_long, width);                            /* ImageWidth */
        loom_debug_tiff_entry(out, 257, loom_tiff_long, height);                           /* ImageLength */
        loom_debug_tiff_entry(out, 258, loom_tiff_short, (uint32_t)(bytes * 8));           /* BitsPerSample */
        loom_debug_tiff_entry(out, 259, loom_tiff_short, 1);                               /* Compression: none */
        loom_debug_tiff_entry(out, 262, loom_tiff_short, 1);                               /* BlackIsZero */
        loom_debug_tiff_entry(out, 273, loom_tiff_long, data_offset);                      /* StripOffsets */
        loom_debug_tiff_entry(out, 277, loom_tiff_short, 1);                               /* SamplesPerPixel */
        loom_debug_tiff_entry(out, 278, loom_tiff_long, height);                           /* RowsPerStrip */
        loom_debug_tiff_entry(out, 279, loom_tiff_long, image_bytes);                      /* StripByteCounts */
        loom_debug_tiff_entry(out, 339, loom_tiff_short, sample_format);                   /* SampleFormat */
        loom_debug_u32(out, next);

        int64_t plane_offset = 0;
        for (int d = 2; d < buf->dimensions; d++) plane_offset += (int64_t)plane_index[d] * buf->dim[d].stride;
        loom_debug_write_elements(out, buf, buf->host + plane_offset * bytes, image_dims);
        loom_debug_zeros(out, image_padded - image_bytes);
        offset = next;
        for (int d = 2; d < buf->dimensions; d++) {
            if (++plane_index[d] < buf->dim[d].extent) break;
            plane_index[d] = 0;
        }
    }
}

/* ---- entry point --------------------------------------------------------- */

LOOM_RUNTIME_EXPORT int32_t loom_debug_to_file(void *user_context, const char *filename, struct loom_buffer_t *buf) {
    (void)user_context;
    if (!filename || !buf || !buf->host || buf->dimensions < 0 || buf->dimensions > 16) {
        return loom_error_code_bad_argument;
    }
    const enum loom_debug_format_t format = loom_debug_format_of(filename);
    if (format == loom_format_unknown) return loom_error_code_bad_argument;
    const uint64_t payload = loom_debug_element_count(buf) * (uint64_t)loom_debug_element_bytes(buf);
    char descr[16];
    uint32_t class_code = 0, data_type = 0;
    if (format == loom_format_npy && !loom_debug_npy_descr(buf, descr, sizeof descr)) return loom_error_code_bad_type;
    if (format == loom_format_mat && !loom_debug_mat_codes(buf, &class_code, &data_type)) {
        return loom_error_code_bad_type;
    }
    if (format == loom_format_tiff && buf->type.code != loom_type_int && buf->type.code != loom_type_uint &&
        buf->type.code != loom_type_float) {
        return loom_error_code_bad_type;
    }
    /* Level 5 MAT and classic TIFF hold 32-bit sizes. */
    if (format != loom_format_npy && payload + 4096 > 0xFFFFFFFFull) return loom_error_code_buffer_too_large;

    loom_debug_out_t out = {fopen(filename, "wb"), 0};
    if (!out.file) return loom_error_code_generic;
    if (format == loom_format_npy) loom_debug_npy(&out, buf, descr);
    if (format == loom_format_mat) loom_debug_mat(&out, buf, filename, class_code, data_type, payload);
    if (format == loom_format_tiff) loom_debug_tiff(&out, buf);
    if (fclose(out.file) != 0) out.failed = 1;
    return out.failed ? loom_error_code_generic : 0;
}
