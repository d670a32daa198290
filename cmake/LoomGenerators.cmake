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
  # Several targets: the driver gets them comma-separated (target=a,b,c) and
  # writes one library with a variant per target, <fn>_<target as C
  # identifier>, and a dispatcher <fn> that runs the first variant whose CPU
  # features the machine has (src/aot/MultiTarget.cpp).
  list(LENGTH ARG_TARGETS target_count)
  set(kinds static_library,h)
  if(ARG_REGISTRATION)
    if(target_count GREATER 1)
      message(FATAL_ERROR "loom_add_library(${target}): REGISTRATION needs one target; "
                          "make a library of one target for the runner.")
    endif()
    set(kinds static_library,h,registration)
    set(${ARG_REGISTRATION} "${dir}/${target}.registration.cpp" PARENT_SCOPE)
  endif()
  string(JOIN "," target_list ${ARG_TARGETS})
  _loom_generate(${target} "${dir}" ${ARG_FROM} ${ARG_GENERATOR} ${ARG_FUNCTION_NAME} ${target}
                 "${target_list}" ${kinds} "${ARG_PARAMS}")
  _loom_import_library(${target} "${dir}/${target}.a" "${dir}")
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

