#ifndef LOOM_TEST_RUNTIME_VULKAN_VULKAN_RUNTIME_TEST_UTIL_H
#define LOOM_TEST_RUNTIME_VULKAN_VULKAN_RUNTIME_TEST_UTIL_H

// Helpers for the Vulkan runtime tests: an error log that replaces the
// runtime's error handler, the test kernels (TestKernels.spvasm), and a
// fixture that skips when there is no Vulkan device at all and fails a test
// whose runtime calls reported a validation error.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "TestKernels.h"
#include "loom/runtime/Buffer.h"
#include "loom/runtime/loom_runtime.h"
#include "runtime/RuntimeInternal.h"
#include "runtime/VulkanDebug.h"

namespace loom_vk_test {

/** Collects what the runtime reports through loom_error while it lives. */
class ErrorLog {
public:
    ErrorLog() {
        instance() = this;
        previous_ = loom_set_error_handler(&ErrorLog::handle);
    }
    ~ErrorLog() {
        loom_set_error_handler(previous_);
        instance() = nullptr;
    }
    ErrorLog(const ErrorLog &) = delete;
    ErrorLog &operator=(const ErrorLog &) = delete;

    std::string text() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return text_;
    }
    void clear() {
        std::lock_guard<std::mutex> lock(mutex_);
        text_.clear();
    }
    bool contains(const std::string &part) const { return text().find(part) != std::string::npos; }

private:
    static ErrorLog *&instance() {
        static ErrorLog *log = nullptr;
        return log;
    }
    static void handle(void *, const char *message) {
        ErrorLog *log = instance();
        if (!log) return;
        std::lock_guard<std::mutex> lock(log->mutex_);
        log->text_ += message;
        log->text_ += "\n";
    }

    mutable std::mutex mutex_;
    std::string text_;
    loom_error_handler_t previous_;
};

/** Sets (or unsets, for nullopt) an environment variable for a scope. */
class ScopedEnv {
public:
    ScopedEnv(const char *name, std::optional<std::string> value) : name_(name) {
        if (const char *old = std::getenv(name)) old_ = old;
        if (value) setenv(name, value->c_str(), 1);
        else unsetenv(name);
    }
    ~ScopedEnv() {
        if (old_) setenv(name_, old_->c_str(), 1);
        else unsetenv(name_);
    }

private:
    const char *name_;
    std::optional<std::string> old_;
};

inline loom_vk_debug_counts_t counts() {
    loom_vk_debug_counts_t c;
    loom_vulkan_debug_counts(&c);
    return c;
}

/** "" when every kind of object was destroyed as often as created; else
 * which were not. */
inline std::string unbalanced_objects() {
    loom_vk_debug_counts_t c = counts();
    std::string out;
    for (int k = 0; k < loom_vk_object_kinds; k++) {
        if (c.created[k] != c.destroyed[k]) {
            out += std::string(loom_vulkan_debug_object_name(k)) + ": created " + std::to_string(c.created[k]) +
                   ", destroyed " + std::to_string(c.destroyed[k]) + "; ";
        }
    }
    return out;
}

inline int64_t live(int kind) {
    loom_vk_debug_counts_t c = counts();
    return c.created[kind] - c.destroyed[kind];
}

inline int64_t events(int kind) { return counts().events[kind]; }

/** The test kernels' module, initialized on first use. */
struct Kernels {
    void *state = nullptr;
    int init() {
        return loom_vulkan_initialize_kernels(nullptr, &state, kTestKernels,
                                              static_cast<uint32_t>(sizeof kTestKernels / sizeof kTestKernels[0]));
    }
    void finalize() {
        loom_vulkan_finalize_kernels(nullptr, state);
        state = nullptr;
    }
    Kernels() = default;
    Kernels(const Kernels &) = delete;
    Kernels &operator=(const Kernels &) = delete;
    ~Kernels() { finalize(); }
};

struct Push {
    uint32_t count, add;
};

/** add_one: b[i] += add for i < count (count elements of b's span). */
inline int run_add_one(void *state, loom_buffer_t *b, uint32_t count, uint32_t add) {
    Push push{count, add};
    return loom_vulkan_run(nullptr, state, "add_one", static_cast<int>((count + 63) / 64), 1, 1, 64, 1, 1, 1, &b,
                           sizeof push, &push);
}

/** copy_add: to[i] = from[i] + add for i < count. */
inline int run_copy_add(void *state, loom_buffer_t *from, loom_buffer_t *to, uint32_t count, uint32_t add) {
    Push push{count, add};
    loom_buffer_t *buffers[2] = {from, to};
    return loom_vulkan_run(nullptr, state, "copy_add", static_cast<int>((count + 63) / 64), 1, 1, 64, 1, 1, 2,
                           buffers, sizeof push, &push);
}

/** Why no Vulkan device can be used, if the reason is that there is none at
 * all (no loader, no driver); nullopt when there is one, or when something
 * else went wrong (which the test should then report, not skip). */
inline std::optional<std::string> no_vulkan_device() {
    ErrorLog log;
    loom_vulkan_device_info_t info;
    if (loom_vulkan_get_device_info(nullptr, &info) == 0) return std::nullopt;
    const std::string why = log.text();
    if (why.find("no Vulkan device found") != std::string::npos ||
        why.find("cannot load the Vulkan loader") != std::string::npos ||
        why.find("VK_ERROR_INCOMPATIBLE_DRIVER") != std::string::npos) {
        return why;
    }
    return std::nullopt;
}

/** Skips without a device; fails the test if the runtime reported a
 * validation error (or any error the test did not expect) meanwhile. */
class VulkanRuntimeTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (auto why = no_vulkan_device()) GTEST_SKIP() << "no Vulkan device at all: " << *why;
        log_.emplace();
    }
    void TearDown() override {
        if (!log_) return;
        EXPECT_EQ(loom_device_sync(nullptr, nullptr), 0);
        EXPECT_EQ(log_->text(), "") << "the runtime reported errors";
        log_.reset();
    }
    /** What was reported so far, then forgets it (for tests that expect errors). */
    std::string take_errors() {
        std::string text = log_->text();
        log_->clear();
        return text;
    }
    std::optional<ErrorLog> log_;
};

}  // namespace loom_vk_test

#endif
