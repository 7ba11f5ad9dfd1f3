# The runtime-only build (LOOM_RUNTIME_ONLY, the default when cross-compiling): what a board runs
# and the tests that prove it, nothing else. The top-level CMakeLists.txt includes this file in
# place of the whole-SDK build. It builds
#   loom_runtime (core, kernels, package loader, executor, drivers cpu/null/zynq, the C API),
#   loom-run-board, the C API example (runtime_api_example_board), and the runtime's unit tests
#   with the fuzz-corpus replays of its parsers;
# and, only because the tests build packages, the package writer and tensorizer (which need the
# functional simulator and the config reader) as test fixtures, built when a test links them.
# No compiler front end, no simulators as devices, no Verilator, no Python, no XRT.

if(LOOM_DRIVER_XRT)
  message(FATAL_ERROR "LOOM_RUNTIME_ONLY=ON builds no XRT driver; configure with -DLOOM_DRIVER_XRT=OFF")
endif()
set(LOOM_DRIVER_XRT OFF)
set(LOOM_HAVE_TSIM_DRIVER OFF)

# The header-only libraries the runtime and its tools use (flatbuffers, nlohmann, CLI11) come
# from the host's /usr/include, copied into a private folder of the build that holds only them:
# putting all of /usr/include on a cross compiler's path would mix the host's glibc and libstdc++
# headers into board code. The copy is refreshed on every configure (file(COPY) skips what is
# already up to date).
set(LOOM_HOST_INCLUDE_DIR /usr/include CACHE PATH
    "Where the host's flatbuffers/, nlohmann/ and CLI/ headers are (runtime-only builds)")
set(loom_staged ${CMAKE_BINARY_DIR}/host-headers)
foreach(h flatbuffers:libflatbuffers-dev nlohmann:nlohmann-json3-dev CLI:libcli11-dev)
  string(REPLACE ":" ";" h "${h}")
  list(GET h 0 dir)
  list(GET h 1 pkg)
  if(NOT IS_DIRECTORY ${LOOM_HOST_INCLUDE_DIR}/${dir})
    message(FATAL_ERROR "runtime-only build: ${LOOM_HOST_INCLUDE_DIR}/${dir} not found; "
                        "apt-get install ${pkg} (or set LOOM_HOST_INCLUDE_DIR)")
  endif()
  file(COPY ${LOOM_HOST_INCLUDE_DIR}/${dir} DESTINATION ${loom_staged})
endforeach()
add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
add_library(CLI11::CLI11 INTERFACE IMPORTED)
# Imported include directories are SYSTEM: third-party warnings stay out of -Werror.
set_target_properties(nlohmann_json::nlohmann_json CLI11::CLI11 PROPERTIES
                      INTERFACE_INCLUDE_DIRECTORIES ${loom_staged})
# runtime/schema: flatc is the host's (the generated header is target-independent), the headers
# the staged copy of the same version.
set(LOOM_FLATBUFFERS_INCLUDE ${loom_staged} CACHE PATH "flatbuffers headers (staged)" FORCE)

list(APPEND CMAKE_MODULE_PATH ${CMAKE_SOURCE_DIR}/cmake)
include(LoomTesting)
enable_testing()

if(LOOM_BUILD_TESTS)
  # GoogleTest compiled for the target from Debian's sources (libgtest-dev ships them), since the
  # host's libgtest.a is x86 code.
  set(LOOM_GOOGLETEST_SOURCE_DIR /usr/src/googletest CACHE PATH "GoogleTest sources")
  if(NOT EXISTS ${LOOM_GOOGLETEST_SOURCE_DIR}/CMakeLists.txt)
    message(FATAL_ERROR "runtime-only build: GoogleTest sources not found in "
                        "${LOOM_GOOGLETEST_SOURCE_DIR}; apt-get install googletest")
  endif()
  if(CMAKE_CROSSCOMPILING AND NOT CMAKE_CROSSCOMPILING_EMULATOR)
    message(FATAL_ERROR "cross-compiled tests run under QEMU user mode, and none was found "
                        "(apt-get install qemu-user), or configure with -DLOOM_BUILD_TESTS=OFF")
  endif()
  set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
  add_subdirectory(${LOOM_GOOGLETEST_SOURCE_DIR} ${CMAKE_BINARY_DIR}/googletest EXCLUDE_FROM_ALL)
  include(GoogleTest)
endif()

add_subdirectory(runtime)
add_subdirectory(runtime/drivers)
# The remote device (`loom-run serve` on a board) where the tree has it, as the full build adds it.
if(CMAKE_SYSTEM_NAME STREQUAL "Linux" AND EXISTS ${CMAKE_SOURCE_DIR}/runtime/remote/CMakeLists.txt)
  add_subdirectory(runtime/remote)
endif()
add_subdirectory(runtime/api)
add_subdirectory(runtime/tools)
add_subdirectory(examples/runtime_api)

if(LOOM_BUILD_TESTS)
  # Test fixtures only (they write packages): built when a test links them, never installed.
  add_subdirectory(sim/common EXCLUDE_FROM_ALL)
  add_subdirectory(sim/fsim EXCLUDE_FROM_ALL)
  add_subdirectory(compiler/tensorize EXCLUDE_FROM_ALL)
  add_subdirectory(compiler/package EXCLUDE_FROM_ALL)
  # The test folders whose suites need only the runtime (and the fixtures above).
  foreach(area core io protocol zynq runtime)
    add_subdirectory(tests/${area})
  endforeach()
endif()

loom_check_runtime_layering(loom_runtime)
