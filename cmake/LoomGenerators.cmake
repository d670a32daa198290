# CMake functions for Loom generators (docs/GENERATORS.md). Included by Loom's
# own build and by the installed package (find_package(Loom CONFIG)), so the
# same calls work in both; they need the targets Loom::Loom and
# Loom::generator_main.
#
#   loom_add_generator(<exe> SOURCES <src>... [LINK_LIBRARIES <lib>...])
#       A generator executable: the sources (with LOOM_REGISTER_GENERATOR)
#       linked with Loom::Loom and the generator driver's main().
#
#   loom_add_library(<lib> FROM <exe> GENERATOR <name> [FUNCTION_NAME <fn>]
#                    [PARAMS <param>=<value>...] [TARGETS <target>])
#       Runs <exe> at build time and makes <lib> a linkable static library
#       whose header <lib>.h is on its include path. The C function is <fn>
#       (default: <lib>). TARGETS defaults to host; only one target is
#       supported (no multi-target runtime dispatch yet).

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
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "FROM;GENERATOR;FUNCTION_NAME" "PARAMS;TARGETS")
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
  list(LENGTH ARG_TARGETS target_count)
  if(target_count GREATER 1)
    message(FATAL_ERROR "loom_add_library(${target}): TARGETS lists ${target_count} targets (${ARG_TARGETS}), "
                        "but Loom builds a library for one target only (no multi-target runtime dispatch). "
                        "Give one target, or one loom_add_library() per target.")
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
  set(library "${dir}/${target}.a")
  set(header "${dir}/${target}.h")
  # The include directory of an imported target must exist when CMake generates.
  file(MAKE_DIRECTORY "${dir}")
  add_custom_command(
    OUTPUT "${library}" "${header}"
    COMMAND ${ARG_FROM} -g ${ARG_GENERATOR} -o "${dir}" -e static_library,h -f ${ARG_FUNCTION_NAME} -n ${target}
            target=${ARG_TARGETS} ${ARG_PARAMS}
    DEPENDS ${ARG_FROM}
    COMMENT "Generating ${target} (generator ${ARG_GENERATOR}, target ${ARG_TARGETS})"
    VERBATIM)
  add_custom_target(${target}.update DEPENDS "${library}" "${header}")

  add_library(${target} STATIC IMPORTED GLOBAL)
  set_target_properties(${target} PROPERTIES
    IMPORTED_LOCATION "${library}"
    INTERFACE_INCLUDE_DIRECTORIES "${dir}")
  # The runtime inside the library uses threads, dlopen and libm.
  target_link_libraries(${target} INTERFACE Threads::Threads ${CMAKE_DL_LIBS} m)
  add_dependencies(${target} ${target}.update)
endfunction()
