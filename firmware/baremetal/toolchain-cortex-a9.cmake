# Zynq-7000's Cortex-A9 without an OS: Debian's gcc-arm-none-eabi with newlib and libstdc++ for
# newlib. -mthumb selects the thumb/v7-a+simd/hard multilib Debian ships for this CPU (ARMv7-A,
# NEON, hard float); Thumb-2 code is also the smaller. Startup code switches to ARM where the
# exception vectors need it.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
# No OS to run a test executable on while CMake probes the compiler.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(LOOM_A9_FLAGS "-mcpu=cortex-a9 -mfpu=neon -mfloat-abi=hard -mthumb")
# -mno-unaligned-access: code that runs before the MMU is on (where every access is strongly
# ordered and an unaligned one faults) must not make one. -ffp-contract=off: no fused multiply-adds, so float results are the
# host's bit for bit.
set(CMAKE_C_FLAGS_INIT "${LOOM_A9_FLAGS} -mno-unaligned-access -ffp-contract=off -ffunction-sections -fdata-sections")
set(CMAKE_CXX_FLAGS_INIT "${CMAKE_C_FLAGS_INIT} -fno-exceptions -fno-rtti -fno-threadsafe-statics")
set(CMAKE_ASM_FLAGS_INIT "${LOOM_A9_FLAGS}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${LOOM_A9_FLAGS} -nostartfiles -Wl,--gc-sections")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
