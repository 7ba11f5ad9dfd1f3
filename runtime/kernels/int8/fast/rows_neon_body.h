// The NEON smlal row kernels (rows.h) as templates, for armv7 and aarch64: rows_neon.cc makes them
// fast::Conv2d's tables (with the sdot kernels, which need a run-time check of the CPU), and
// abi/kernel_abi.cc compiles them to bitcode for native code (docs/cpu.md "Native code").
// Freestanding: no Status, no allocation.
//
// P output positions
// x a W-channel slice of the output block held in q registers across the whole reduction (every
// input-channel block x every tap), then requantized in registers (neon_requant.h) and stored as
// int8. A block wider than W runs its slices one after the other, each over the whole reduction:
// the input is re-read per slice, but that is one 8-byte load per position per input quad, while
// the accumulators stay within the register file (16 q registers on armv7, 32 on aarch64).
//
// neon reads the NEON tiles (tiles_neon.cc: int16 [i][o]) and a padded copy sign-extended to int16
// once per call: per input quad each position loads four int16 lanes, and smlal (smlal2 on
// aarch64) multiplies one input channel's weights by one lane, widened into int32 exactly (no
// saturating or doubling step). neondot reads the sdot tiles (int8 [i / 4][o][4]) and the int8 copy
// as stored: signed x signed, so no offset; each position's quad is one broadcast. Both wrap in
// int32 like the accelerator's ACC, so the result is the reference's int32 in any order.
#ifndef LOOM_RUNTIME_KERNELS_INT8_FAST_ROWS_NEON_BODY_H_
#define LOOM_RUNTIME_KERNELS_INT8_FAST_ROWS_NEON_BODY_H_

#include <cstdint>
#include <cstring>

#include "runtime/kernels/int8/fast/rows_body.h"

#if defined(__ARM_NEON)
#include <arm_neon.h>

#include "runtime/kernels/int8/fast/neon_requant.h"

