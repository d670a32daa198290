#ifndef LOOM_TEST_CODEGEN_SCOPED_ENV_H
#define LOOM_TEST_CODEGEN_SCOPED_ENV_H

#include <cstdlib>
#include <optional>
#include <string>

namespace loom_test {

/** Sets (or, for a null value, unsets) an environment variable for the
 * lifetime of the object, then restores what it was. */
class ScopedEnv {
public:
    ScopedEnv(const char *name, const char *value) : name_(name) {
        if (const char *old = std::getenv(name)) old_ = old;
        if (value) {
            setenv(name, value, 1);
        } else {
            unsetenv(name);
        }
    }
    ~ScopedEnv() {
        if (old_) {
            setenv(name_.c_str(), old_->c_str(), 1);
        } else {
            unsetenv(name_.c_str());
        }
    }
    ScopedEnv(const ScopedEnv &) = delete;
    ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
    std::string name_;
    std::optional<std::string> old_;
};

}  // namespace loom_test

#endif
