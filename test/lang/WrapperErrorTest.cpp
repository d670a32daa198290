// Func::in and Func::clone_in misuse: each throws CompileError naming the
// Funcs and saying what to do.

#include <gtest/gtest.h>

#include "lang/LangTestUtil.h"
#include "loom/Loom.h"

using namespace loom;

namespace {

TEST(WrapperError, WrapperOfItself) {
    Var x("x");
    Func f("wrap_self");
    f(x) = x;
    EXPECT_COMPILE_ERROR(f.in(f), "wrap_self.in(wrap_self)", "itself", "wrap_self.in()");
    EXPECT_COMPILE_ERROR(f.clone_in(f), "wrap_self.clone_in(wrap_self)", "itself");
}

TEST(WrapperError, ConsumerThatDoesNotCallTheFunc) {
    Var x("x");
    Func f("wrap_f"), g("wrap_g");
    f(x) = x;
    g(x) = x * 2;
    EXPECT_COMPILE_ERROR(f.in(g), "wrap_g does not call wrap_f", "Pass only Funcs");
    EXPECT_COMPILE_ERROR(f.clone_in(g), "wrap_g does not call wrap_f");
    Func h("wrap_h");
    h(x) = f(x);
    EXPECT_COMPILE_ERROR(f.in({h, g}), "wrap_g does not call wrap_f", "{wrap_h, wrap_g}");
}

TEST(WrapperError, UndefinedFuncOrConsumer) {
    Var x("x");
    Func f("wrap_undef"), g("wrap_undef_g"), defined("wrap_defined");
    EXPECT_COMPILE_ERROR(f.in(), "wrap_undef", "no definition");
    defined(x) = x;
    EXPECT_COMPILE_ERROR(defined.in(g), "wrap_undef_g", "no definition", "Define wrap_undef_g");
}

TEST(WrapperError, EmptyListOfConsumers) {
    Var x("x");
    Func f("wrap_empty");
    f(x) = x;
    EXPECT_COMPILE_ERROR(f.in(std::vector<Func>{}), "wrap_empty", "no consumer", "wrap_empty.in()");
    EXPECT_COMPILE_ERROR(f.clone_in(std::vector<Func>{}), "wrap_empty", "no consumer");
}

TEST(WrapperError, WrapperAndCloneForOneConsumer) {
    Var x("x");
    Func f("wrap_kind"), g("wrap_kind_g");
    f(x) = x;
    g(x) = f(x) + 1;
    Func w = f.in(g);
    EXPECT_COMPILE_ERROR(f.clone_in(g), "wrap_kind_g already calls " + w.name(), "either a wrapper or a clone");
}

TEST(WrapperError, SomeConsumersHaveAWrapperAlready) {
    Var x("x");
    Func f("wrap_mix"), g("wrap_mix_g"), h("wrap_mix_h"), k("wrap_mix_k");
    f(x) = x;
    g(x) = f(x) + 1;
    h(x) = f(x) + 2;
    k(x) = f(x) + 3;
    Func wg = f.in(g);
    EXPECT_COMPILE_ERROR(f.in({g, h}), "wrap_mix_g already calls " + wg.name(), "wrap_mix_h has no wrapper");
    Func wh = f.in(h);
    EXPECT_COMPILE_ERROR(f.in({g, h}), "different wrappers", wg.name(), wh.name());
    // k was left alone by all of this.
    EXPECT_EQ(f.in({k}).name(), f.in(k).name());
}

TEST(WrapperError, NoUpdateAfterAWrapperReadsTheFunc) {
    Var x("x");
    RDom r(0, 3, "r");
    Func f("wrap_upd"), g("wrap_upd_g");
    f(x) = x;
    g(x) = f(x);
    Func w = f.in();
    EXPECT_COMPILE_ERROR(f(r) += 1, "wrap_upd", "already uses");
}

TEST(WrapperError, ImageParamWrapperMisuse) {
    ImageParam img(Int(32), 1, "wrap_img");
    Var x("x");
    Func g("wrap_img_g"), h("wrap_img_h"), undefined("wrap_img_undef");
    g(x) = img(x) + 1;
    h(x) = x * 2;
    EXPECT_COMPILE_ERROR(img.in(h), "wrap_img.in(wrap_img_h)", "wrap_img_h does not read wrap_img",
                         "Pass only Funcs");
    EXPECT_COMPILE_ERROR(img.in(undefined), "wrap_img_undef has no definition yet");
    EXPECT_COMPILE_ERROR(img.in(std::vector<Func>{}), "wrap_img", "in() for all");
    Func k("wrap_img_k");
    k(x) = img(x) * 3;
    Func wg = img.in(g);
    EXPECT_COMPILE_ERROR(img.in({g, k}), "wrap_img_g already calls " + wg.name(), "wrap_img_k has no wrapper");
    ImageParam none;
    EXPECT_COMPILE_ERROR(none.in(), "undefined");
}

TEST(WrapperError, OtherGPUAPIsThanVulkanAreRefused) {
    // Halide's names exist, so that Halide programs compile; setting one says what to use.
    for (Target::Feature f : {Target::CUDA, Target::OpenCL, Target::Metal, Target::D3D12Compute,
                              Target::OpenGLCompute, Target::WebGPU}) {
        const std::string name = Target::feature_to_name(f);
        EXPECT_COMPILE_ERROR(get_host_target().with_feature(f), "'" + name + "'", "no " + name + " back end",
                             "vulkan");
        EXPECT_COMPILE_ERROR(Target("host-" + name), "no " + name + " back end");
    }
    Target t = get_host_target();
    t.set_feature(Target::OpenCL, false);  // clearing one is harmless
    EXPECT_FALSE(t.has_feature(Target::OpenCL));
    EXPECT_FALSE(t.has_gpu_feature());
}

}  // namespace