namespace loom::kernels::q::fast::neon {

#define LOOM_INLINE inline __attribute__((always_inline))
// Each position count is its own function, so its registers are allocated for its loop alone.
#define LOOM_NOINLINE __attribute__((noinline))

// Positions per call by slice width, so that P x W / 4 accumulators, one input channel's weights
// and the P input quads fit the register file without spilling (checked with objdump, docs/cpu.md).
#if defined(__aarch64__)
inline constexpr uint32_t kWide = 16;  // the slice of blocks % 16 == 0
template <uint32_t kW>
inline constexpr uint32_t kSmlalPos = kW == 16 ? 5 : 8;  // 20 + 2 + 5 registers of 32
template <uint32_t kW>
inline constexpr uint32_t kDotPos = kW == 16 ? 5 : 8;  // 20 + 4 + 5 (6 positions spilled)
#else
inline constexpr uint32_t kWide =
    8;  // 16 q registers: 16-channel slices would leave room for 2 positions
template <uint32_t kW>
inline constexpr uint32_t kSmlalPos = kW == 8 ? 5 : 8;  // 10 + 1 + 2.5 registers of 16
#endif

// What every row kernel call shares, whatever its number of positions.
struct Args {
  const uint8_t* weights;  // packed tiles (rows) or the stored [kh][kw][c] weights (depthwise)
  uint32_t c;              // the block
  const int32_t* bias;
  const int32_t* mult;
  const Requant* rq;
};

template <uint32_t kP, uint32_t kV>
LOOM_INLINE void InitAcc(int32x4_t (&a)[kP][kV], const int32_t* bias) {
  LOOM_UNROLL
  for (uint32_t v = 0; v < kV; ++v) {
    const int32x4_t b = vld1q_s32(bias + 4 * v);
    LOOM_UNROLL
    for (uint32_t p = 0; p < kP; ++p) a[p][v] = b;
  }
}

template <uint32_t kP, uint32_t kV>
LOOM_INLINE void Epilogue(int32x4_t (&a)[kP][kV], const int32_t* mult, const Requant& rq,
                          uint32_t c, int8_t* out) {
  const int32x4_t lo = vdupq_n_s32(rq.clip_lo), hi = vdupq_n_s32(rq.clip_hi);
  LOOM_UNROLL
  for (uint32_t v = 0; v < kV; ++v) {
    const int32x4_t m = vld1q_s32(mult + 4 * v);
    LOOM_UNROLL
    for (uint32_t p = 0; p < kP; ++p) a[p][v] = RequantNeon(a[p][v], m, rq, lo, hi);
  }
  LOOM_UNROLL
  for (uint32_t p = 0; p < kP; ++p) StoreClipped<kV>(a[p], out + p * c);
}

// One input channel (weights `w`: kW int16 of its tile row) times lane kL of every position's quad.
template <uint32_t kW, uint32_t kP, int kL>
LOOM_INLINE void MacLane(int32x4_t (&a)[kP][kW / 4], const int16_t* w, const int16x4_t (&x)[kP]) {
  if constexpr (kW == 4) {
    const int16x4_t wv = vld1_s16(w);
    LOOM_UNROLL
    for (uint32_t p = 0; p < kP; ++p) a[p][0] = vmlal_lane_s16(a[p][0], wv, x[p], kL);
  } else {
    LOOM_UNROLL
    for (uint32_t v = 0; v < kW / 8; ++v) {
      const int16x8_t wv = vld1q_s16(w + 8 * v);
      LOOM_UNROLL
      for (uint32_t p = 0; p < kP; ++p) {
        a[p][2 * v] = vmlal_lane_s16(a[p][2 * v], vget_low_s16(wv), x[p], kL);
#if defined(__aarch64__)
        a[p][2 * v + 1] = vmlal_high_lane_s16(a[p][2 * v + 1], wv, x[p], kL);
#else
        a[p][2 * v + 1] = vmlal_lane_s16(a[p][2 * v + 1], vget_high_s16(wv), x[p], kL);
#endif
      }
    }
  }
}

// Smlal and Dot (and their Dw twins) repeat one loop skeleton on purpose: GCC will not inline an
// always_inline sdot step (target dotprod) into a shared skeleton without that target ("target
// specific option mismatch"), and giving the skeleton dotprod would let the smlal kernels, which
// must run on a Cortex-A53 or A9 without sdot, use it.
template <uint32_t kW>
struct Smlal {
  static constexpr uint32_t kMaxPos = kSmlalPos<kW>;
  template <uint32_t kP>
  LOOM_NOINLINE static void Run(const Args& g, const ConvRows& r, int8_t* out) {
    constexpr uint32_t nv = kW / 4;
    const uint32_t c = g.c;
    for (uint32_t s = 0; s < c; s += kW) {
      int32x4_t a[kP][nv];
      InitAcc(a, g.bias + s);
      const uint8_t* tile = g.weights;
      for (uint32_t ib = 0; ib < r.icb; ++ib) {
        // The last block reads its real quads only; past the real channels inputs and weights
        // are 0.
        const uint32_t quads = ib + 1 == r.icb ? r.last_quads : c / 4;
        for (uint32_t ky = 0; ky < r.kh; ++ky) {
          const uint8_t* x = r.in + ib * r.plane_step + ky * r.row_step;
          for (uint32_t kx = 0; kx < r.kw; ++kx, x += 2 * c, tile += r.tile_stride) {
            const int16_t* w = reinterpret_cast<const int16_t*>(tile) + s;
            for (uint32_t k = 0; k < quads; ++k, w += 4 * c) {
              int16x4_t xq[kP];
              LOOM_UNROLL
              for (uint32_t p = 0; p < kP; ++p) {
                xq[p] = vld1_s16(reinterpret_cast<const int16_t*>(x + p * r.pos_step) + 4 * k);
              }
              MacLane<kW, kP, 0>(a, w, xq);
              MacLane<kW, kP, 1>(a, w + c, xq);
              MacLane<kW, kP, 2>(a, w + 2 * c, xq);
              MacLane<kW, kP, 3>(a, w + 3 * c, xq);
            }
          }
        }
      }
      Epilogue(a, g.mult + s, *g.rq, c, out + s);
    }
  }
};

// Depthwise on the int16 copy: per tap, smlal of each channel's input and weight.
template <uint32_t kW>
struct SmlalDw {
  static constexpr uint32_t kMaxPos = kSmlalPos<kW>;
  template <uint32_t kP>
  LOOM_NOINLINE static void Run(const Args& g, const ConvRows& r, int8_t* out) {
    constexpr uint32_t nv = kW / 4;
    const uint32_t c = g.c;
    for (uint32_t s = 0; s < c; s += kW) {
      int32x4_t a[kP][nv];
      InitAcc(a, g.bias + s);
      const auto* w = reinterpret_cast<const int8_t*>(g.weights) + s;
      for (uint32_t ky = 0; ky < r.kh; ++ky) {
        const uint8_t* x = r.in + ky * r.row_step + 2 * s;
        for (uint32_t kx = 0; kx < r.kw; ++kx, x += 2 * c, w += c) {
          if constexpr (kW == 4) {
            // Four weights only: the next channels may be past the end of the weights.
            int32_t w4;
            std::memcpy(&w4, w, 4);
            const int16x4_t wv = vget_low_s16(vmovl_s8(vreinterpret_s8_s32(vdup_n_s32(w4))));
            LOOM_UNROLL
            for (uint32_t p = 0; p < kP; ++p) {
              const int16x4_t xv = vld1_s16(reinterpret_cast<const int16_t*>(x + p * r.pos_step));
              a[p][0] = vmlal_s16(a[p][0], xv, wv);
            }
          } else {
            LOOM_UNROLL
            for (uint32_t v = 0; v < kW / 8; ++v) {
              const int16x8_t wv = vmovl_s8(vld1_s8(w + 8 * v));
              LOOM_UNROLL
              for (uint32_t p = 0; p < kP; ++p) {
                const int16x8_t xv =
                    vld1q_s16(reinterpret_cast<const int16_t*>(x + p * r.pos_step) + 8 * v);
                a[p][2 * v] = vmlal_s16(a[p][2 * v], vget_low_s16(xv), vget_low_s16(wv));
#if defined(__aarch64__)
                a[p][2 * v + 1] = vmlal_high_s16(a[p][2 * v + 1], xv, wv);
#else
                a[p][2 * v + 1] = vmlal_s16(a[p][2 * v + 1], vget_high_s16(xv), vget_high_s16(wv));
#endif
              }
            }
          }
        }
      }
      Epilogue(a, g.mult + s, *g.rq, c, out + s);
    }
  }
};

// npos positions as calls of K::kMaxPos, 4, 2 and 1 positions (the position counts are template
// constants so the accumulators stay in registers; four sizes keep the instantiations few).
template <class K>
inline void SplitPositions(const Args& g, ConvRows r, uint32_t npos, int8_t* out) {
  static_assert(K::kMaxPos >= 4, "the split takes 4 positions");
  while (npos > 0) {
    uint32_t n = 1;
    if (npos >= K::kMaxPos) {
      n = K::kMaxPos;
      K::template Run<K::kMaxPos>(g, r, out);
    } else if (npos >= 4) {
      n = 4;
      K::template Run<4>(g, r, out);
    } else if (npos >= 2) {
      n = 2;
      K::template Run<2>(g, r, out);
    } else {
      K::template Run<1>(g, r, out);
    }
    r.in += n * r.pos_step;
    out += size_t{n} * g.c;
    npos -= n;
  }
}

template <template <uint32_t> class K, uint32_t kW>
inline void RowsOf(const uint8_t* packed, uint32_t block, const ConvRows& r, uint32_t npos,
                   uint32_t, const int32_t* bias, const int32_t* mult, const Requant& rq,
                   int8_t* out) {
  SplitPositions<K<kW>>({packed, block, bias, mult, &rq}, r, npos, out);
}

template <template <uint32_t> class K, uint32_t kW>
inline void DwRowsOf(const int8_t* w, uint32_t block, const ConvRows& r, uint32_t npos,
                     const int32_t* bias, const int32_t* mult, const Requant& rq, int8_t* out) {
  SplitPositions<K<kW>>({reinterpret_cast<const uint8_t*>(w), block, bias, mult, &rq}, r, npos,
                        out);
}

// The slice a block takes: the widest of kWide, 8 and 4 that divides it.
inline uint32_t SliceOf(uint32_t block) {
  if (block % kWide == 0) return kWide;
  return block % 8 == 0 ? 8 : 4;
}

// The tiles take blocks % 4 == 0 up to the largest block (tiles_neon.cc); so do the rows.
inline bool Takes(uint32_t block) { return block % 4 == 0 && block != 0 && block <= 256; }

}  // namespace loom::kernels::q::fast::neon

#endif  // __ARM_NEON
#endif  // LOOM_RUNTIME_KERNELS_INT8_FAST_ROWS_NEON_BODY_H_
