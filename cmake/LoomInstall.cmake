# Installation of libLoom: the library, the public headers under include/loom,
# a CMake package (find_package(Loom CONFIG) gives Loom::Loom,
# Loom::generator_main, Loom::Runtime and the functions of
# LoomGenerators.cmake) and a
# pkg-config file (loom.pc). Included from the top-level CMakeLists.txt after
# the Loom target exists.
#
# LLVM is linked privately into the shared libLoom, so consumers need neither
# LLVM headers nor LLVM's CMake package: the package config asks only for
# Threads.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(LOOM_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/Loom"
    CACHE STRING "Where LoomConfig.cmake is installed, relative to the prefix")

# Consumers compile the public headers as C++17 or newer.
target_compile_features(Loom INTERFACE cxx_std_17)

# The installed library must still find libLLVM when it is outside the
# system's default search path.
set_target_properties(Loom PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)

set(LOOM_INSTALLED_RUNGEN "")
if(TARGET loom_rungen)  # Loom::rungen, when libpng was found
  set(LOOM_INSTALLED_RUNGEN loom_rungen)
endif()
install(TARGETS Loom loom_generator_main loom_runtime_headers ${LOOM_INSTALLED_RUNGEN}
  EXPORT LoomTargets
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")

install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/loom"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")

install(EXPORT LoomTargets
  NAMESPACE Loom::
  FILE LoomTargets.cmake
  DESTINATION "${LOOM_INSTALL_CMAKEDIR}")

configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/LoomConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/LoomConfig.cmake"
  INSTALL_DESTINATION "${LOOM_INSTALL_CMAKEDIR}")

# 0.x releases may change the API between minor versions.
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/LoomConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY SameMinorVersion)

install(FILES
  "${PROJECT_BINARY_DIR}/LoomConfig.cmake"
  "${PROJECT_BINARY_DIR}/LoomConfigVersion.cmake"
  "${CMAKE_CURRENT_LIST_DIR}/LoomGenerators.cmake"
  DESTINATION "${LOOM_INSTALL_CMAKEDIR}")

# loom.pc links libLoom with --no-as-needed so that the library may come
# before the sources on the command line (`g++ $(pkg-config --libs loom) a.cpp`)
# even where the toolchain passes --as-needed by default.
#
# loom.pc is written at install time so that it names the prefix actually
# installed to (`cmake --install build --prefix DIR` included).
foreach(kind LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${kind}}")
    set(LOOM_PC_${kind} "${CMAKE_INSTALL_${kind}}")
  else()
    # Escaped twice: once for this file, once for the install script below.
    set(LOOM_PC_${kind} "\\\${prefix}/${CMAKE_INSTALL_${kind}}")
  endif()
endforeach()
install(CODE "
  set(LOOM_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  set(LOOM_PC_LIBDIR \"${LOOM_PC_LIBDIR}\")
  set(LOOM_PC_INCLUDEDIR \"${LOOM_PC_INCLUDEDIR}\")
  set(LOOM_PC_VERSION \"${PROJECT_VERSION}\")
  configure_file(\"${CMAKE_CURRENT_LIST_DIR}/loom.pc.in\" \"${PROJECT_BINARY_DIR}/loom.pc\" @ONLY)
")
install(FILES "${PROJECT_BINARY_DIR}/loom.pc"
  DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
