# Linux on the Zynq-7000's Cortex-A9 (Pynq-Z1): Debian's g++-arm-linux-gnueabihf, hard float, NEON.
# scripts/firmware armhf configures with this file; docs/firmware.md.
set(LOOM_CROSS_TRIPLE arm-linux-gnueabihf)
set(LOOM_CROSS_PROCESSOR arm)
# -Wno-psabi: GCC notes that passing some structs changed ABI in GCC 7.1; every object of a Loom
# image comes from one compiler, so the note (a warning, hence an error) does not apply.
# -D_FILE_OFFSET_BITS=64: 64-bit off_t and ino_t. Without it stat() and readdir() fail with
# EOVERFLOW on files over 2 GiB and on directories whose entries carry 64-bit offsets, as every
# directory does under QEMU user mode on a 64-bit host (the runtime's tests failed that way).
set(LOOM_CROSS_CPU_FLAGS
    "-mcpu=cortex-a9 -mfpu=neon -mfloat-abi=hard -Wno-psabi -D_FILE_OFFSET_BITS=64")
set(LOOM_CROSS_QEMU qemu-arm)
include(${CMAKE_CURRENT_LIST_DIR}/linux_cross.cmake)
