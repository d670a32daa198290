// loom_msg_format (runtime/ErrorFormat.c): the one call generated code makes
// per error or print message.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "runtime/RuntimeInternal.h"

namespace {

uint64_t bits_of(double d) {
    uint64_t u;
    std::memcpy(&u, &d, sizeof u);
    return u;
}

TEST(MessageFormat, TextAndEveryKindOfValue) {
    char buffer[256] = "stale text";
    const uint64_t values[] = {uint64_t(int64_t(-12)), 250u, bits_of(1.5), bits_of(1e20), 0};
    loom_msg_format(buffer, sizeof buffer, "a \x01i, b \x01u, c \x01" "f, d \x01" "f, p \x01p.", values);
    EXPECT_EQ(std::string(buffer), "a -12, b 250, c 1.5, d 1e+20, p " + std::string([] {
                                       char p[64];
                                       std::snprintf(p, sizeof p, "%p", static_cast<const void *>(nullptr));
                                       return std::string(p);
                                   }()) + ".");
}

TEST(MessageFormat, DoubledMarkerIsLiteralAndNoValuesNeedNoArray) {
    char buffer[64];
    loom_msg_format(buffer, sizeof buffer, "x\x01\x01y", nullptr);
    EXPECT_EQ(std::string(buffer), "x\x01y");
    loom_msg_format(buffer, sizeof buffer, "", nullptr);
    EXPECT_EQ(std::string(buffer), "");
}

TEST(MessageFormat, TruncatesAtCapacityInTextAndInValues) {
    char buffer[8];
    loom_msg_format(buffer, sizeof buffer, "0123456789", nullptr);
    EXPECT_EQ(std::string(buffer), "0123456");
    const uint64_t values[] = {123456789};
    loom_msg_format(buffer, sizeof buffer, "ab\x01uzz", values);
    EXPECT_EQ(std::string(buffer), "ab12345");
}

TEST(MessageFormat, MatchesThePieceByPieceCalls) {
    char one[128], pieces[128];
    const uint64_t values[] = {uint64_t(int64_t(-7)), bits_of(-0.25)};
    loom_msg_format(one, sizeof one, "min \x01i max \x01" "f", values);
    loom_msg_begin(pieces, sizeof pieces);
    loom_msg_append_str(pieces, sizeof pieces, "min ");
    loom_msg_append_int(pieces, sizeof pieces, -7);
    loom_msg_append_str(pieces, sizeof pieces, " max ");
    loom_msg_append_float(pieces, sizeof pieces, -0.25);
    EXPECT_STREQ(one, pieces);
}

}  // namespace
