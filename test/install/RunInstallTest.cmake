# CTest's install_package test (cmake -P): installs the Loom build into a fresh
# prefix, configures and builds test/install/project against it with
# find_package(Loom CONFIG), runs its apps (one includes <loom/runtime/Buffer.h>
# through the generated library alone), and checks that they do not depend on
# libLoom or LLVM.
#
# Variables: LOOM_BUILD_DIR, PROJECT_DIR, WORK_DIR, GENERATOR, CXX_COMPILER,
# COMPILER_LAUNCHER (may be empty).

function(run step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install test: ${step} failed (${rc}):\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
set(build "${WORK_DIR}/build")

run("cmake --install" ${CMAKE_COMMAND} --install "${LOOM_BUILD_DIR}" --prefix "${prefix}")
if(NOT EXISTS "${prefix}/lib/cmake/Loom/LoomGenerators.cmake" AND NOT EXISTS "${prefix}/lib64/cmake/Loom/LoomGenerators.cmake")
  file(GLOB_RECURSE found "${prefix}/*LoomGenerators.cmake")
  if(NOT found)
    message(FATAL_ERROR "install test: LoomGenerators.cmake was not installed under ${prefix}")
  endif()
endif()

set(configure_args -S "${PROJECT_DIR}" -B "${build}" -G "${GENERATOR}" -DCMAKE_BUILD_TYPE=Release
    "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
if(COMPILER_LAUNCHER)
  list(APPEND configure_args "-DCMAKE_CXX_COMPILER_LAUNCHER=${COMPILER_LAUNCHER}")
endif()
run("configuring the project" ${CMAKE_COMMAND} ${configure_args})
run("building the project" ${CMAKE_COMMAND} --build "${build}" -j 2)
run("running the app" "${build}/scale_offset_app")
message(STATUS "${step_output}")
if(NOT step_output MATCHES "values match")
  message(FATAL_ERROR "install test: unexpected app output: ${step_output}")
endif()

run("running the app that includes loom/runtime/Buffer.h" "${build}/runtime_buffer_app")
message(STATUS "${step_output}")
if(NOT step_output MATCHES "values match")
  message(FATAL_ERROR "install test: unexpected runtime_buffer_app output: ${step_output}")
endif()

run("describing with the RunGen runner" "${build}/scale_offset_rungen" --describe)
if(NOT step_output MATCHES "scale: input scalar, int32, default 1")
  message(FATAL_ERROR "install test: unexpected scale_offset_rungen --describe output: ${step_output}")
endif()
run("running the RunGen runner" "${build}/scale_offset_rungen" "input=constant:7:[16,4]" scale=2
    "output=${build}/rungen_out.pgm")
if(NOT EXISTS "${build}/rungen_out.pgm")
  message(FATAL_ERROR "install test: scale_offset_rungen wrote no output image")
endif()

run("running the app that uses the generator stub" "${build}/stub_app")
message(STATUS "${step_output}")
if(NOT step_output MATCHES "values match")
  message(FATAL_ERROR "install test: unexpected stub_app output: ${step_output}")
endif()

find_program(LDD ldd)
if(LDD)
  foreach(app scale_offset_app runtime_buffer_app scale_offset_rungen)
    run("ldd" ${LDD} "${build}/${app}")
    if(step_output MATCHES "libLoom|libLLVM")
      message(FATAL_ERROR "install test: ${app} depends on libLoom or LLVM:\n${step_output}")
    endif()
  endforeach()
endif()
message(STATUS "install test: passed")
