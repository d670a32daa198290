// Tests of the C runtime functions in loom_runtime.h: error and print
// handlers and the aligned heap.

#include "loom/runtime/loom_runtime.h"
#include "runtime/ErrorCapture.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

std::vector<std::string> captured_errors;
void *captured_context = nullptr;

void capture_error(void *user_context, const char *message) {
    captured_context = user_context;
    captured_errors.emplace_back(message);
}

std::string captured_print;
void capture_print(void * /*user_context*/, const char *message) { captured_print += message; }

// Restores the default handlers however a test ends.
class RuntimeHandlers : public ::testing::Test {
protected:
    void SetUp() override {
        captured_errors.clear();
        captured_context = nullptr;
        captured_print.clear();
    }
    void TearDown() override {
        loom_set_error_handler(nullptr);
        loom_set_print_handler(nullptr);
    }
};

TEST_F(RuntimeHandlers, ReplacedErrorHandlerCapturesMessage) {
    loom_set_error_handler(&capture_error);
    int context = 7;
    loom_error(&context, "buffer f is too small");
    ASSERT_EQ(captured_errors.size(), 1u);
    EXPECT_EQ(captured_errors[0], "buffer f is too small");
    EXPECT_EQ(captured_context, &context);
}

// libLoom's runtime also serves JIT runs, whose user_context is a
// JITUserContext; a program's own pointer, here one byte right before an
// unmapped page, must reach the handlers without being read through.
TEST_F(RuntimeHandlers, ProgramsOwnUserContextIsNeverReadThrough) {
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void *pages = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(pages, MAP_FAILED);
    ASSERT_EQ(mprotect(static_cast<char *>(pages) + page, page, PROT_NONE), 0);
    char *last_byte = static_cast<char *>(pages) + page - 1;
    loom_set_error_handler(&capture_error);
    loom_set_print_handler(&capture_print);
    loom_error(last_byte, "from a C program");
    loom_print(last_byte, "printed\n");
    void *p = loom_malloc(last_byte, 64);
    EXPECT_NE(p, nullptr);
    loom_free(last_byte, p);
    ASSERT_EQ(captured_errors.size(), 1u);
    EXPECT_EQ(captured_context, last_byte);
    EXPECT_EQ(captured_print, "printed\n");
    munmap(pages, 2 * page);
}

TEST_F(RuntimeHandlers, SetErrorHandlerReturnsPrevious) {
    loom_error_handler_t original = loom_set_error_handler(&capture_error);
    ASSERT_NE(original, nullptr);  // the default handler, so callers can chain or restore
    EXPECT_EQ(loom_set_error_handler(original), &capture_error);
    EXPECT_EQ(loom_set_error_handler(nullptr), original);
}

TEST_F(RuntimeHandlers, DefaultErrorHandlerWritesToStderr) {
    ::testing::internal::CaptureStderr();
    loom_error(nullptr, "something went wrong");
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), "Error: something went wrong\n");
}

TEST_F(RuntimeHandlers, NullRestoresDefaultErrorHandler) {
    loom_set_error_handler(&capture_error);
    loom_set_error_handler(nullptr);
    ::testing::internal::CaptureStderr();
    loom_error(nullptr, "after restore");
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), "Error: after restore\n");
    EXPECT_TRUE(captured_errors.empty());
}

TEST_F(RuntimeHandlers, NullMessageDoesNotCrash) {
    loom_set_error_handler(&capture_error);
    loom_error(nullptr, nullptr);
    ASSERT_EQ(captured_errors.size(), 1u);
    EXPECT_EQ(captured_errors[0], "(null)");
}

TEST_F(RuntimeHandlers, ErrorCaptureTakesMessagesInsteadOfTheHandler) {
    loom_set_error_handler(&capture_error);
    {
        loom::internal::ScopedErrorCapture capture;
        loom_error(nullptr, "first");
        loom_error(nullptr, "second");
        EXPECT_EQ(capture.message(), "first\nsecond");
        EXPECT_TRUE(captured_errors.empty());
    }
    loom_error(nullptr, "after");
    ASSERT_EQ(captured_errors.size(), 1u);
    EXPECT_EQ(captured_errors[0], "after");
}

TEST_F(RuntimeHandlers, DefaultPrintHandlerWritesToStdout) {
    ::testing::internal::CaptureStdout();
    loom_print(nullptr, "x = 3\n");
    EXPECT_EQ(::testing::internal::GetCapturedStdout(), "x = 3\n");
}

TEST_F(RuntimeHandlers, ReplacedPrintHandlerCapturesMessage) {
    loom_print_handler_t original = loom_set_print_handler(&capture_print);
    ASSERT_NE(original, nullptr);
    loom_print(nullptr, "hello ");
    loom_print(nullptr, "world");
    EXPECT_EQ(captured_print, "hello world");
}

TEST_F(RuntimeHandlers, HandlersCanBeSwappedFromManyThreads) {
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; t++) {
        threads.emplace_back([] {
            for (int i = 0; i < 1000; i++) {
                loom_set_print_handler(i % 2 ? &capture_print : nullptr);
            }
        });
    }
    for (std::thread &thread : threads) {
        thread.join();
    }
    loom_set_print_handler(nullptr);
    ::testing::internal::CaptureStdout();
    loom_print(nullptr, "ok");
    EXPECT_EQ(::testing::internal::GetCapturedStdout(), "ok");
}

TEST(RuntimeMalloc, ReturnsSixtyFourByteAlignedMemory) {
    for (size_t bytes : {size_t(0), size_t(1), size_t(3), size_t(63), size_t(64), size_t(65), size_t(1000),
                         size_t(1) << 20}) {
        void *p = loom_malloc(nullptr, bytes);
        ASSERT_NE(p, nullptr) << bytes;
        EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u) << bytes;
        std::memset(p, 0xab, bytes);  // the whole request is writable
        loom_free(nullptr, p);
    }
}

TEST(RuntimeMalloc, ReturnsNullWhenTheRequestCannotBeMet) {
    EXPECT_EQ(loom_malloc(nullptr, SIZE_MAX), nullptr);
    EXPECT_EQ(loom_malloc(nullptr, SIZE_MAX - 10), nullptr);
}

TEST(RuntimeMalloc, FreeOfNullIsHarmless) { loom_free(nullptr, nullptr); }

}  // namespace
