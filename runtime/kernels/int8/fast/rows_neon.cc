// fast::Conv2d's NEON row kernels (rows.h): the smlal tables over rows_neon_body.h, and on aarch64
// the sdot kernels, which run where the CPU has the dot-product extension (checked at run time).
#include <cstring>

#include "runtime/kernels/int8/fast/rows.h"
#include "runtime/kernels/int8/fast/rows_neon_body.h"

#if defined(__ARM_NEON)

namespace loom::kernels::q::fast {
namespace neon {
namespace {

#if defined(__aarch64__)
#define LOOM_DOTPROD __attribute__((target("arch=armv8.2-a+dotprod")))

template <uint32_t kW>
struct Dot {
  static constexpr uint32_t kMaxPos = kDotPos<kW>;
  template <uint32_t kP>
  LOOM_NOINLINE LOOM_DOTPROD static void Run(const Args& g, const ConvRows& r, int8_t* out) {
    constexpr uint32_t nv = kW / 4;
    const uint32_t c = g.c;
    for (uint32_t s = 0; s < c; s += kW) {
      int32x4_t a[kP][nv];
      InitAcc(a, g.bias + s);
      const uint8_t* tile = g.weights;
      for (uint32_t ib = 0; ib < r.icb; ++ib) {
        const uint32_t quads = ib + 1 == r.icb ? r.last_quads : c / 4;
        for (uint32_t ky = 0; ky < r.kh; ++ky) {
          const uint8_t* x = r.in + ib * r.plane_step + ky * r.row_step;
          for (uint32_t kx = 0; kx < r.kw; ++kx, x += c, tile += r.tile_stride) {
            // Quad k of output channel o is at (k * c + o) * 4: the slice's W / 4 registers.
            const auto* w = reinterpret_cast<const int8_t*>(tile) + 4 * s;
            for (uint32_t k = 0; k < quads; ++k, w += 4 * c) {
              int8x16_t wv[nv];
              LOOM_UNROLL
              for (uint32_t v = 0; v < nv; ++v) wv[v] = vld1q_s8(w + 16 * v);
              LOOM_UNROLL
              for (uint32_t p = 0; p < kP; ++p) {
                int32_t q;
                std::memcpy(&q, x + p * r.pos_step + 4 * k, 4);
                const int8x16_t xb = vreinterpretq_s8_s32(vdupq_n_s32(q));
                LOOM_UNROLL
                for (uint32_t v = 0; v < nv; ++v) a[p][v] = vdotq_s32(a[p][v], wv[v], xb);
              }
            }
          }
        }
      }
      Epilogue(a, g.mult + s, *g.rq, c, out + s);
    }
  }
};

// Depthwise on the int8 copy (the sdot rows' operand): per tap, smull of eight channels' input and
// weight into int16 (exact: |x * w| <= 2^14), added into the int32 accumulators.
template <uint32_t kW>
struct DotDw {
  static constexpr uint32_t kMaxPos = kDotPos<kW>;
  template <uint32_t kP>
  LOOM_NOINLINE static void Run(const Args& g, const ConvRows& r, int8_t* out) {
    constexpr uint32_t nv = kW / 4;
    const uint32_t c = g.c;
    for (uint32_t s = 0; s < c; s += kW) {
      int32x4_t a[kP][nv];
      InitAcc(a, g.bias + s);
      const auto* w = reinterpret_cast<const int8_t*>(g.weights) + s;
      for (uint32_t ky = 0; ky < r.kh; ++ky) {
        const uint8_t* x = r.in + ky * r.row_step + s;
        for (uint32_t kx = 0; kx < r.kw; ++kx, x += c, w += c) {
          if constexpr (kW == 4) {
            // Four lanes only: the next channels may be past the end of the copy.
            int32_t w4;
            std::memcpy(&w4, w, 4);
            const int8x8_t wv = vreinterpret_s8_s32(vdup_n_s32(w4));
            LOOM_UNROLL
            for (uint32_t p = 0; p < kP; ++p) {
              int32_t x4;
              std::memcpy(&x4, x + p * r.pos_step, 4);
              const int16x8_t prod = vmull_s8(vreinterpret_s8_s32(vdup_n_s32(x4)), wv);
              a[p][0] = vaddw_s16(a[p][0], vget_low_s16(prod));
            }
          } else {
            LOOM_UNROLL
            for (uint32_t v = 0; v < kW / 8; ++v) {
              const int8x8_t wv = vld1_s8(w + 8 * v);
              LOOM_UNROLL
              for (uint32_t p = 0; p < kP; ++p) {
                const auto* xp = reinterpret_cast<const int8_t*>(x + p * r.pos_step) + 8 * v;
                const int16x8_t prod = vmull_s8(vld1_s8(xp), wv);
                a[p][2 * v] = vaddw_s16(a[p][2 * v], vget_low_s16(prod));
                a[p][2 * v + 1] = vaddw_high_s16(a[p][2 * v + 1], prod);
              }
            }
          }
        }
      }
      Epilogue(a, g.mult + s, *g.rq, c, out + s);
    }
  }
};
#endif

}  // namespace
}  // namespace neon

namespace {

using neon::kWide;

// A table of NEON rows: the padded copy's element bytes, positions per call and the kernels; no
// offset, one output-channel block per call.
template <uint8_t kInBytes, uint32_t kPos, template <uint32_t> class Gemm,
          template <uint32_t> class Dw, uint32_t kW>
constexpr RowKernels NeonTable() {
  RowKernels k{};
  k.in_bytes = kInBytes;
  k.max_pos = kPos;
  k.rows = neon::RowsOf<Gemm, kW>;
  k.depthwise = neon::DwRowsOf<Dw, kW>;
  return k;
}

// The int16 copy (in_bytes 2).
template <uint32_t kW>
constexpr RowKernels kSmlalRows =
    NeonTable<2, neon::kSmlalPos<kW>, neon::Smlal, neon::SmlalDw, kW>();

#if defined(__aarch64__)
// The int8 copy as stored (in_bytes 1).
template <uint32_t kW>
constexpr RowKernels kDotRows = NeonTable<1, neon::kDotPos<kW>, neon::Dot, neon::DotDw, kW>();
#endif

}  // namespace

const RowKernels* NeonRowKernels(uint32_t block) {
  if (!neon::Takes(block)) return nullptr;
  switch (neon::SliceOf(block)) {
    case 4:
      return &kSmlalRows<4>;
    case 8:
      return &kSmlalRows<8>;
    default:
      return &kSmlalRows<kWide>;
  }
}

const RowKernels* NeonDotRowKernels(uint32_t block) {
#if defined(__aarch64__)
  if (!neon::Takes(block)) return nullptr;
  switch (neon::SliceOf(block)) {
    case 4:
      return &kDotRows<4>;
    case 8:
      return &kDotRows<8>;
    default:
      return &kDotRows<kWide>;
  }
#else
  (void)block;
  return nullptr;
#endif
}

}  // namespace loom::kernels::q::fast

#else  // no NEON

namespace loom::kernels::q::fast {
const RowKernels* NeonRowKernels(uint32_t) { return nullptr; }
const RowKernels* NeonDotRowKernels(uint32_t) { return nullptr; }
}  // namespace loom::kernels::q::fast

#endif
