#include "compiler/quantize/requant.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace loom::quantize {

int32_t SaturatingRound32(double v, bool* saturated) {
  const double r = std::nearbyint(v);
  *saturated = false;
  if (!(r >= std::numeric_limits<int32_t>::min())) {  // also NaN
    *saturated = true;
    return std::isnan(r) ? 0 : std::numeric_limits<int32_t>::min();
  }
  if (r > std::numeric_limits<int32_t>::max()) {
    *saturated = true;
    return std::numeric_limits<int32_t>::max();
  }
  return static_cast<int32_t>(r);
}

Status ChooseChannelRequant(const std::vector<double>& real, int64_t acc_bound,
                            ChannelRequant* out) {
  if (acc_bound < 0) return InvalidArgument("negative accumulator bound");
  if (acc_bound > std::numeric_limits<int32_t>::max()) {
    return InvalidArgument("accumulators can reach " + std::to_string(acc_bound) +
                           ", beyond int32: the layer is too large for int8 with int32 "
                           "accumulation");
  }
  double max_real = 0.0;
  for (double r : real) {
    if (!(r >= 0.0) || !std::isfinite(r)) {
      return InvalidArgument("real multiplier " + std::to_string(r) + " is not finite and >= 0");
    }
    max_real = std::max(max_real, r);
  }
  // Smallest pre-shift keeping |ShrRnd(acc, pre)| + 1 below 2^16 (so that times 2^15 < 2^31).
  int32_t pre = 0;
  while (pre < 31 && ((acc_bound + (int64_t{1} << pre) - 1) >> pre) + 1 >= (int64_t{1} << 16)) ++pre;
  const int64_t a_max = ((acc_bound + (int64_t{1} << pre) - 1) >> pre) + 1;
  const int64_t mult_limit = std::numeric_limits<int32_t>::max() / a_max;

  int32_t post = 0;
  if (max_real > 0.0) {
    const int e = static_cast<int>(std::floor(std::log2(max_real)));
    const int total = (kMultBits - 1) - e;  // max_real * 2^total in [2^14, 2^15)
    post = std::clamp(total - pre, 0, 31);
  }
  out->pre_shift = pre;
  out->post_shift = post;
  out->mult.clear();
  for (double r : real) {
    const double m = std::nearbyint(std::ldexp(r, pre + post));
    out->mult.push_back(static_cast<int32_t>(std::min<double>(m, static_cast<double>(mult_limit))));
  }
  return Status::Ok();
}

Status ChooseRescale(const std::vector<double>& real, int64_t limit, Rescale* out) {
  double max_abs = 0.0;
  for (double r : real) {
    if (!std::isfinite(r)) return InvalidArgument("rescale factor is not finite");
    max_abs = std::max(max_abs, std::fabs(r));
  }
  int32_t shift = 0;
  if (max_abs > 0.0) {
    const int e = static_cast<int>(std::floor(std::log2(max_abs)));
    shift = std::clamp((kMultBits - 1) - e, 0, 31);
  }
  // An exact power of two needs no more bits than it has: 1.0 stays mult 1, shift 0 (a copy).
  bool all_pow2 = max_abs > 0.0;
  int32_t min_shift = 0;
  for (double r : real) {
    if (r == 0.0) continue;
    int exp = 0;
    const double frac = std::frexp(std::fabs(r), &exp);  // |r| = frac * 2^exp, frac in [0.5, 1)
    if (frac != 0.5) all_pow2 = false;
    min_shift = std::max(min_shift, 1 - exp);
  }
  if (all_pow2 && min_shift <= 31) shift = min_shift;
  out->shift = shift;
  out->mult.clear();
  for (double r : real) {
    const double m = std::nearbyint(std::ldexp(r, shift));
    out->mult.push_back(static_cast<int32_t>(
        std::clamp(m, -static_cast<double>(limit) - 1, static_cast<double>(limit))));
  }
  return Status::Ok();
}

}  // namespace loom::quantize
