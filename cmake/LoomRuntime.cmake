# The runtime that ahead-of-time compiled libraries carry (docs/AOT.md).
#
# src/runtime/{Runtime,ErrorFormat,BoundsQuery,ThreadPool,Device}.c and the
# Vulkan*.c files are portable C.
# libLoom compiles them like any other source (the JIT's runtime). Here they
# are also compiled by clang to LLVM bitcode for each triple AOT supports,
# freestanding (no target headers needed: RuntimePlatform.h declares the few
# libc and pthread functions used), linked into one module per triple, and
# embedded in libLoom as byte arrays. At AOT time src/aot/RuntimeModule.cpp
# links the matching module into the pipeline's with weak, hidden linkage.
#
# Also embedded: include/loom/runtime/loom_runtime.h, which every generated
# C header repeats so that it compiles without Loom installed.

set(LOOM_RUNTIME_C_SOURCES
  ${CMAKE_SOURCE_DIR}/src/runtime/Runtime.c
  ${CMAKE_SOURCE_DIR}/src/runtime/ErrorFormat.c
  ${CMAKE_SOURCE_DIR}/src/runtime/Tracing.c
  ${CMAKE_SOURCE_DIR}/src/runtime/Memoization.c
  ${CMAKE_SOURCE_DIR}/src/runtime/Profiler.c
  ${CMAKE_SOURCE_DIR}/src/runtime/DebugToFile.c
  ${CMAKE_SOURCE_DIR}/src/runtime/CpuFeatures.c
  ${CMAKE_SOURCE_DIR}/src/runtime/BoundsQuery.c
  ${CMAKE_SOURCE_DIR}/src/runtime/ThreadPool.c
  ${CMAKE_SOURCE_DIR}/src/runtime/Fork.c
  ${CMAKE_SOURCE_DIR}/src/runtime/Device.c
  ${CMAKE_SOURCE_DIR}/src/runtime/VulkanLoader.c
  ${CMAKE_SOURCE_DIR}/src/runtime/VulkanErrors.c
  ${CMAKE_SOURCE_DIR}/src/runtime/VulkanContext.c
  ${CMAKE_SOURCE_DIR}/src/runtime/VulkanAllocator.c
  ${CMAKE_SOURCE_DIR}/src/runtime/VulkanCommandStream.c
  ${CMAKE_SOURCE_DIR}/src/runtime/VulkanBuffers.c
  ${CMAKE_SOURCE_DIR}/src/runtime/VulkanKernels.c)
set(LOOM_RUNTIME_C_HEADERS
  ${CMAKE_SOURCE_DIR}/src/runtime/RuntimePlatform.h
  ${CMAKE_SOURCE_DIR}/src/runtime/RuntimeInternal.h
  ${CMAKE_SOURCE_DIR}/src/runtime/CpuFeatures.h
  ${CMAKE_SOURCE_DIR}/src/runtime/DeviceInterface.h
  ${CMAKE_SOURCE_DIR}/src/runtime/VulkanLoader.h
  ${CMAKE_SOURCE_DIR}/src/runtime/VulkanInternal.h
  ${CMAKE_SOURCE_DIR}/src/runtime/VulkanDebug.h
  ${CMAKE_SOURCE_DIR}/include/loom/runtime/loom_runtime.h)
set(LOOM_EMBED_DIR ${CMAKE_BINARY_DIR}/embedded)

# The Vulkan runtime uses only the types of Vulkan's headers (the loader is
# dlopened, VulkanLoader.h). The freestanding bitcode build cannot see
# /usr/include, so it gets a folder holding only Vulkan's header folders.
find_path(LOOM_VULKAN_INCLUDE_DIR vulkan/vulkan_core.h)
if(NOT LOOM_VULKAN_INCLUDE_DIR)
  message(FATAL_ERROR "Vulkan's headers (vulkan/vulkan_core.h) were not found: install libvulkan-dev "
                      "(scripts/setup.sh does).")
