// What the runtime needs from the platform it runs on beyond C++17: a monotonic clock and a way to
// let time pass. Declared here and defined once per platform, so that no runtime header pulls in
// <thread> or <chrono> and the same sources build for a hosted OS and for bare metal:
//
//   runtime/core/platform_hosted.cc      Linux and every hosted build (std::chrono, std::thread)
//   firmware/baremetal/platform_a9.cc    Zynq-7000 Cortex-A9 without an OS (the global timer)
//
// A build links exactly one of them; a second is a duplicate symbol, none an undefined one.
#ifndef LOOM_RUNTIME_CORE_PLATFORM_H_
#define LOOM_RUNTIME_CORE_PLATFORM_H_

#include <cstdint>

namespace loom {

// Nanoseconds from an arbitrary origin; never goes backwards. Used for timeouts and the profile's
// wall time, so a coarse clock only makes them coarser.
uint64_t MonotonicNanos();

// Lets at least `micros` microseconds pass (a sleep where there is a scheduler, a busy wait where
// there is none).
void PauseMicros(uint32_t micros);

}  // namespace loom

#endif  // LOOM_RUNTIME_CORE_PLATFORM_H_
