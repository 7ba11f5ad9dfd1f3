# Linux on the ZynqMP's Cortex-A53 (Ultra96-V2, ZCU104): Debian's g++-aarch64-linux-gnu.
# scripts/firmware aarch64 configures with this file; docs/firmware.md.
set(LOOM_CROSS_TRIPLE aarch64-linux-gnu)
set(LOOM_CROSS_PROCESSOR aarch64)
set(LOOM_CROSS_CPU_FLAGS "-mcpu=cortex-a53")
set(LOOM_CROSS_QEMU qemu-aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/linux_cross.cmake)
