# Linux on the Zynq-7000's Cortex-A9 (Pynq-Z1): Debian's g++-arm-linux-gnueabihf, hard float, NEON.
# scripts/firmware armhf configures with this file; docs/firmware.md.
set(LOOM_CROSS_TRIPLE arm-linux-gnueabihf)
set(LOOM_CROSS_PROCESSOR arm)
# -Wno-psabi: GCC notes that passing some structs changed ABI in GCC 7.1; every object of a Loom
# image comes from one compiler, so the note (a warning, hence an error) does not apply.
set(LOOM_CROSS_CPU_FLAGS "-mcpu=cortex-a9 -mfpu=neon -mfloat-abi=hard -Wno-psabi")
set(LOOM_CROSS_QEMU qemu-arm)
include(${CMAKE_CURRENT_LIST_DIR}/linux_cross.cmake)
