// The computations of the int8 kernels (qops.h) without their checks: each checked kernel
// (conv2d.cc, add.cc, ...) validates its call and then runs the body here, and the kernel ABI
// (kernel_abi.cc) exposes the same bodies to the LLVM code generator, which compiles them to
// bitcode and specializes them per op (docs/cpu.md, "Native code"). One body, so native code
// computes the kernels' own bytes.
//
// Freestanding on purpose: header-only, no Status, no allocation, no library call but
// memcpy/memset, so clang can compile it for any target the package carries code for. Every
// precondition is the checked kernel's (parameters in range, buffers sized and not aliased).
#ifndef LOOM_RUNTIME_KERNELS_INT8_BODIES_H_
#define LOOM_RUNTIME_KERNELS_INT8_BODIES_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "runtime/core/blocked_layout.h"
#include "runtime/kernels/int8/qops.h"

namespace loom::kernels::q {
namespace internal {

// Conv2d's accumulator tile (batch x block int32) is bounded so kernels can keep it on the stack.
constexpr uint32_t kConvMaxBlock = 256;
constexpr uint32_t kConvMaxTile = 1024;
// Whether body::Conv2d's stack tile holds blocking `b`: its precondition, which the checked
// kernel refuses to break and the code generator must not compile past (HwConfig allows blocks
// up to 64 x 256).
inline bool ConvTileFits(const Blocking& b) {
  return b.block <= kConvMaxBlock && uint64_t{b.batch} * b.block <= kConvMaxTile;
}

// Writes every byte of a blocked activation of shape `s` in memory order: padding lanes (batch
// or channel beyond the shape) get 0, every other element out[i] = f(i, nb, cb, bi, ci), where i
// is its offset and (nb, cb, bi, ci) its batch block, channel block and lanes.
template <typename F>
void ForEachBlockedElement(const Blocking& b, const ActShape& s, int8_t* out, F f) {
  const uint32_t B = b.batch, C = b.block;
  const uint32_t nbs = CeilDiv(s.n, B), cbs = CeilDiv(s.c, C);
  const size_t hw = size_t{s.h} * s.w;
  size_t i = 0;
  for (uint32_t nb = 0; nb < nbs; ++nb)
    for (uint32_t cb = 0; cb < cbs; ++cb)
      for (size_t pos = 0; pos < hw; ++pos)
        for (uint32_t bi = 0; bi < B; ++bi)
          for (uint32_t ci = 0; ci < C; ++ci, ++i) {
            const bool pad = nb * B + bi >= s.n || cb * C + ci >= s.c;
            out[i] = pad ? int8_t{0} : f(i, nb, cb, bi, ci);
          }
}

// Offset of element (n, c, h, w) inside a blocked activation whose channel-block count is cb.
inline size_t BlockedOffset(const Blocking& b, uint32_t cb, uint32_t h_size, uint32_t w_size,
                            uint32_t n, uint32_t c, uint32_t h, uint32_t w) {
  const size_t nb = n / b.batch, bi = n % b.batch;
  const size_t ob = c / b.block, ci = c % b.block;
  return ((((nb * cb + ob) * h_size + h) * w_size + w) * b.batch + bi) * b.block + ci;
}

// Calls f(in_lane_base, out_index, y0, y1, x0, x1, real) for every output lane of a pooling
// window, where [y0, y1) x [x0, x1) is the part of the window inside the input, in_lane_base the
// offset of the lane in the input's (0, 0) position and the position stride is B*c bytes; real is
// false for padding lanes.
template <typename F>
void ForEachWindow(const Blocking& b, const PoolParams& p, F&& f) {
  const ActShape os = p.out();
  const uint32_t B = b.batch, C = b.block;
  const uint32_t nbs = CeilDiv(p.in.n, B), cbs = CeilDiv(p.in.c, C);
  size_t oi = 0;
  for (uint32_t nb = 0; nb < nbs; ++nb)
    for (uint32_t cb = 0; cb < cbs; ++cb)
      for (uint32_t y = 0; y < os.h; ++y) {
        const int64_t ys = int64_t{y} * p.stride_h - p.pad_top;
        const uint32_t y0 = static_cast<uint32_t>(ys < 0 ? 0 : ys);
        const uint32_t y1 =
            static_cast<uint32_t>(ys + p.kh > p.in.h ? int64_t{p.in.h} : ys + int64_t{p.kh});
        for (uint32_t x = 0; x < os.w; ++x) {
          const int64_t xs = int64_t{x} * p.stride_w - p.pad_left;
          const uint32_t x0 = static_cast<uint32_t>(xs < 0 ? 0 : xs);
          const uint32_t x1 =
              static_cast<uint32_t>(xs + p.kw > p.in.w ? int64_t{p.in.w} : xs + int64_t{p.kw});
          for (uint32_t bi = 0; bi < B; ++bi)
            for (uint32_t ci = 0; ci < C; ++ci, ++oi) {
              const size_t base = (size_t{nb} * cbs + cb) * p.in.h * p.in.w * B * C + bi * C + ci;
              const bool real = nb * B + bi < p.in.n && cb * C + ci < p.in.c;
              f(base, oi, y0, y1, x0, x1, real);
            }
        }
      }
}

// [N/B][C/c] planes of H x W blocked elements (B * c bytes each) of an activation.
inline size_t BlockedPlanes(const Blocking& b, const ActShape& s) {
  return size_t{CeilDiv(s.n, b.batch)} * CeilDiv(s.c, b.block);
}

}  // namespace internal

namespace body {

inline void Conv2d(const Blocking& b, const Conv2dParams& p, const int8_t* in,
                   const int8_t* weights, const int32_t* bias, const int32_t* mult, int8_t* out) {
  const ActShape os = p.out();
  const uint32_t B = b.batch, C = b.block;
  const uint32_t nbs = CeilDiv(p.in.n, B);
  const uint32_t icb = CeilDiv(p.in.c, C), ocb = CeilDiv(p.out_c, C);
  // Grouped: output channel ch reads the cg input channels from its group's first, gi * cg; the
  // weights hold wcb blocks of cg input channels per output-channel block.
  const uint32_t cg = p.GroupChannels(), og = p.GroupOutChannels(), wcb = CeilDiv(cg, C);
  const size_t in_row = size_t{B} * C;   // bytes of one (h, w) position in a channel block
  uint32_t acc[internal::kConvMaxTile];  // [B][C], wrapping int32 kept unsigned
  // What a padded position reads: pad_value in every lane (channel lanes past in.c meet zero
  // weights and batch rows past n are not stored, so filling them too changes nothing).
  int8_t pad[internal::kConvMaxTile];
  std::memset(pad, static_cast<int8_t>(p.pad_value), in_row);

  for (uint32_t nb = 0; nb < nbs; ++nb) {
    for (uint32_t ob = 0; ob < ocb; ++ob) {
      for (uint32_t y = 0; y < os.h; ++y) {
        for (uint32_t x = 0; x < os.w; ++x) {
          for (uint32_t bi = 0; bi < B; ++bi)
            for (uint32_t o = 0; o < C; ++o) {
              const uint32_t ch = ob * C + o;
              acc[bi * C + o] =
                  (bias != nullptr && ch < p.out_c) ? static_cast<uint32_t>(bias[ch]) : 0;
            }
          for (uint32_t ky = 0; ky < p.kh; ++ky) {
            const int64_t iy = int64_t{y} * p.stride_h + ky - p.pad_top;
            const bool row_out = iy < 0 || iy >= p.in.h;
            if (row_out && p.pad_value == 0) continue;
            for (uint32_t kx = 0; kx < p.kw; ++kx) {
              const int64_t ix = int64_t{x} * p.stride_w + kx - p.pad_left;
              const bool outside = row_out || ix < 0 || ix >= p.in.w;
              if (outside && p.pad_value == 0) continue;
              // The input position's B x c vector of channel block `blk`.
              auto at = [&](uint32_t blk) {
                return outside
                           ? pad
                           : in + (((size_t{nb} * icb + blk) * p.in.h + iy) * p.in.w + ix) * in_row;
              };
              if (p.depthwise) {
                const int8_t* src = at(ob);
                const int8_t* w = weights + ((size_t{ob} * p.kh + ky) * p.kw + kx) * C;
                for (uint32_t bi = 0; bi < B; ++bi)
                  for (uint32_t o = 0; o < C; ++o)
                    acc[bi * C + o] += static_cast<uint32_t>(int32_t{src[bi * C + o]} * w[o]);
                continue;
              }
              if (p.groups != 1) {
                const int8_t* w = weights + ((size_t{ob} * wcb * p.kh + ky) * p.kw + kx) * C * C;
                const size_t wtile = size_t{p.kh} * p.kw * C * C;  // next input-channel block
                for (uint32_t o = 0; o < C && ob * C + o < p.out_c; ++o) {
                  const uint32_t first = (ob * C + o) / og * cg;
                  for (uint32_t i = 0; i < cg; ++i) {
                    const uint32_t ic = first + i;
                    const int8_t wi = w[(i / C) * wtile + size_t{o} * C + i % C];
                    if (ic >= p.in.c) {  // a short last group's missing channels: padding lanes
                      for (uint32_t bi = 0; bi < B && outside; ++bi)
                        acc[bi * C + o] += static_cast<uint32_t>(p.pad_value * wi);
                      continue;
                    }
                    const int8_t* src = at(ic / C) + ic % C;
                    for (uint32_t bi = 0; bi < B; ++bi)
                      acc[bi * C + o] += static_cast<uint32_t>(int32_t{src[bi * C]} * wi);
                  }
                }
                continue;
              }
              for (uint32_t ib = 0; ib < icb; ++ib) {
                const int8_t* src = at(ib);
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
}

inline void Add(const Blocking& b, const AddParams& p, const int8_t* a, const int8_t* bb,
                int8_t* out) {
  internal::ForEachBlockedElement(
      b, p.shape, out, [&](size_t i, uint32_t, uint32_t, uint32_t, uint32_t) {
        // |a * mult| <= 2^22, so the sum of two fits int32.
        int32_t v = ShrRnd(int32_t{a[i]} * p.mult_a + int32_t{bb[i]} * p.mult_b, p.shift);
        v = v < p.clip_lo ? p.clip_lo : (v > p.clip_hi ? p.clip_hi : v);
        return Saturate8(v);
      });
}

inline void Mul(const Blocking& b, const MulParams& p, const int8_t* a, const int8_t* bb,
                int8_t* out) {
  const uint32_t B = b.batch, C = b.block, cbs = CeilDiv(p.shape.c, C);
  internal::ForEachBlockedElement(
      b, p.shape, out, [&](size_t i, uint32_t nb, uint32_t cb, uint32_t bi, uint32_t ci) {
        const size_t j = p.b_per_channel ? ((size_t{nb} * cbs + cb) * B + bi) * C + ci : i;
        // |b * b_mult| <= 2^22: no wrap before the clamp.
        int32_t t = int32_t{bb[j]} * p.b_mult + p.b_offset;
        t = t < p.b_lo ? p.b_lo : (t > p.b_hi ? p.b_hi : t);
        // |(a + a_offset) * t| < 2^24: the product is exact in int32, as on the ALU.
        return Requantize((int32_t{a[i]} + p.a_offset) * t, p.mult, p.rq, p.out_offset);
      });
}

inline void MaxPool(const Blocking& b, const PoolParams& p, const int8_t* in, int8_t* out) {
  const size_t pos = size_t{b.batch} * b.block;
  internal::ForEachWindow(
      b, p,
      [&](size_t base, size_t oi, uint32_t y0, uint32_t y1, uint32_t x0, uint32_t x1, bool real) {
        int8_t m = -128;
        if (real) {
          for (uint32_t y = y0; y < y1; ++y)
            for (uint32_t x = x0; x < x1; ++x) {
              const int8_t v = in[base + (size_t{y} * p.in.w + x) * pos];
              m = v > m ? v : m;
            }
        }
        out[oi] = real ? m : 0;
      });
}

inline void AvgPool(const Blocking& b, const AvgPoolParams& p, const int32_t* mult_by_count,
                    const int8_t* in, int8_t* out) {
  const PoolParams& pp = p.pool;
  const size_t pos = size_t{b.batch} * b.block;
  const uint32_t full = pp.kh * pp.kw;
  internal::ForEachWindow(
      b, pp,
      [&](size_t base, size_t oi, uint32_t y0, uint32_t y1, uint32_t x0, uint32_t x1, bool real) {
        if (!real) {
          out[oi] = 0;
          return;
        }
        uint32_t sum = 0;  // wrapping, as the ALU's ADD (no window the quantizer makes wraps)
        for (uint32_t y = y0; y < y1; ++y)
          for (uint32_t x = x0; x < x1; ++x) {
            const int32_t v = in[base + (size_t{y} * pp.in.w + x) * pos] + p.x_offset;
            sum += static_cast<uint32_t>(v);
          }
        const uint32_t count = p.count_include_pad ? full : (y1 - y0) * (x1 - x0);
        out[oi] =
            Requantize(static_cast<int32_t>(sum), mult_by_count[count - 1], p.rq, p.out_offset);
      });
}

// Each blocked element (the B x c vector of one pixel) is copied whole, so padding lanes stay
// zero.
inline void ResizeNearest(const Blocking& b, const ResizeParams& p, const int8_t* x, int8_t* out) {
  const uint32_t oh = p.shape.h * p.factor_h, ow = p.shape.w * p.factor_w;
  const size_t elem = size_t{b.batch} * b.block;
  const size_t planes = internal::BlockedPlanes(b, p.shape);
  for (size_t pl = 0; pl < planes; ++pl) {
    const int8_t* src = x + pl * p.shape.h * p.shape.w * elem;
    int8_t* dst = out + pl * oh * ow * elem;
    for (uint32_t y = 0; y < oh; ++y)
      for (uint32_t xo = 0; xo < ow; ++xo) {
        const int8_t* from = src + (size_t{y / p.factor_h} * p.shape.w + xo / p.factor_w) * elem;
        std::memcpy(dst + (size_t{y} * ow + xo) * elem, from, elem);
      }
  }
}

inline void ZeroInsert(const Blocking& b, const ZeroInsertParams& p, const int8_t* x, int8_t* out) {
  const uint32_t oh = p.shape.h * p.stride_h, ow = p.shape.w * p.stride_w;
  const size_t elem = size_t{b.batch} * b.block;
  const size_t planes = internal::BlockedPlanes(b, p.shape);
  std::memset(out, 0, planes * oh * ow * elem);
  for (size_t pl = 0; pl < planes; ++pl) {
    const int8_t* src = x + pl * p.shape.h * p.shape.w * elem;
    int8_t* dst = out + pl * oh * ow * elem;
    for (uint32_t y = 0; y < p.shape.h; ++y)
      for (uint32_t xi = 0; xi < p.shape.w; ++xi) {
        std::memcpy(dst + (size_t{y} * p.stride_h * ow + size_t{xi} * p.stride_w) * elem,
                    src + (size_t{y} * p.shape.w + xi) * elem, elem);
      }
  }
}

// One input of a Concat: its channels land at [c_off, c_off + in.shape.c) of the output `os`,
// rescaled. The caller zeroes the output first (its padding lanes belong to no input).
inline void ConcatInto(const Blocking& b, const ActShape& os, uint32_t c_off, const ConcatInput& in,
                       int8_t* out) {
  const uint32_t ocb = CeilDiv(os.c, b.block);
  const uint32_t icb = CeilDiv(in.shape.c, b.block);
  for (uint32_t n = 0; n < os.n; ++n)
    for (uint32_t c = 0; c < in.shape.c; ++c)
      for (uint32_t h = 0; h < os.h; ++h)
        for (uint32_t w = 0; w < os.w; ++w) {
          const int8_t x = in.data[internal::BlockedOffset(b, icb, os.h, os.w, n, c, h, w)];
          out[internal::BlockedOffset(b, ocb, os.h, os.w, n, c_off + c, h, w)] =
              Saturate8(ShrRnd(WrapMul(x, in.mult), in.shift));
        }
}

}  // namespace body
}  // namespace loom::kernels::q

#endif  // LOOM_RUNTIME_KERNELS_INT8_BODIES_H_
