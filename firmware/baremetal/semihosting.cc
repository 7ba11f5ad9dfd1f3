#include "firmware/baremetal/semihosting.h"

#include <cstdint>

namespace loom::baremetal {
namespace {

constexpr int kSysExitExtended = 0x20;
constexpr uint32_t kAdpStoppedApplicationExit = 0x20026;

int Call(int op, const void* arg) {
  register int r0 __asm__("r0") = op;
  register const void* r1 __asm__("r1") = arg;
#if defined(__thumb__)
  __asm__ volatile("svc 0xab" : "+r"(r0) : "r"(r1) : "memory");
#else
  __asm__ volatile("svc 0x123456" : "+r"(r0) : "r"(r1) : "memory");
#endif
  return r0;
}

}  // namespace

void SemihostingExit(int status) {
  // SYS_EXIT proper carries no status on 32-bit ARM; the extended call (semihosting 2.0) does.
  const uint32_t block[2] = {kAdpStoppedApplicationExit, static_cast<uint32_t>(status)};
  (void)Call(kSysExitExtended, block);
}

}  // namespace loom::baremetal
