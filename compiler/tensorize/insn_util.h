// Small instruction builders the element-wise emitters (add, pools, mul, concat) share.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "runtime/core/hw_config.h"
#include "runtime/core/isa.h"

namespace loom::tensorize {

// The largest trip count of a GEMM/ALU loop field.
inline constexpr uint32_t kMaxLoop = (1u << isa::Layout::kLoopBits) - 1;

// The fewest vectors per output plane for which a fused REQUANT runs as its GEMM's epilogue
// (docs/isa.md §3.4.2) rather than as a pass of one cycle per vector: the epilogue costs two more
// instructions (the arming REQUANT and a GEMM of its own, about 10 cycles on fsim's model).
inline constexpr uint32_t kEpilogueMinVectors = 10;

// A 1-D DMA of `n` consecutive elements between `dram` and buffer index `sram`; n == 0 gives the
// zero-size form the barriers use.
inline isa::Insn LinearDma(isa::Opcode op, isa::Buffer buffer, uint32_t sram, uint32_t dram,
                           uint32_t n) {
  isa::Insn i;
  i.opcode = op;
  i.buffer = buffer;
  i.sram_base = sram;
  i.dram_base = dram;
  i.y_size = n ? 1 : 0;
  i.x_size = n;
  i.x_stride = n;
  return i;
}

// A 2-D DMA: `y` rows of `x` elements, `stride` elements apart in DRAM, to or from consecutive
// buffer indices from `sram`. Callers keep `dram` below 2^32 (the lowering places tensors so).
inline isa::Insn Dma(isa::Opcode op, isa::Buffer buffer, uint32_t sram, uint64_t dram, uint32_t y,
                     uint32_t x, uint32_t stride) {
  isa::Insn i;
  i.opcode = op;
  i.buffer = buffer;
  i.sram_base = sram;
  i.dram_base = static_cast<uint32_t>(dram);
  i.y_size = y;
  i.x_size = x;
  i.x_stride = stride;
  return i;
}

// Immediates of ADD passes whose wrapping sum is `v` (int32 arithmetic, as the ALU's ADD): one
// when v fits the 16-bit immediate, else as few as its magnitude needs (none for 0).
inline std::vector<int32_t> AddImmediates(int64_t v) {
  constexpr int64_t kHi = (int64_t{1} << (isa::Layout::kImmBits - 1)) - 1, kLo = -kHi - 1;
  std::vector<int32_t> imms;
  while (v != 0) {
    const int64_t step = v > kHi ? kHi : (v < kLo ? kLo : v);
    imms.push_back(static_cast<int32_t>(step));
    v -= step;
  }
  return imms;
}

// Whether a blocked activation of n images and c channels has lanes past c or batch rows past n:
// qops.h keeps those at 0, so an emitter that adds an offset to every lane cannot run on it.
inline bool HasPaddingLanes(uint32_t batch, uint32_t block, uint32_t n, uint32_t c) {
  return c % block != 0 || n % batch != 0;
}

// What is wrong with a layer's zero-point offsets (`in_name` names the input's: a_offset or
// x_offset), or "" when nothing is: both within [-255, 255] (qops.h), and none on a layer with
// padding lanes (above).
inline std::string OffsetsProblem(const HwConfig& config, const char* in_name, int32_t in_offset,
                                  int32_t out_offset, bool padding_lanes) {
  const std::string offsets = std::string(in_name) + " " + std::to_string(in_offset) +
                              ", out_offset " + std::to_string(out_offset);
  if (in_offset < -255 || in_offset > 255 || out_offset < -255 || out_offset > 255) {
    return "zero-point offsets " + offsets + " outside [-255, 255]";
  }
  if (padding_lanes && (in_offset != 0 || out_offset != 0)) {
    return "zero-point offsets (" + offsets + ") need C a multiple of " +
           std::to_string(config.block_in) + " and N of " + std::to_string(config.batch) +
           ": the offsets would make the padding lanes non-zero";
  }
  return "";
}

// What a clearing REQUANT (isa.md §3.4.1) has left zero in each virtual thread's ACC region: the
// first `planes` planes, `elems` elements from each plane's start. Every emitter whose REQUANT is
// its tile's last reader of the accumulators asks Covers before a tile: a tile inside needs no
// reset pass. A tile that does reset (and then clears what it used) calls Cleared with its extent.
// Tiles write nothing outside their extent, so what is known zero stays zero across a covered tile.
class ZeroedAcc {
 public:
  explicit ZeroedAcc(uint32_t regions) : known_(regions, {0, 0}) {}
  bool Covers(uint32_t region, uint32_t planes, uint32_t elems) const {
    return planes <= known_[region].first && elems <= known_[region].second;
  }
  void Cleared(uint32_t region, uint32_t planes, uint32_t elems) {
    known_[region] = {planes, elems};
  }

 private:
  std::vector<std::pair<uint32_t, uint32_t>> known_;
};

}  // namespace loom::tensorize
