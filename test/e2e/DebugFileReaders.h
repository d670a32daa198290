#ifndef LOOM_TEST_E2E_DEBUG_FILE_READERS_H
#define LOOM_TEST_E2E_DEBUG_FILE_READERS_H

// Small readers of the files Func::debug_to_file writes (.npy, .mat, .tiff),
// written from the formats' specifications, for tests to check what the
// runtime wrote. Each returns an `error` string instead of crashing on a
// malformed file, so a test failure says what was wrong.

#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace loom_test {

inline std::string read_binary_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

inline uint32_t le_u16(const std::string &b, size_t at) {
    return (uint32_t)(uint8_t)b[at] | (uint32_t)(uint8_t)b[at + 1] << 8;
}

inline uint32_t le_u32(const std::string &b, size_t at) { return le_u16(b, at) | le_u16(b, at + 2) << 16; }

/** The elements of a dense little-endian array of T. */
template<typename T>
std::vector<T> elements_of(const std::string &data) {
    std::vector<T> v(data.size() / sizeof(T));
    if (!v.empty()) std::memcpy(v.data(), data.data(), v.size() * sizeof(T));
    return v;
}

struct NpyFile {
    std::string error;
    std::string descr;
    std::string fortran_order;
    std::vector<long> shape;
    size_t header_bytes = 0;  // magic to the end of the header dict
    std::string data;
};

inline NpyFile read_npy(const std::string &path) {
    NpyFile f;
    const std::string b = read_binary_file(path);
    if (b.size() < 10 || b.compare(0, 6, "\x93NUMPY") != 0) return f.error = "no NumPy magic", f;
    if (b[6] != 1 || b[7] != 0) return f.error = "not version 1.0", f;
    const size_t length = le_u16(b, 8);
    if (b.size() < 10 + length) return f.error = "header past the end", f;
    const std::string header = b.substr(10, length);
    f.header_bytes = 10 + length;
    if (header.empty() || header.back() != '\n') return f.error = "header does not end in a newline", f;
    auto value_after = [&](const std::string &key, char open, char close) -> std::string {
        size_t k = header.find("'" + key + "': ");
        if (k == std::string::npos) return "";
        size_t start = header.find(open, k + key.size() + 4);
        size_t end = header.find(close, start + 1);
        if (start == std::string::npos || end == std::string::npos) return "";
        return header.substr(start + 1, end - start - 1);
    };
    f.descr = value_after("descr", '\'', '\'');
    size_t fo = header.find("'fortran_order': ");
    if (fo != std::string::npos) f.fortran_order = header.substr(fo + 17, header.find(',', fo) - fo - 17);
    std::stringstream shape(value_after("shape", '(', ')'));
    for (std::string item; std::getline(shape, item, ',');) {
        if (item.find_first_not_of(' ') != std::string::npos) f.shape.push_back(std::stol(item));
    }
    f.data = b.substr(f.header_bytes);
    return f;
}

struct MatFile {
    std::string error;
    std::string text;       // the 116 bytes of descriptive text
    uint32_t class_code = 0;
    std::vector<int32_t> dims;
    std::string name;
    uint32_t data_type = 0;
    std::string data;
    size_t file_bytes = 0;
};

inline MatFile read_mat(const std::string &path) {
    MatFile m;
    const std::string b = read_binary_file(path);
    m.file_bytes = b.size();
    if (b.size() < 128 + 8) return m.error = "shorter than the header", m;
    m.text = b.substr(0, 116);
    if (le_u16(b, 124) != 0x0100 || b[126] != 'I' || b[127] != 'M') {
        return m.error = "not a little-endian level 5 header", m;
    }
    if (le_u32(b, 128) != 14) return m.error = "the first element is not miMATRIX", m;
    const size_t matrix_end = 136 + le_u32(b, 132);
    if (matrix_end != b.size()) return m.error = "miMATRIX size does not match the file", m;
    size_t at = 136;
    auto sub = [&](uint32_t *type, std::string *bytes) {
        if (at + 8 > b.size()) return false;
        *type = le_u32(b, at);
        const uint32_t n = le_u32(b, at + 4);
        if (at + 8 + n > b.size()) return false;
        *bytes = b.substr(at + 8, n);
        at += 8 + ((n + 7) & ~7u);
        return true;
    };
    uint32_t type = 0;
    std::string bytes;
    if (!sub(&type, &bytes) || type != 6 || bytes.size() != 8) return m.error = "bad array flags", m;
    m.class_code = le_u32(bytes, 0) & 0xff;
    if (!sub(&type, &bytes) || type != 5) return m.error = "bad dimensions", m;
    for (size_t i = 0; i + 4 <= bytes.size(); i += 4) m.dims.push_back((int32_t)le_u32(bytes, i));
    if (!sub(&type, &bytes) || type != 1) return m.error = "bad name", m;
    m.name = bytes;
    if (!sub(&m.data_type, &m.data)) return m.error = "bad data", m;
    if (at != matrix_end) return m.error = "bytes after the data", m;
    return m;
}

struct TiffPage {
    std::map<uint32_t, uint32_t> tags;  // tag -> its single value
    std::string data;                   // the one strip
};

struct TiffFile {
    std::string error;
    std::vector<TiffPage> pages;
};

inline TiffFile read_tiff(const std::string &path) {
    TiffFile t;
    const std::string b = read_binary_file(path);
    if (b.size() < 8 || b.compare(0, 2, "II") != 0 || le_u16(b, 2) != 42) {
        return t.error = "not a little-endian TIFF", t;
    }
    uint32_t ifd = le_u32(b, 4);
    while (ifd != 0) {
        if (ifd % 2 != 0 || ifd + 2 > b.size()) return t.error = "bad IFD offset", t;
        const uint32_t count = le_u16(b, ifd);
        if (ifd + 2 + count * 12 + 4 > b.size()) return t.error = "IFD past the end", t;
        TiffPage page;
        uint32_t previous_tag = 0;
        for (uint32_t e = 0; e < count; e++) {
            const size_t at = ifd + 2 + e * 12;
            const uint32_t tag = le_u16(b, at), type = le_u16(b, at + 2), n = le_u32(b, at + 4);
            if (tag <= previous_tag) return t.error = "tags not in ascending order", t;
            previous_tag = tag;
            if (n != 1) return t.error = "a tag with more than one value", t;
            page.tags[tag] = type == 3 ? le_u16(b, at + 8) : le_u32(b, at + 8);
        }
        const uint32_t offset = page.tags[273], bytes = page.tags[279];
        if ((size_t)offset + bytes > b.size()) return t.error = "strip past the end", t;
        page.data = b.substr(offset, bytes);
        t.pages.push_back(page);
        ifd = le_u32(b, ifd + 2 + count * 12);
    }
    return t;
}

}  // namespace loom_test

#endif
