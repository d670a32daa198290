# CMake functions for Loom generators (docs/GENERATORS.md). Included by Loom's
# own build and by the installed package (find_package(Loom CONFIG)), so the
# same calls work in both; they need the targets Loom::Loom,
# Loom::generator_main and Loom::Runtime.
#
#   loom_add_generator(<exe> SOURCES <src>... [LINK_LIBRARIES <lib>...])
#       A generator executable: the sources (with LOOM_REGISTER_GENERATOR)
#       linked with Loom::Loom and the generator driver's main().
#
#   loom_add_library(<lib> FROM <exe> GENERATOR <name> [FUNCTION_NAME <fn>]
#                    [PARAMS <param>=<value>...] [TARGETS <target>])
#       Runs <exe> at build time and makes <lib> a linkable static library
#       whose header <lib>.h is on its include path, and so is
#       <loom/runtime/Buffer.h> (Loom::Runtime: loom::Runtime::Buffer wraps
#       the loom_buffer_t arguments; no libLoom). The C function is <fn>
#       (default: <lib>). TARGETS defaults to host. With several x86
#       targets, <lib> holds one variant per target and binds <fn> at load
#       time to the first whose CPU features are present (the last is the
#       fallback); <fn>_loom_target() names the one chosen.
#       REGISTRATION <var> (one target only) also writes
#       <fn>.registration.cpp and sets <var> to its path: compile it into an
#       executable with <lib> and Loom::rungen to get a command-line runner
#       of the pipeline (docs/GENERATORS.md, "RunGen").
#
#   loom_add_stub(<target> FROM <exe> GENERATOR <name>)
#       Runs <exe> -e cpp_stub at build time; <target> is an INTERFACE library
#       whose include path holds <name>.stub.h (class loom_stub::<name>, see
#       loom/GeneratorStub.h). The program that uses it must also compile or
#       link the generator's source.

include_guard(GLOBAL)

find_package(Threads REQUIRED)

