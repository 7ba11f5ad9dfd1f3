# What the Linux cross toolchains share (armhf.cmake and aarch64.cmake set the LOOM_CROSS_*
# variables first). Debian's cross compilers carry their own sysroot under /usr/TRIPLE, so nothing
# of the host's /usr/include or /usr/lib can leak into a board binary; the few header-only
# libraries the runtime's tools use are staged by firmware/cmake/LoomRuntimeOnly.cmake.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ${LOOM_CROSS_PROCESSOR})
set(CMAKE_C_COMPILER ${LOOM_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${LOOM_CROSS_TRIPLE}-g++)
set(CMAKE_C_FLAGS_INIT "${LOOM_CROSS_CPU_FLAGS}")
set(CMAKE_CXX_FLAGS_INIT "${LOOM_CROSS_CPU_FLAGS}")
# Static executables: a board's root file system needs no matching libstdc++, and QEMU user mode
# runs them without a sysroot (-L).
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")

set(CMAKE_FIND_ROOT_PATH /usr/${LOOM_CROSS_TRIPLE})
# Programs (flatc) are the host's; libraries, headers and packages only the target's.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# ctest and gtest_discover_tests run the target's binaries through QEMU user mode.
find_program(LOOM_CROSS_EMULATOR ${LOOM_CROSS_QEMU} NO_CMAKE_FIND_ROOT_PATH)
if(LOOM_CROSS_EMULATOR)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${LOOM_CROSS_EMULATOR})
endif()
