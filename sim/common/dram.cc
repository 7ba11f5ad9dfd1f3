#include "sim/common/dram.h"

#include <cstdio>
#include <cstring>

namespace loom::sim {

namespace {
Status RangeError(const char* what, uint64_t addr, uint64_t n, uint64_t base, uint64_t size) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "DRAM %s of %llu bytes at 0x%llx is outside [0x%llx, 0x%llx)",
                what, static_cast<unsigned long long>(n), static_cast<unsigned long long>(addr),
                static_cast<unsigned long long>(base),
                static_cast<unsigned long long>(base + size));
  return OutOfRange(buf);
}
}  // namespace

Status Dram::Read(uint64_t addr, void* dst, uint64_t n) const {
  if (!Contains(addr, n)) return RangeError("read", addr, n, base_, size());
  if (n) std::memcpy(dst, At(addr), n);
  return Status::Ok();
}

Status Dram::Write(uint64_t addr, const void* src, uint64_t n) {
  if (!Contains(addr, n)) return RangeError("write", addr, n, base_, size());
  if (n) std::memcpy(At(addr), src, n);
  return Status::Ok();
}

}  // namespace loom::sim
