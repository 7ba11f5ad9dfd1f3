// Conv2d on blocked layouts (qops.h): groups == 1 as c x c GEMM tiles per kernel tap, or depthwise
// (one filter per channel). Accumulates in wrapping int32 as the accelerator's ACC does, then
// requantizes per output channel.
#include <cstring>
#include <string>

#include "runtime/kernels/int8/internal.h"
#include "runtime/kernels/int8/qops.h"

namespace loom::kernels::q {

Status Conv2d(const Blocking& b, const Conv2dParams& p, const int8_t* in, const int8_t* weights,
              const int32_t* bias, const int32_t* mult, int8_t* out) {
  LOOM_RETURN_IF_ERROR(internal::CheckConv2dCall(b, p, in, weights, mult, out));
  const ActShape os = p.out();
  const uint32_t B = b.batch, C = b.block;
  const uint32_t nbs = CeilDiv(p.in.n, B);
  const uint32_t icb = CeilDiv(p.in.c, C), ocb = CeilDiv(p.out_c, C);
  const size_t in_row = size_t{B} * C;  // bytes of one (h, w) position in a channel block
  uint32_t acc[internal::kConvMaxTile];  // [B][C], wrapping int32 kept unsigned

  for (uint32_t nb = 0; nb < nbs; ++nb) {
    for (uint32_t ob = 0; ob < ocb; ++ob) {
      for (uint32_t y = 0; y < os.h; ++y) {
        for (uint32_t x = 0; x < os.w; ++x) {
          for (uint32_t bi = 0; bi < B; ++bi)
            for (uint32_t o = 0; o < C; ++o) {
              const uint32_t ch = ob * C + o;
              acc[bi * C + o] = (bias != nullptr && ch < p.out_c) ? static_cast<uint32_t>(bias[ch]) : 0;
            }
          for (uint32_t ky = 0; ky < p.kh; ++ky) {
            const int64_t iy = int64_t{y} * p.stride_h + ky - p.pad_top;
            if (iy < 0 || iy >= p.in.h) continue;
            for (uint32_t kx = 0; kx < p.kw; ++kx) {
              const int64_t ix = int64_t{x} * p.stride_w + kx - p.pad_left;
              if (ix < 0 || ix >= p.in.w) continue;
              if (p.depthwise) {
                const int8_t* src =
                    in + (((size_t{nb} * icb + ob) * p.in.h + iy) * p.in.w + ix) * in_row;
                const int8_t* w = weights + ((size_t{ob} * p.kh + ky) * p.kw + kx) * C;
                for (uint32_t bi = 0; bi < B; ++bi)
                  for (uint32_t o = 0; o < C; ++o)
                    acc[bi * C + o] += static_cast<uint32_t>(int32_t{src[bi * C + o]} * w[o]);
                continue;
              }
              for (uint32_t ib = 0; ib < icb; ++ib) {
                const int8_t* src =
                    in + (((size_t{nb} * icb + ib) * p.in.h + iy) * p.in.w + ix) * in_row;
                const int8_t* w =
                    weights + (((size_t{ob} * icb + ib) * p.kh + ky) * p.kw + kx) * C * C;
                for (uint32_t bi = 0; bi < B; ++bi) {
                  const int8_t* s = src + bi * C;
                  for (uint32_t o = 0; o < C; ++o) {
                    const int8_t* wr = w + size_t{o} * C;
                    int32_t sum = 0;  // at most 256 products of |x| <= 2^14: no overflow
                    for (uint32_t i = 0; i < C; ++i) sum += int32_t{s[i]} * wr[i];
                    acc[bi * C + o] += static_cast<uint32_t>(sum);
                  }
                }
              }
            }
          }
          int8_t* dst = out + (((size_t{nb} * ocb + ob) * os.h + y) * os.w + x) * in_row;
          for (uint32_t bi = 0; bi < B; ++bi) {
            for (uint32_t o = 0; o < C; ++o) {
              const uint32_t ch = ob * C + o;
              const bool real = ch < p.out_c && nb * B + bi < p.in.n;
              dst[bi * C + o] =
                  real ? Requantize(static_cast<int32_t>(acc[bi * C + o]), mult[ch], p.rq) : 0;
            }
          }
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels::q