function(loom_add_generator target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES;LINK_LIBRARIES")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "loom_add_generator(${target}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "loom_add_generator(${target}): SOURCES is required (the files that define the generators).")
  endif()
  add_executable(${target} ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE Loom::generator_main Loom::Loom ${ARG_LINK_LIBRARIES})
  target_compile_features(${target} PRIVATE cxx_std_17)
endfunction()

function(loom_add_library target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "FROM;GENERATOR;FUNCTION_NAME;REGISTRATION" "PARAMS;TARGETS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "loom_add_library(${target}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_FROM)
    message(FATAL_ERROR "loom_add_library(${target}): FROM <generator executable> is required.")
  endif()
  if(NOT TARGET ${ARG_FROM})
    message(FATAL_ERROR "loom_add_library(${target}): FROM ${ARG_FROM} is not a target; "
                        "create it first with loom_add_generator(${ARG_FROM} SOURCES ...).")
  endif()
  if(NOT ARG_GENERATOR)
    message(FATAL_ERROR "loom_add_library(${target}): GENERATOR <name> is required "
                        "(the name given to LOOM_REGISTER_GENERATOR).")
  endif()
  if(NOT ARG_FUNCTION_NAME)
    set(ARG_FUNCTION_NAME ${target})
  endif()
  if(NOT ARG_TARGETS)
    set(ARG_TARGETS host)
  endif()
  foreach(param ${ARG_PARAMS})
    if(NOT param MATCHES "^[^=]+=")
      message(FATAL_ERROR "loom_add_library(${target}): PARAMS entry '${param}' is not of the form name=value.")
    endif()
    if(param MATCHES "^target=")
      message(FATAL_ERROR "loom_add_library(${target}): give the target with TARGETS, not PARAMS.")
    endif()
  endforeach()

  set(dir "${CMAKE_CURRENT_BINARY_DIR}/${target}.loom")
  # The include directory of an imported target must exist when CMake generates.
  file(MAKE_DIRECTORY "${dir}")
  list(LENGTH ARG_TARGETS target_count)
  if(target_count EQUAL 1)
    set(kinds static_library,h)
    if(ARG_REGISTRATION)
      set(kinds static_library,h,registration)
      set(${ARG_REGISTRATION} "${dir}/${target}.registration.cpp" PARENT_SCOPE)
    endif()
    _loom_generate(${target} "${dir}" ${ARG_FROM} ${ARG_GENERATOR} ${ARG_FUNCTION_NAME} ${target}
                   "${ARG_TARGETS}" ${kinds} "${ARG_PARAMS}")
    _loom_import_library(${target} "${dir}/${target}.a" "${dir}")
    return()
  endif()
  if(ARG_REGISTRATION)
    message(FATAL_ERROR "loom_add_library(${target}): REGISTRATION needs one target; "
                        "make a library of one target for the runner.")
  endif()

  # Several targets: one library per target (function <fn>_<target as C
  # identifier>), the header <lib>.h declaring <fn> itself, and a dispatcher
  # that binds <fn> to the first variant whose CPU features are present.
  set(variants)
  set(declarations "")
  set(choices "")
  set(names "")
  foreach(t ${ARG_TARGETS})
    string(MAKE_C_IDENTIFIER "${t}" suffix)
    set(variant ${target}_${suffix})
    _loom_generate(${variant} "${dir}" ${ARG_FROM} ${ARG_GENERATOR} ${ARG_FUNCTION_NAME}_${suffix} ${variant}
                   "${t}" static_library,h "${ARG_PARAMS}")
    _loom_import_library(${variant} "${dir}/${variant}.a" "${dir}")
    list(APPEND variants ${variant})
    _loom_cpu_checks("${t}" condition)
    string(APPEND declarations "void ${ARG_FUNCTION_NAME}_${suffix}(void);\n")
    string(APPEND choices "    if (${condition}) return &${ARG_FUNCTION_NAME}_${suffix};\n")
    string(APPEND names "    if (${condition}) return \"${t}\";\n")
  endforeach()
  list(GET ARG_TARGETS 0 first_target)
  _loom_generate(${target} "${dir}" ${ARG_FROM} ${ARG_GENERATOR} ${ARG_FUNCTION_NAME} ${target}
                 "${first_target}" h "${ARG_PARAMS}")
  list(GET ARG_TARGETS -1 last_target)
  string(MAKE_C_IDENTIFIER "${last_target}" last_suffix)
  set(fn ${ARG_FUNCTION_NAME})
  string(JOIN ", " target_list ${ARG_TARGETS})
  file(CONFIGURE OUTPUT "${dir}/${target}_dispatch.cpp" @ONLY CONTENT
"// Written by loom_add_library(${target}): binds ${fn} (declared in ${target}.h)
// to the first of ${target_list} whose CPU features this machine has, once,
// when the program is loaded (a GNU indirect function); the last is the
// fallback. The variants are only named here, never called, so their
// prototypes do not matter.
extern \"C\" {
${declarations}
typedef void (*${fn}_variant_t)(void);

${fn}_variant_t ${fn}_loom_resolve(void) {
    __builtin_cpu_init();
${choices}    return &${fn}_${last_suffix};
}

void ${fn}(void) __attribute__((ifunc(\"${fn}_loom_resolve\")));

/** The target ${fn} runs: for logs and tests. */
const char *${fn}_loom_target(void) {
    __builtin_cpu_init();
${names}    return \"${last_target}\";
}
}
")
  add_library(${target} STATIC "${dir}/${target}_dispatch.cpp")
  add_dependencies(${target} ${target}.update)
  target_include_directories(${target} INTERFACE "${dir}")
  target_link_libraries(${target} PUBLIC ${variants})
endfunction()

function(loom_add_stub target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "FROM;GENERATOR" "")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "loom_add_stub(${target}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_FROM OR NOT TARGET ${ARG_FROM})
    message(FATAL_ERROR "loom_add_stub(${target}): FROM <generator executable> is required and must be a target "
                        "(loom_add_generator).")
  endif()
  if(NOT ARG_GENERATOR)
    message(FATAL_ERROR "loom_add_stub(${target}): GENERATOR <name> is required.")
  endif()
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/${target}.loom")
  file(MAKE_DIRECTORY "${dir}")
  add_custom_command(
    OUTPUT "${dir}/${ARG_GENERATOR}.stub.h"
    COMMAND ${ARG_FROM} -g ${ARG_GENERATOR} -o "${dir}" -e cpp_stub -n ${ARG_GENERATOR}
    DEPENDS ${ARG_FROM}
    COMMENT "Generating the stub ${ARG_GENERATOR}.stub.h"
    VERBATIM)
  add_custom_target(${target}.update DEPENDS "${dir}/${ARG_GENERATOR}.stub.h")
  add_library(${target} INTERFACE)
  target_include_directories(${target} INTERFACE "${dir}")
  target_link_libraries(${target} INTERFACE Loom::Loom)
  add_dependencies(${target} ${target}.update)
endfunction()

# Runs the generator at build time: <dir>/<base>.<ext> for each kind; the
# custom target <name>.update builds them.
function(_loom_generate name dir exe generator function_name base target kinds params)
  set(outputs)
  string(REPLACE "," ";" kind_list "${kinds}")
  foreach(kind ${kind_list})
    if(kind STREQUAL "static_library")
      list(APPEND outputs "${dir}/${base}.a")
    elseif(kind STREQUAL "h")
      list(APPEND outputs "${dir}/${base}.h")
    elseif(kind STREQUAL "registration")
      list(APPEND outputs "${dir}/${base}.registration.cpp")
    endif()
  endforeach()
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND ${exe} -g ${generator} -o "${dir}" -e ${kinds} -f ${function_name} -n ${base} target=${target} ${params}
    DEPENDS ${exe}
    COMMENT "Generating ${base} (generator ${generator}, target ${target})"
    VERBATIM)
  add_custom_target(${name}.update DEPENDS ${outputs})
endfunction()

function(_loom_import_library name library include_dir)
  add_library(${name} STATIC IMPORTED GLOBAL)
  set_target_properties(${name} PROPERTIES
    IMPORTED_LOCATION "${library}"
    INTERFACE_INCLUDE_DIRECTORIES "${include_dir}")
  # The runtime inside the library uses threads, dlopen and libm; callers
  # include <loom/runtime/Buffer.h> from Loom::Runtime.
  target_link_libraries(${name} INTERFACE Loom::Runtime Threads::Threads ${CMAKE_DL_LIBS} m)
  add_dependencies(${name} ${name}.update)
endfunction()

# The C condition under which a target's code runs on this CPU, from its
# feature tokens (x86 only; other tokens do not constrain it).
function(_loom_cpu_checks target out)
  set(cpu_sse41 "sse4.1")
  set(cpu_avx "avx")
  set(cpu_avx2 "avx2")
  set(cpu_fma "fma")
  set(cpu_f16c "f16c")
  set(cpu_avx512 "avx512f;avx512cd")
  set(cpu_avx512_skylake "avx512f;avx512cd;avx512vl;avx512bw;avx512dq")
  set(cpu_avx512_cannonlake "avx512f;avx512cd;avx512vl;avx512bw;avx512dq;avx512ifma;avx512vbmi")
  set(cpu_avx512_sapphirerapids
      "avx512f;avx512cd;avx512vl;avx512bw;avx512dq;avx512ifma;avx512vbmi;avx512vnni;avx512bf16;avx512fp16;avxvnni")
  set(cpu_avx512_zen4
      "avx512f;avx512cd;avx512vl;avx512bw;avx512dq;avx512ifma;avx512vbmi;avx512vnni;avx512bf16;avx512vbmi2;avx512bitalg;avx512vpopcntdq")
  set(cpu_avxvnni "avxvnni")
  string(REPLACE "-" ";" tokens "${target}")
  list(GET tokens 0 arch)
  if(NOT arch STREQUAL "x86" AND NOT arch STREQUAL "host")
    message(FATAL_ERROR "loom_add_library: runtime dispatch between several TARGETS works for x86 targets only; "
                        "'${target}' is not one. Give one target instead.")
  endif()
  if(NOT CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
    message(FATAL_ERROR "loom_add_library: runtime dispatch between several TARGETS needs an x86-64 build.")
  endif()
  set(checks)
  foreach(token ${tokens})
    if(DEFINED cpu_${token})
      foreach(feature ${cpu_${token}})
        list(APPEND checks "__builtin_cpu_supports(\"${feature}\")")
      endforeach()
    endif()
  endforeach()
  list(REMOVE_DUPLICATES checks)
  if(checks)
    list(JOIN checks " && " condition)
  else()
    set(condition "1")
  endif()
  set(${out} "${condition}" PARENT_SCOPE)
endfunction()
