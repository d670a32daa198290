#include "loom/Expr.h"

#include "ir/IR.h"

// Exprs from C++ scalars: each literal keeps its C++ type (see Expr.h).
namespace loom {

using namespace internal;

Expr::Expr(int8_t x) : IRHandle(IntImm::make(Int(8), x)) {}
Expr::Expr(int16_t x) : IRHandle(IntImm::make(Int(16), x)) {}
Expr::Expr(int32_t x) : IRHandle(IntImm::make(Int(32), x)) {}
Expr::Expr(int64_t x) : IRHandle(IntImm::make(Int(64), x)) {}
Expr::Expr(uint8_t x) : IRHandle(UIntImm::make(UInt(8), x)) {}
Expr::Expr(uint16_t x) : IRHandle(UIntImm::make(UInt(16), x)) {}
Expr::Expr(uint32_t x) : IRHandle(UIntImm::make(UInt(32), x)) {}
Expr::Expr(uint64_t x) : IRHandle(UIntImm::make(UInt(64), x)) {}
Expr::Expr(float x) : IRHandle(FloatImm::make(Float(32), x)) {}
Expr::Expr(double x) : IRHandle(FloatImm::make(Float(64), x)) {}

}  // namespace loom
