// Types the target does not enable are CompileErrors that name the kernel,
// the type and the Target feature to add; capabilities and extensions follow
// the types a module uses and the SPIR-V version.

#include <gtest/gtest.h>

#include "SpirvTestUtil.h"

namespace loom_test_spirv {
namespace {

using loom::Bool;
using loom::Float;
using loom::Int;
using loom::UInt;

struct FeatureCase {
    Type type;
    const char *feature;
    const char *type_text;
};

const FeatureCase feature_cases[] = {
    {Int(8), "vk_int8", "int8"},       {UInt(8), "vk_int8", "uint8"},     {Int(16), "vk_int16", "int16"},
    {UInt(16), "vk_int16", "uint16"},  {Int(64), "vk_int64", "int64"},    {UInt(64), "vk_int64", "uint64"},
    {Float(16), "vk_float16", "float16"}, {Float(64), "vk_float64", "float64"},
};

TEST(SpirvFeatures, BufferOfAnUnenabledTypeNamesKernelTypeAndFeature) {
    for (const FeatureCase &c : feature_cases) {
        GPUKernel k = elementwise_kernel("needs_" + std::string(c.feature), c.type, load(c.type, "in", var("x")),
                                         {buffer_arg("in", c.type, true, false)});
        std::string message = compile_error_of(k, vulkan_target());
        EXPECT_NE(message.find(k.name), std::string::npos) << message;
        EXPECT_NE(message.find(c.type_text), std::string::npos) << message;
        EXPECT_NE(message.find(std::string("add ") + c.feature + " to the target"), std::string::npos) << message;
        // With the feature it compiles; the other features do not matter.
        compile_ok(k, vulkan_target(c.feature));
    }
}

TEST(SpirvFeatures, ArithmeticInAnUnenabledTypeIsAnErrorToo) {
    // Only an intermediate value is float64: the buffers are float32.
    Expr wide = Cast::make(Float(64), load(Float(32), "in", var("x")));
    Expr v = Cast::make(Float(32), Mul::make(wide, FloatImm::make(Float(64), 0.1)));
    GPUKernel k = elementwise_kernel("wide_math", Float(32), v, {buffer_arg("in", Float(32), true, false)});
    std::string message = compile_error_of(k, vulkan_target());
    EXPECT_NE(message.find("float64"), std::string::npos) << message;
    EXPECT_NE(message.find("vk_float64"), std::string::npos) << message;
    compile_ok(k, vulkan_target("vk_float64"));

    // A 64-bit scalar argument (a push constant).
    GPUKernel s = elementwise_kernel("wide_scalar", Int(32), Cast::make(Int(32), var("n", Int(64))),
                                     {scalar_arg("n", Int(64))});
    EXPECT_NE(compile_error_of(s, vulkan_target()).find("vk_int64"), std::string::npos);
    compile_ok(s, vulkan_target("vk_int64"));
}

TEST(SpirvFeatures, BoolBuffersAreBytesAndNeedInt8) {
    GPUKernel k = elementwise_kernel("bools", Bool(), LT::make(var("x"), i32(10)), {});
    std::string message = compile_error_of(k, vulkan_target());
    EXPECT_NE(message.find("bool"), std::string::npos) << message;
    EXPECT_NE(message.find("vk_int8"), std::string::npos) << message;
    std::string text = disassemble_spirv(compile_ok(k, vulkan_target("vk_int8")));
    EXPECT_NE(text.find("OpTypeInt 8 0"), std::string::npos) << text;
    EXPECT_NE(text.find("ArrayStride 1"), std::string::npos) << text;
    // Bools in registers and in kernel-local memory need nothing.
    Stmt body = Allocate::make("flags", Bool(), MemoryType::Register, {i32(4)}, Expr(),
                               Block::make(Store::make("flags", LT::make(var("x"), i32(3)), i32(0)),
                                           Store::make("out", Select::make(load(Bool(), "flags", i32(0)), i32(1),
                                                                           i32(2)), var("x"))));
    GPUKernel local;
    local.name = "local_bools";
    local.args = {buffer_arg("out", Int(32), false, true)};
    local.body = LetStmt::make("x", global_x(), body);
    compile_ok(local, vulkan_target());
}

TEST(SpirvFeatures, CapabilitiesAndExtensionsFollowTypesAndVersion) {
    GPUKernel k8 = elementwise_kernel("bytes", UInt(8), load(UInt(8), "in", var("x")),
                                      {buffer_arg("in", UInt(8), true, false)});
    std::string v10 = disassemble_spirv(compile_ok(k8, vulkan_target("vk_int8")));
    EXPECT_NE(v10.find("OpCapability Int8"), std::string::npos);
    EXPECT_NE(v10.find("OpCapability StorageBuffer8BitAccess"), std::string::npos);
    EXPECT_NE(v10.find("SPV_KHR_8bit_storage"), std::string::npos);
    EXPECT_NE(v10.find("SPV_KHR_storage_buffer_storage_class"), std::string::npos);
    std::string v12 = disassemble_spirv(compile_ok(k8, vulkan_target("vk_int8-vk_v12")));
    EXPECT_NE(v12.find("OpCapability StorageBuffer8BitAccess"), std::string::npos);
    EXPECT_EQ(v12.find("SPV_KHR_8bit_storage"), std::string::npos);  // core in SPIR-V 1.5
    EXPECT_EQ(v12.find("SPV_KHR_storage_buffer_storage_class"), std::string::npos);

    GPUKernel k16 = elementwise_kernel("halves", Float(16), load(Float(16), "in", var("x")),
                                       {buffer_arg("in", Float(16), true, false)});
    std::string h10 = disassemble_spirv(compile_ok(k16, vulkan_target("vk_float16")));
    EXPECT_NE(h10.find("OpCapability Float16"), std::string::npos);
    EXPECT_NE(h10.find("StorageBuffer16BitAccess"), std::string::npos);
    EXPECT_NE(h10.find("SPV_KHR_16bit_storage"), std::string::npos);

    // A plain int32 kernel declares nothing it does not use.
    GPUKernel k32 = elementwise_kernel("plain", Int(32), var("x"), {});
    std::string p = disassemble_spirv(compile_ok(k32, vulkan_target("vk_v13")));
    EXPECT_EQ(p.find("OpCapability Int8"), std::string::npos);
    EXPECT_EQ(p.find("OpCapability Int64"), std::string::npos);
    EXPECT_EQ(p.find("OpCapability Float64"), std::string::npos);
    EXPECT_EQ(p.find("OpExtension"), std::string::npos);
    // In SPIR-V 1.4+ the entry point lists the storage buffers too.
    EXPECT_NE(p.find("\"plain\" %out"), std::string::npos) << p;
}

TEST(SpirvFeatures, MalformedKernelsAreInternalErrors) {
    // Loads of names that are not bound, and GPU loops left inside the body.
    GPUKernel k = elementwise_kernel("unbound", Int(32), load(Int(32), "nowhere", var("x")), {});
    EXPECT_THROW(compile_kernel_to_spirv(k, vulkan_target()), loom::InternalError);
    GPUKernel v = elementwise_kernel("unbound_var", Int(32), var("y"), {});
    EXPECT_THROW(compile_kernel_to_spirv(v, vulkan_target()), loom::InternalError);
    GPUKernel loop;
    loop.name = "gpu_loop";
    loop.args = {buffer_arg("out", Int(32), false, true)};
    loop.body = For::make("t", i32(0), i32(4), ForType::GPUThread, DeviceAPI::Vulkan,
                          Store::make("out", var("t"), var("t")));
    EXPECT_THROW(compile_kernel_to_spirv(loop, vulkan_target()), loom::InternalError);
    GPUKernel dynamic;
    dynamic.name = "dynamic_allocation";
    dynamic.args = {scalar_arg("n", Int(32)), buffer_arg("out", Int(32), false, true)};
    dynamic.body = Allocate::make("tmp", Int(32), MemoryType::GPUShared, {var("n")}, Expr(),
                                  Store::make("out", i32(0), i32(0)));
    EXPECT_THROW(compile_kernel_to_spirv(dynamic, vulkan_target()), loom::InternalError);
}

}  // namespace
}  // namespace loom_test_spirv
