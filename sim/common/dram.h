// The DRAM model shared by fsim and the tsim harness: one flat, zero-initialised byte array seen
// by the accelerator at physical addresses [base, base + size).
#ifndef LOOM_SIM_COMMON_DRAM_H_
#define LOOM_SIM_COMMON_DRAM_H_

#include <cstdint>
#include <vector>

#include "runtime/core/status.h"

namespace loom::sim {

class Dram {
 public:
  explicit Dram(uint64_t size_bytes, uint64_t base = 0) : base_(base), bytes_(size_bytes, 0) {}

  uint64_t base() const { return base_; }
  uint64_t size() const { return bytes_.size(); }
  bool Contains(uint64_t addr, uint64_t n) const {
    return addr >= base_ && n <= bytes_.size() && addr - base_ <= bytes_.size() - n;
  }

  // Checked copies; an address range outside DRAM is an OutOfRange error naming it.
  Status Read(uint64_t addr, void* dst, uint64_t n) const;
  Status Write(uint64_t addr, const void* src, uint64_t n);

  // Unchecked pointer for callers that checked Contains() first.
  uint8_t* At(uint64_t addr) { return bytes_.data() + (addr - base_); }
  const uint8_t* At(uint64_t addr) const { return bytes_.data() + (addr - base_); }

 private:
  uint64_t base_;
  std::vector<uint8_t> bytes_;
};

}  // namespace loom::sim

#endif  // LOOM_SIM_COMMON_DRAM_H_
