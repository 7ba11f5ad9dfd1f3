// Integer requantization parameters (docs/quantization.md, "Arithmetic"): how a real multiplier
// becomes (pre_shift, int32 mult, post_shift) for runtime/kernels/int8/qops.h's Requantize, and
// how rescaling multipliers for q.add / q.concat are chosen. Pure functions, no graph.
#ifndef LOOM_COMPILER_QUANTIZE_REQUANT_H_
#define LOOM_COMPILER_QUANTIZE_REQUANT_H_

#include <cstdint>
#include <vector>

#include "runtime/core/status.h"

namespace loom::quantize {

// Significant bits targeted for the largest multiplier of a layer: mult in [2^14, 2^15].
constexpr int kMultBits = 15;

struct ChannelRequant {
  int32_t pre_shift = 0;
  int32_t post_shift = 0;
  std::vector<int32_t> mult;  // one per channel (or per divisor for average pooling)
};

// `real[o]` >= 0 are the real multipliers (s_x * s_w[o] / s_y); `acc_bound` bounds |acc| for
// every accumulator the layer can produce. Chooses the smallest pre_shift with
// (ceil(acc_bound / 2^pre) + 1) * 2^15 < 2^31, so ShrRnd(acc, pre) * mult never wraps; then one
// total shift T for the layer so the largest multiplier has kMultBits bits, post = T - pre, and
// mult[o] = round(real[o] * 2^T). post_shift is clamped to [0, 31] (precision is then lost only
// on layers whose multipliers are far outside the usual range; the clamp keeps the product bound).
Status ChooseChannelRequant(const std::vector<double>& real, int64_t acc_bound,
                            ChannelRequant* out);

// mult / 2^shift ~= real, with |mult| <= limit and shift in [0, 31], mult using up to kMultBits
// bits. Used by q.add (limit 32767, one shift for both operands: pass both ratios) and q.concat.
struct Rescale {
  std::vector<int32_t> mult;
  int32_t shift = 0;
};
Status ChooseRescale(const std::vector<double>& real, int64_t limit, Rescale* out);

// round(v) saturated to int32 (bias quantization).
int32_t SaturatingRound32(double v, bool* saturated);

}  // namespace loom::quantize

#endif  // LOOM_COMPILER_QUANTIZE_REQUANT_H_
