// The accelerator's requantization (qops.h: SHR_RND, MUL, SHR_RND, clip) on four int32 lanes, for
// the NEON tables and row kernels. Internal to fast/; include only where __ARM_NEON is defined.
#ifndef LOOM_RUNTIME_KERNELS_INT8_FAST_NEON_REQUANT_H_
#define LOOM_RUNTIME_KERNELS_INT8_FAST_NEON_REQUANT_H_

#include <arm_neon.h>

#include <cstdint>
#include <cstring>

#include "runtime/kernels/int8/qops.h"

namespace loom::kernels::q::fast {

// Forced: the row kernels call these on accumulators held in registers, and -Os (the bare-metal
// build) would otherwise make them calls, spilling the accumulators around each.
#define LOOM_NEON_INLINE inline __attribute__((always_inline))
// Before a loop over a few vectors (a compile-time trip count): fully unrolled, an array of them
// is registers. GCC 12 otherwise keeps such loops rolled and the array on the stack, one load and
// one store per use (as rows_body.h's LOOM_UNROLL does for the row kernels).
#define LOOM_NEON_UNROLL _Pragma("GCC unroll 8")

// ShrRnd in one instruction: SRSHL by -n adds 2^(n-1) and shifts right with the sum held at full
// precision (a + 2^(n-1) cannot overflow, unlike in int32), and for n < 0 it shifts left keeping
// the low 32 bits, ShrRnd's wrapping shift. Both for every n in [-31, 31], which Requant checks.
LOOM_NEON_INLINE int32x4_t ShrRndNeon(int32x4_t a, int32_t n) {
  return vrshlq_s32(a, vdupq_n_s32(-n));
}

// Requantize of four accumulators up to the clip, as int32 in [clip_lo, clip_hi] (bounds broadcast
// in lo and hi). MUL keeps the low 32 bits of the product, which is what vmulq_s32 computes;
// `offset` (Mul's and AvgPool's output zero point, broadcast) is added wrapping after the last
// shift, as in Requantize, and vaddq_s32 wraps.
LOOM_NEON_INLINE int32x4_t RequantClipNeon(int32x4_t a, int32x4_t mult, const Requant& rq,
                                           int32x4_t offset, int32x4_t lo, int32x4_t hi) {
  a = vmulq_s32(ShrRndNeon(a, rq.pre_shift), mult);
  a = vaddq_s32(ShrRndNeon(a, rq.post_shift), offset);
  return vminq_s32(vmaxq_s32(a, lo), hi);
}

// RequantClipNeon without an offset (a convolution's is in its bias).
LOOM_NEON_INLINE int32x4_t RequantNeon(int32x4_t a, int32x4_t mult, const Requant& rq, int32x4_t lo,
                                       int32x4_t hi) {
  return RequantClipNeon(a, mult, rq, vdupq_n_s32(0), lo, hi);  // the add of 0 folds away
}

// Stores the 4 * kV clipped lanes of v as int8 (exact: the clip bounds lie in [-128, 127]).
template <uint32_t kV>
LOOM_NEON_INLINE void StoreClipped(const int32x4_t* v, int8_t* out) {
  static_assert(kV == 1 || kV == 2 || kV == 4, "4, 8 or 16 lanes");
  if constexpr (kV == 1) {
    const int16x4_t n = vmovn_s32(v[0]);
    const int32_t b = vget_lane_s32(vreinterpret_s32_s8(vmovn_s16(vcombine_s16(n, n))), 0);
    std::memcpy(out, &b, 4);
  } else if constexpr (kV == 2) {
    vst1_s8(out, vmovn_s16(vcombine_s16(vmovn_s32(v[0]), vmovn_s32(v[1]))));
  } else {
    const int8x8_t lo = vmovn_s16(vcombine_s16(vmovn_s32(v[0]), vmovn_s32(v[1])));
    const int8x8_t hi = vmovn_s16(vcombine_s16(vmovn_s32(v[2]), vmovn_s32(v[3])));
    vst1q_s8(out, vcombine_s8(lo, hi));
  }
}

}  // namespace loom::kernels::q::fast

#endif  // LOOM_RUNTIME_KERNELS_INT8_FAST_NEON_REQUANT_H_
