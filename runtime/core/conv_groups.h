// The channel rule of a grouped convolution, shared by the int8 kernels (qops.h Conv2dParams), the
// package loader's checks, the fast kernels and the partitioner, which must agree on it: `groups`
// groups of gc input channels over c input and o output channels. Header-only, C++17.
#ifndef LOOM_RUNTIME_CORE_CONV_GROUPS_H_
#define LOOM_RUNTIME_CORE_CONV_GROUPS_H_

#include <cstdint>

namespace loom {

// Output channels per group, gc * o / c; 0 where that is not whole (or c is 0).
constexpr uint64_t GroupOutChannels(uint64_t c, uint64_t o, uint64_t gc) {
  return c != 0 && gc * o % c == 0 ? gc * o / c : 0;
}

// Whether the groups cover the channels: one group of all c inputs, or groups of gc input and
// GroupOutChannels output channels of which only the last may be short.
constexpr bool GroupsCover(uint64_t groups, uint64_t c, uint64_t o, uint64_t gc) {
  if (groups == 0) return false;
  if (groups == 1) return gc == c;
  const uint64_t go = GroupOutChannels(c, o, gc);
  return gc != 0 && go != 0 && (groups - 1) * gc < c && c <= groups * gc && (groups - 1) * go < o &&
         o <= groups * go;
}

// Whether covering groups (groups > 1) are also whole channel blocks of `block`, in and out, and
// end within the last block (a short last group then reads the input's padding lanes): what lets
// the fast kernels and the accelerator run each group as a groups == 1 convolution on its own
// contiguous blocks.
constexpr bool GroupsOfWholeBlocks(uint64_t groups, uint64_t c, uint64_t o, uint64_t gc,
                                   uint64_t block) {
  if (groups <= 1 || block == 0 || !GroupsCover(groups, c, o, gc)) return false;
  const uint64_t go = GroupOutChannels(c, o, gc);
  const auto whole = [block](uint64_t n) { return (n / block + (n % block != 0)) * block; };
  return gc % block == 0 && go % block == 0 && groups * gc <= whole(c) && groups * go <= whole(o);
}

}  // namespace loom

#endif  // LOOM_RUNTIME_CORE_CONV_GROUPS_H_
