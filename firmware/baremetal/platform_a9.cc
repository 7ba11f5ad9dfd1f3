// The runtime's platform functions (runtime/core/platform.h) on a Cortex-A9 without an OS: the
// MPCore global timer, a 64-bit counter every core shares, clocked at CPU_3x2x (half the CPU
// clock: 333 MHz on a Pynq-Z1). LOOM_A9_TIMER_HZ gives the rate; under QEMU the model counts at
// its own rate, so times there are only roughly right (nothing depends on them but timeouts and
// the profile).
#include <cstdint>

#include "runtime/core/platform.h"

#ifndef LOOM_A9_TIMER_HZ
#define LOOM_A9_TIMER_HZ 333333333u
#endif

namespace loom {
namespace {

constexpr uintptr_t kGlobalTimer = 0xF8F00200;  // SCU base 0xF8F00000 + 0x200
constexpr uint32_t kCounterLo = 0x00, kCounterHi = 0x04, kControl = 0x08;
constexpr uint32_t kControlEnable = 1u << 0;

volatile uint32_t& Reg(uint32_t offset) {
  return *reinterpret_cast<volatile uint32_t*>(kGlobalTimer + offset);
}

uint64_t Ticks() {
  if (!(Reg(kControl) & kControlEnable)) Reg(kControl) = kControlEnable;  // prescaler 0
  // The two halves are read separately: read high, low, high until the high half held still.
  uint32_t hi = Reg(kCounterHi), lo = 0, again = 0;
  for (;;) {
    lo = Reg(kCounterLo);
    again = Reg(kCounterHi);
    if (again == hi) break;
    hi = again;
  }
  return uint64_t{hi} << 32 | lo;
}

}  // namespace

uint64_t MonotonicNanos() {
  const uint64_t t = Ticks();
  // Split so that t * 1e9 cannot overflow: whole seconds and the remainder.
  const uint64_t hz = LOOM_A9_TIMER_HZ;
  return t / hz * 1000000000u + t % hz * 1000000000u / hz;
}

void PauseMicros(uint32_t micros) {
  const uint64_t end = MonotonicNanos() + uint64_t{micros} * 1000u;
  while (MonotonicNanos() < end) {
  }
}

}  // namespace loom
