// What a running pipeline does besides computing: print()/print_when()
// output, and errors reported as RuntimeError without touching memory out of
// bounds.

#include "e2e/E2ETest.h"

#include <unistd.h>

#include <mutex>
#include <vector>

using namespace loom;

namespace {

class RuntimeBehaviour : public loom_test::BackendTest {};

std::mutex printed_mutex;
std::string printed;

void capture_print(void *, const char *message) {
    std::lock_guard<std::mutex> lock(printed_mutex);
    printed += message;
}

/** Installs capture_print for the lifetime of the object. */
struct PrintCapture {
    PrintCapture() {
        printed.clear();
        previous = loom_set_print_handler(capture_print);
    }
    ~PrintCapture() { loom_set_print_handler(previous); }
    loom_print_handler_t previous;
};

int count_lines(const std::string &s) {
    int n = 0;
    for (char c : s) n += c == '\n';
    return n;
}

TEST_P(RuntimeBehaviour, Print) {
    PrintCapture capture;
    Var x("x");
    Func f("printer");
    f(x) = print(x * 2, "is twice", x);
    Buffer<int> out = f.realize({3});
    EXPECT_EQ(out(2), 4);
    EXPECT_EQ(count_lines(printed), 3) << printed;
    EXPECT_NE(printed.find("4 is twice 2"), std::string::npos) << printed;
    EXPECT_NE(printed.find("0 is twice 0"), std::string::npos) << printed;
}

TEST_P(RuntimeBehaviour, PrintWhen) {
    PrintCapture capture;
    Var x("x");
    Func f("print_when");
    f(x) = print_when(x == 5, x * 10, "at five");
    Buffer<int> out = f.realize({8});
    EXPECT_EQ(out(7), 70);
    EXPECT_EQ(count_lines(printed), 1) << printed;
    EXPECT_NE(printed.find("50 at five"), std::string::npos) << printed;
}

TEST_P(RuntimeBehaviour, InputTooSmallIsARuntimeError) {
    Var x("x");
    ImageParam in(Int(32), 1, "short_input");
    Func f("reads_ahead");
    f(x) = in(x + 2);
    // Guard words around the buffer: nothing outside [4, 10) may be read or written.
    std::vector<int> memory(16, 12345);
    for (int i = 4; i < 10; i++) memory[i] = i;
    Buffer<int> window(memory.data() + 4, {6}, "short_window");
    in.set(window);
    std::string message = loom_test::runtime_error_message([&] { f.realize({6}); });
    EXPECT_NE(message, "<no error>");
    EXPECT_NE(message.find("short_input"), std::string::npos) << message;
    for (int i = 0; i < 16; i++) EXPECT_EQ(memory[i], i >= 4 && i < 10 ? i : 12345) << i;

    // A large enough input runs.
    Buffer<int> enough(8);
    for (int i = 0; i < 8; i++) enough(i) = i * 3;
    in.set(enough);
    Buffer<int> out = f.realize({6});
    EXPECT_EQ(out(5), 21);
}

TEST_P(RuntimeBehaviour, ShiftedInputMissingTheRegion) {
    Var x("x"), y("y");
    ImageParam in(Float(32), 2, "offset_input");
    Func f("copy2d");
    f(x, y) = in(x, y);
    Buffer<float> b(4, 4);
    b.set_min(1, 0);  // starts one column too late for x = 0
    in.set(b);
    std::string message = loom_test::runtime_error_message([&] { f.realize({4, 4}); });
    EXPECT_NE(message.find("offset_input"), std::string::npos) << message;
}

TEST_P(RuntimeBehaviour, ErrorThenSuccessOnTheSameCompiledPipeline) {
    Var x("x");
    ImageParam in(UInt(8), 1, "retry_input");
    Func f("retry");
    f(x) = in(x) + cast<uint8_t>(1);
    in.set(Buffer<uint8_t>(2));
    EXPECT_THROW(f.realize({4}), RuntimeError);
    int compiles = internal::jit_compile_count();
    Buffer<uint8_t> big(4);
    big.fill(9);
    in.set(big);
    Buffer<uint8_t> out = f.realize({4});
    EXPECT_EQ(out(3), 10);
    EXPECT_EQ(internal::jit_compile_count(), compiles);
}

TEST_P(RuntimeBehaviour, LoopNestAndLoweredStmt) {
    Var x("x"), y("y");
    Func g("nest_g"), f("nest_f");
    g(x, y) = x + y;
    g.compute_root();
    f(x, y) = g(x, y) * 2;
    testing::internal::CaptureStdout();
    f.print_loop_nest();
    std::string nest = testing::internal::GetCapturedStdout();
    EXPECT_NE(nest.find("nest_g"), std::string::npos) << nest;
    EXPECT_NE(nest.find("nest_f"), std::string::npos) << nest;

    std::string file = testing::TempDir() + std::to_string(getpid()) + "_loom_lowered_stmt.txt";
    f.compile_to_lowered_stmt(file);
    FILE *fp = std::fopen(file.c_str(), "r");
    ASSERT_NE(fp, nullptr);
    char line[512] = {};
    const bool read = std::fgets(line, sizeof line, fp) != nullptr;
    std::fclose(fp);
    std::remove(file.c_str());
    ASSERT_TRUE(read) << file << " is empty";
    EXPECT_NE(std::string(line).find("nest_f: output buffer<int32, 2D>"), std::string::npos) << line;
}

LOOM_INSTANTIATE_BACKENDS(RuntimeBehaviour);

}  // namespace

namespace {

std::string lowered_text(Func &f, const Target &target) {
    std::string file = testing::TempDir() + std::to_string(getpid()) + "_loom_target_features.stmt";
    f.compile_to_lowered_stmt(file, target);
    FILE *fp = std::fopen(file.c_str(), "r");
    std::string text;
    char chunk[4096];
    size_t n;
    while (fp && (n = std::fread(chunk, 1, sizeof chunk, fp)) > 0) text.append(chunk, n);
    if (fp) std::fclose(fp);
    std::remove(file.c_str());
    return text;
}

}  // namespace

// no_asserts: the caller promises valid buffers; Loom emits no checks (and
// the results are the same). no_bounds_query: no bounds-query mode.
TEST_P(RuntimeBehaviour, NoAssertsAndNoBoundsQueryFeatures) {
    Var x("x");
    ImageParam in(Int(32), 1, "feature_input");
    Func f("feature_f");
    f(x) = in(x + 1) * 2;
    const Target host = get_jit_target_from_environment();
    std::string checked = lowered_text(f, host);
    EXPECT_NE(checked.find("assert("), std::string::npos);
    EXPECT_NE(checked.find("buffer_set_bounds"), std::string::npos);
    std::string unchecked = lowered_text(f, host.with_feature(Target::NoAsserts));
    EXPECT_EQ(unchecked.find("assert("), std::string::npos) << unchecked;
    std::string no_query = lowered_text(f, host.with_feature(Target::NoBoundsQuery));
    EXPECT_EQ(no_query.find("buffer_set_bounds"), std::string::npos) << no_query;
    EXPECT_NE(no_query.find("assert("), std::string::npos);

    Buffer<int> input(9);
    for (int i = 0; i < 9; i++) input(i) = i * i;
    in.set(input);
    Buffer<int> out(8);
    f.realize(out, host.with_feature(Target::NoAsserts));
    for (int i = 0; i < 8; i++) EXPECT_EQ(out(i), (i + 1) * (i + 1) * 2) << i;
}
