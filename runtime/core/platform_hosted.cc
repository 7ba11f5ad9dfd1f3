// The platform functions of platform.h on a hosted OS: the steady clock and a thread sleep.
#include <chrono>
#include <thread>

#include "runtime/core/platform.h"

namespace loom {

uint64_t MonotonicNanos() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

void PauseMicros(uint32_t micros) {
  std::this_thread::sleep_for(std::chrono::microseconds(micros));
}

}  // namespace loom
