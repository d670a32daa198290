#ifndef LOOM_LOOM_H
#define LOOM_LOOM_H

/** \file
 * Everything a Loom program needs:
 *
 *     #include <loom/Loom.h>
 *     using namespace loom;        // or: namespace Halide = loom;
 */

#include "loom/Argument.h"
#include "loom/AutoSchedule.h"
#include "loom/BoundaryConditions.h"
#include "loom/Buffer.h"
#include "loom/Callable.h"
#include "loom/Derivative.h"
#include "loom/Error.h"
#include "loom/Expr.h"
#include "loom/Float16.h"
#include "loom/Func.h"
#include "loom/IROperator.h"
#include "loom/ImageParam.h"
#include "loom/InlineReductions.h"
#include "loom/JITUserContext.h"
#include "loom/Lambda.h"
#include "loom/LoopLevel.h"
#include "loom/MemoizeTag.h"
#include "loom/Module.h"
#include "loom/OutputFileType.h"
#include "loom/Param.h"
#include "loom/Pipeline.h"
#include "loom/Range.h"
#include "loom/RDom.h"
#include "loom/Realization.h"
#include "loom/Schedule.h"
#include "loom/Stage.h"
#include "loom/Target.h"
#include "loom/TargetQueries.h"
#include "loom/Tuple.h"
#include "loom/Type.h"
#include "loom/Var.h"
#include "loom/VarOrRVar.h"
// Last: generators use everything above (Halide.h declares them too).
#include "loom/Generator.h"
#include "loom/GeneratorStub.h"

// Halide.h brings these too, and Halide programs rely on them (lesson 4
// prints an Expr with std::cout, lesson 14 checks types with assert).
#include <cassert>
#include <iostream>

#endif