endif()
target_include_directories(Loom SYSTEM PRIVATE ${LOOM_VULKAN_INCLUDE_DIR})
target_link_libraries(Loom PRIVATE ${CMAKE_DL_LIBS})  # dlopen of the loader (in libc since glibc 2.34)
set(LOOM_RUNTIME_VULKAN_INCLUDE ${CMAKE_BINARY_DIR}/runtime_vulkan_include)
file(MAKE_DIRECTORY ${LOOM_RUNTIME_VULKAN_INCLUDE})
foreach(folder vulkan vk_video)
  if(EXISTS ${LOOM_VULKAN_INCLUDE_DIR}/${folder})
    file(CREATE_LINK ${LOOM_VULKAN_INCLUDE_DIR}/${folder} ${LOOM_RUNTIME_VULKAN_INCLUDE}/${folder} SYMBOLIC)
  endif()
endforeach()
file(MAKE_DIRECTORY ${LOOM_EMBED_DIR})

# Any clang that LLVM 19 can read the bitcode of; clang-19 first.
find_program(LOOM_RUNTIME_CLANG NAMES clang-19 clang HINTS ${LLVM_TOOLS_BINARY_DIR})
find_program(LOOM_LLVM_LINK NAMES llvm-link llvm-link-19 HINTS ${LLVM_TOOLS_BINARY_DIR})

function(loom_embed input symbol)
  set(output ${LOOM_EMBED_DIR}/embedded_${symbol}.cpp)
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DINPUT=${input} -DOUTPUT=${output} -DSYMBOL=${symbol}
            -P ${CMAKE_SOURCE_DIR}/cmake/LoomEmbed.cmake
    DEPENDS ${input} ${CMAKE_SOURCE_DIR}/cmake/LoomEmbed.cmake
    COMMENT "Embedding ${symbol}"
    VERBATIM)
  target_sources(Loom PRIVATE ${output})
endfunction()

loom_embed(${CMAKE_SOURCE_DIR}/include/loom/runtime/loom_runtime.h runtime_header)

if(LOOM_RUNTIME_CLANG AND LOOM_LLVM_LINK)
  message(STATUS "AOT runtime bitcode: ${LOOM_RUNTIME_CLANG}, ${LOOM_LLVM_LINK}")
  # symbol suffix -> clang triple
  set(LOOM_RUNTIME_TRIPLES "x86_64=x86_64-unknown-linux-gnu" "aarch64=aarch64-unknown-linux-gnu"
                           "x86_32=i386-unknown-linux-gnu" "arm_32=armv7-unknown-linux-gnueabihf")
  foreach(entry ${LOOM_RUNTIME_TRIPLES})
    string(REPLACE "=" ";" parts ${entry})
    list(GET parts 0 arch)
    list(GET parts 1 triple)
    set(bitcode_files)
    foreach(source ${LOOM_RUNTIME_C_SOURCES})
      get_filename_component(stem ${source} NAME_WE)
      set(bc ${LOOM_EMBED_DIR}/${stem}.${arch}.bc)
      add_custom_command(
        OUTPUT ${bc}
        COMMAND ${LOOM_RUNTIME_CLANG} -target ${triple} -std=c11 -O2 -fPIC -ffreestanding -nostdlibinc
                -fno-stack-protector -DLOOM_RUNTIME_FREESTANDING
                -I${CMAKE_SOURCE_DIR}/include -I${CMAKE_SOURCE_DIR}/src -isystem ${LOOM_RUNTIME_VULKAN_INCLUDE}
                -emit-llvm -c ${source} -o ${bc}
        DEPENDS ${source} ${LOOM_RUNTIME_C_HEADERS}
        COMMENT "Compiling the AOT runtime ${stem}.c for ${triple}"
        VERBATIM)
      list(APPEND bitcode_files ${bc})
    endforeach()
    set(linked ${LOOM_EMBED_DIR}/loom_runtime.${arch}.bc)
    add_custom_command(
      OUTPUT ${linked}
      COMMAND ${LOOM_LLVM_LINK} ${bitcode_files} -o ${linked}
      DEPENDS ${bitcode_files}
      COMMENT "Linking the AOT runtime for ${triple}"
      VERBATIM)
    loom_embed(${linked} runtime_bitcode_${arch})
  endforeach()
  target_compile_definitions(Loom PRIVATE LOOM_HAVE_RUNTIME_BITCODE=1)
else()
  message(WARNING "clang or llvm-link not found: ahead-of-time static libraries will be unavailable "
                  "(install clang-19; see scripts/setup.sh).")
endif()
