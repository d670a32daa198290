// The language the apps' algorithms and schedules are written in: Loom, or,
// where the file that includes this is compiled with LOOM_APPS_HALIDE14
// defined (bench/apps, the apps timed against Halide 14), Halide 14 under
// the namespace alias `loom = Halide`. One source of each app's algorithm
// and schedule is so compiled twice.
//
// The two builds of an app live in different inline namespaces of `apps`
// (apps::loom_dsl, apps::halide14): code names both apps::Blur, but their
// symbols differ, so both can be linked into one benchmark binary.
#ifndef LOOM_APPS_COMMON_DSL_H
#define LOOM_APPS_COMMON_DSL_H

#ifdef LOOM_APPS_HALIDE14
#include <Halide.h>
namespace loom = Halide;
#define LOOM_APPS_DSL halide14
#else
#include <loom/Loom.h>
#define LOOM_APPS_DSL loom_dsl
#endif

#endif
