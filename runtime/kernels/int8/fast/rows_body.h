// The freestanding part of the register-blocked convolution rows (rows.h): the rows' geometry,
// the padded copy of the input and the loop over output rows. Header-only, no Status, no
// allocation, no library call but memcpy/memset, so that the same code runs in fast::Conv2d
// (conv2d_rows.cc) and, compiled to bitcode by clang for each target, in the native code the
// LLVM code generator builds (abi/kernel_abi.cc, docs/cpu.md "Native code").
#ifndef LOOM_RUNTIME_KERNELS_INT8_FAST_ROWS_BODY_H_
#define LOOM_RUNTIME_KERNELS_INT8_FAST_ROWS_BODY_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "runtime/core/blocked_layout.h"
#include "runtime/kernels/int8/qops.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#elif defined(__ARM_NEON)
#include <arm_neon.h>
#endif

// Before each loop of a row kernel over positions or vectors (compile-time trip counts): fully
// unrolled, a[p][j] are registers. GCC 12 otherwise keeps the 8-position loop rolled and the
// accumulators in a stack array, one load and one store per vpdpbusd (seen in perf annotate:
// about a third of the machine's peak). Clang reads the same pragma.
#define LOOM_UNROLL _Pragma("GCC unroll 16")

// On each row kernel (one instantiation per block and position count): it stays one function.
// Native code keeps it out of line too (compiler/codegen keeps `noinline`), so a module compiles
// each kernel it uses once, not once per op and call site: inlined everywhere, the O3 pipeline
// took 14 s per convolution. Its register allocation is then its loop's alone.
#define LOOM_ROW_KERNEL __attribute__((noinline))

namespace loom::kernels::q::fast {

// The input of `npos` output positions of one output row, in the padded copy (batch block 1).
struct ConvRows {
  const uint8_t* in = nullptr;  // tap (0, 0) of position 0, input-channel block 0
  size_t pos_step = 0;          // bytes between output positions (stride_w * block)
  size_t row_step = 0;          // bytes between kernel rows (padded width * block)
  size_t plane_step = 0;        // bytes between input-channel blocks (padded plane)
  uint32_t kh = 1, kw = 1;
  uint32_t icb = 1;         // input-channel blocks
  uint32_t last_quads = 0;  // 4-channel groups to read in the last block (the rest are zeros)
  size_t tile_stride = 0;   // bytes between packed tiles, ordered [ib][ky][kx]
  // With two output-channel blocks per call: bytes between their packed tile sets, and between
  // their output planes.
  size_t ob_stride = 0;
  size_t out_ob_stride = 0;
  // A reduction split into chunks of input-channel blocks (RowKernels::chunk_bytes; only kernels
  // that set it read these): the int32 partial sums of the chunks before, npos x (nob x block),
  // to start from instead of zero (null: the first chunk), and where to leave this chunk's,
  // bias not added and nothing requantized (null: the last chunk, which requantizes into out).
  const int32_t* acc_in = nullptr;
  int32_t* acc_out = nullptr;
};

// Packed tiles sit this many bytes apart: one table's tile (tile_pack.h) rounded up to a cache
// line, so a row kernel streams its weights without the lines another table's wider tile would
// leave unread in between.
inline size_t PackedTileStride(size_t tile_bytes) { return (tile_bytes + 63) & ~size_t{63}; }

// The VNNI rows' reduction chunk (rows.h RowKernels::chunk_bytes): a call's weights kept within
// half of L1 (48 KiB on Ice Lake and Sapphire Rapids); ResNet-18's 256- and 512-channel layers
// read 72 and 144 KiB per call whole, streamed from L2 for every output row.
inline constexpr uint32_t kVnniChunkBytes = 24 * 1024;

// Input-channel blocks per reduction chunk of a call over `nob` output-channel blocks for a
// kernel with this chunk_bytes (every block, one chunk, when 0 or depthwise). A tile's bytes as
// a VNNI kernel reads them: block x block int8 weights and block int32.
inline uint32_t RowChunkBlocks(uint32_t chunk_bytes, uint32_t block, const Conv2dParams& p,
                               uint32_t nob) {
  const uint32_t icb = CeilDiv(p.in.c, block);
  if (chunk_bytes == 0 || p.depthwise) return icb;
  const size_t per_block = size_t{nob} * p.kh * p.kw * (size_t{block} * block + 4 * block);
  const size_t n = chunk_bytes / per_block;
  return n < 1 ? 1 : (n > icb ? icb : static_cast<uint32_t>(n));
}

// Bytes of the int32 partial sums between chunks (0 when no call of `p` is split): one image's
// output positions x the most output-channel blocks a call takes.
inline size_t RowPartialBytes(uint32_t chunk_bytes, uint32_t pair_max_block, uint32_t block,
                              const Conv2dParams& p) {
  const uint32_t nob = block <= pair_max_block ? 2 : 1;
  if (RowChunkBlocks(chunk_bytes, block, p, nob) == CeilDiv(p.in.c, block)) return 0;
  return size_t{p.out_h()} * p.out_w() * nob * block * sizeof(int32_t);
}

// Quads per kernel row, quad columns a row needs, and input columns it reads (the padded width
// and the zero-weight taps past it, which read the pad value).
inline uint32_t DwQuadsPerRow(const Conv2dParams& p) { return (p.kw + 3) / 4; }
inline uint32_t DwQuadColumns(const Conv2dParams& p) {
  return (p.out_w() - 1) * p.stride_w + 4 * (DwQuadsPerRow(p) - 1) + 1;
}
inline uint32_t DwQuadInputColumns(const Conv2dParams& p) { return DwQuadColumns(p) + 3; }

// Workspace of DwQuadPlane for one block: the kh ring slots, one padded input row, and the
// rewritten weights.
inline size_t DwQuadScratchBytes(const Conv2dParams& p, uint32_t block) {
  const size_t slot = size_t{DwQuadColumns(p)} * block * 4;
  const size_t row = size_t{DwQuadInputColumns(p)} * block;
  const size_t wq = size_t{p.kh} * DwQuadsPerRow(p) * block * 4;
  return (size_t{p.kh} * slot + row + wq + 3 * 64) & ~size_t{63};
}

// Kernel heights the depthwise quads' ring of rows takes; taller kernels run the padded copy.
inline constexpr uint32_t kDwQuadMaxKh = 16;

// Bytes of the padded copy of the input: in.n x input-channel blocks planes of (h + pads) x
// (w + pads) x block elements of `in_bytes` (1: int8, 2: int16).
inline size_t PaddedInputBytes(uint32_t in_bytes, const Blocking& b, const Conv2dParams& p) {
  const size_t hp = size_t{p.in.h} + p.pad_top + p.pad_bottom;
  const size_t wp = size_t{p.in.w} + p.pad_left + p.pad_right;
  return size_t{p.in.n} * CeilDiv(p.in.c, b.block) * hp * wp * b.block * in_bytes;
}

namespace rows_internal {

// One input row of `n` bytes into the padded copy as x ^ in_xor: sixteen bytes per step with SSE2
// (the x86-64 baseline, so no dispatch), else eight through a uint64.
inline void CopyRow(const int8_t* in, size_t n, uint8_t in_xor, uint8_t* padded) {
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i x16 = _mm_set1_epi8(static_cast<char>(in_xor));
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(padded + i), _mm_xor_si128(v, x16));
  }
#endif
  const uint64_t xor8 = uint64_t{in_xor} * 0x0101010101010101ull;
  for (; i + 8 <= n; i += 8) {
    uint64_t v;
    std::memcpy(&v, in + i, 8);
    v ^= xor8;
    std::memcpy(padded + i, &v, 8);
  }
  for (; i < n; ++i) padded[i] = static_cast<uint8_t>(in[i]) ^ in_xor;
}

// The same row sign-extended to int16 (the AVX2 and NEON rows' operand): with SSE2, each byte
// unpacked into the high half of a 16-bit lane and shifted back arithmetically; with NEON, sxtl.
inline void WidenRow(const int8_t* in, size_t n, uint8_t* padded) {
  size_t i = 0;
#if defined(__SSE2__)
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    __m128i* out = reinterpret_cast<__m128i*>(padded + 2 * i);
    _mm_storeu_si128(out, _mm_srai_epi16(_mm_unpacklo_epi8(v, v), 8));
    _mm_storeu_si128(out + 1, _mm_srai_epi16(_mm_unpackhi_epi8(v, v), 8));
  }
#elif defined(__ARM_NEON)
  for (; i + 8 <= n; i += 8) {
    vst1q_s16(reinterpret_cast<int16_t*>(padded + 2 * i), vmovl_s8(vld1_s8(in + i)));
  }
#endif
  for (; i < n; ++i) {
    const int16_t v = in[i];
    std::memcpy(padded + 2 * i, &v, 2);
  }
}

// `n` padding elements of the padded copy: the pad value as the copy stores an x (x ^ in_xor as
// a byte, or sign-extended to int16). One memset when every byte is the same (pad value 0 or -1,
// or any pad value in the int8 copy); else a loop over int16 the compiler vectorizes.
inline void FillPad(uint8_t* padded, size_t n, uint32_t in_bytes, uint8_t in_xor,
                    int32_t pad_value) {
  const int16_t v = static_cast<int16_t>(pad_value);
  if (in_bytes == 1 || v == 0 || v == -1) {
    std::memset(padded, static_cast<uint8_t>(v) ^ (in_bytes == 1 ? in_xor : 0), n * in_bytes);
    return;
  }
  for (size_t i = 0; i < n; ++i) std::memcpy(padded + 2 * i, &v, 2);
}

}  // namespace rows_internal

// Writes the padded copy of `in` (stored layout, batch block 1): each x as x ^ in_xor
// (in_bytes 1) or sign-extended to int16 (in_bytes 2, in_xor 0). A padded element holds
// p.pad_value stored the same way, in every lane: a row kernel then adds pad_value * w for it,
// as the reference does for a position outside the input (with VNNI's offset, the stored
// (pad_value ^ 0x80) is pad_value + 128, which the tiles' correction takes back like any x's).
// The lanes of channels past in.c hold the pad value there too, as in the reference's pad
// vector: they meet zero weights (or, depthwise, output lanes zeroed after requantization), and
// the rows read only last_quads of the last block, so the result is the same whatever they hold.
inline void PadInput(uint8_t in_xor, uint32_t in_bytes, const Blocking& b, const Conv2dParams& p,
                     const int8_t* in, uint8_t* padded) {
  const size_t E = in_bytes;
  const size_t C = b.block;
  const size_t wp = size_t{p.in.w} + p.pad_left + p.pad_right;
  const size_t planes = size_t{p.in.n} * CeilDiv(p.in.c, b.block);
  const size_t row_elems = size_t{p.in.w} * C;
  auto pad = [&](size_t elems) {
    rows_internal::FillPad(padded, elems, in_bytes, in_xor, p.pad_value);
    padded += elems * E;
  };
  for (size_t pl = 0; pl < planes; ++pl) {
    pad(p.pad_top * wp * C);
    for (uint32_t y = 0; y < p.in.h; ++y, in += row_elems) {
      pad(p.pad_left * C);
      if (E == 2) {
        rows_internal::WidenRow(in, row_elems, padded);
      } else {
        rows_internal::CopyRow(in, row_elems, in_xor, padded);
      }
      padded += row_elems * E;
      pad(p.pad_right * C);
    }
    pad(p.pad_bottom * wp * C);
  }
}

// The rows' geometry over the padded copy for `p`: every field of ConvRows but `in`.
inline ConvRows RowsGeometry(uint32_t in_bytes, const Blocking& b, const Conv2dParams& p,
                             size_t tile_stride, size_t ob_stride) {
  const size_t C = b.block, E = in_bytes;
  const size_t hp = size_t{p.in.h} + p.pad_top + p.pad_bottom;
  const size_t wp = size_t{p.in.w} + p.pad_left + p.pad_right;
  const ActShape os = p.out();
  ConvRows r;
  r.pos_step = size_t{p.stride_w} * C * E;
  r.row_step = wp * C * E;
  r.plane_step = hp * wp * C * E;
  r.kh = p.kh;
  r.kw = p.kw;
  r.icb = CeilDiv(p.in.c, b.block);
  r.last_quads = CeilDiv<uint32_t>(p.in.c - (r.icb - 1) * b.block, 4);
  r.tile_stride = tile_stride;
  r.ob_stride = ob_stride;
  r.out_ob_stride = size_t{os.h} * os.w * C;
  return r;
}

// One (image, output-channel block or pair) by rows: for every output row, kernel(r, npos, dst)
// on groups of max_pos positions and one group of the rest, then the lanes of channels past
// real_c[j] of each of the `nob` blocks zeroed. `padded` is this image's padded planes (a
// depthwise caller adds its block's plane). The rest is the same for every row, so once native
// code specializes a call both group sizes are constants and only two kernels remain.
template <typename Kernel>
void ForEachRowGroup(const Blocking& b, const Conv2dParams& p, ConvRows r, const uint8_t* padded,
                     uint32_t max_pos, uint32_t nob, const uint32_t* real_c, int8_t* out,
                     Kernel kernel) {
  const uint32_t C = b.block;
  const ActShape os = p.out();
  // ceil(w / max_pos) groups as even as can be: `big` groups of q + 1 positions, then q each
  // (a 14-wide row with max_pos 12 runs as 7 + 7, not 12 + 2).
  const uint32_t groups = (os.w + max_pos - 1) / max_pos, q = os.w / groups;
  const uint32_t big = os.w - q * groups;
  for (uint32_t y = 0; y < os.h; ++y) {
    const uint8_t* in_row = padded + size_t{y} * p.stride_h * r.row_step;
    int8_t* dst = out + size_t{y} * os.w * C;
    uint32_t x = 0;
    for (uint32_t g = 0; g < groups; ++g) {
      const uint32_t n = g < big ? q + 1 : q;
      r.in = in_row + size_t{x} * r.pos_step;
      kernel(r, n, dst + size_t{x} * C);
      x += n;
    }
    for (uint32_t j = 0; j < nob; ++j) {
      if (real_c[j] == C) continue;
      int8_t* d = dst + j * r.out_ob_stride;
      for (uint32_t i = 0; i < os.w; ++i)
        std::memset(d + size_t{i} * C + real_c[j], 0, C - real_c[j]);
    }
  }
}

// One (image, output-channel block or pair) by rows with the reduction in chunks of `chunk`
// input-channel blocks (rows.h RowKernels::chunk_bytes), each chunk over every output row:
// kernel(chunk_tiles, rows, npos, dst) with the chunk's ConvRows, whose acc_in / acc_out point
// at the positions' int32 sums in `partial` (position x of the plane at x * nob * block) unless
// the reduction is whole. `tiles` are the block's (pair's) first, r.tile_stride apart.
template <typename Kernel>
void ForEachChunk(const Blocking& b, const Conv2dParams& p, const ConvRows& r,
                  const uint8_t* padded, const uint8_t* tiles, uint32_t chunk, uint32_t max_pos,
                  uint32_t nob, const uint32_t* real_c, int8_t* out, int32_t* partial,
                  Kernel kernel) {
  const uint32_t C = b.block, icb = r.icb;
  const size_t taps = size_t{p.kh} * p.kw;
  for (uint32_t ib0 = 0; ib0 < icb; ib0 += chunk) {
    const bool first = ib0 == 0, last = ib0 + chunk >= icb;
    ConvRows rc = r;
    rc.icb = icb - ib0 < chunk ? icb - ib0 : chunk;
    if (!last) rc.last_quads = C / 4;
    const uint8_t* t = tiles + ib0 * taps * r.tile_stride;
    ForEachRowGroup(b, p, rc, padded + ib0 * r.plane_step, max_pos, nob, real_c, out,
                    [&](const ConvRows& g, uint32_t n, int8_t* dst) {
                      ConvRows gc = g;
                      if (!(first && last)) {
                        int32_t* part = partial + (dst - out) / C * nob * C;
                        gc.acc_in = first ? nullptr : part;
                        gc.acc_out = last ? nullptr : part;
                      }
                      kernel(t, gc, n, dst);
                    });
  }
}

// Whether a depthwise `p` runs by tap quads where the kernels have them (else the padded copy).
inline bool UsesDwQuads(bool has_quads, const Conv2dParams& p) {
  return has_quads && p.depthwise && p.kh <= kDwQuadMaxKh;
}

// The workspace of a convolution by rows in native code (conv2d_rows_body.h): the padded copy, or
// the depthwise quads' rows, then the partial sums between reduction chunks. (fast::Conv2d lays
// out the same parts in its own workspace, conv2d_fast.cc.)
inline size_t ConvRowsWorkspaceBytes(uint32_t in_bytes, uint32_t chunk_bytes,
                                     uint32_t pair_max_block, bool dw_quads, const Blocking& b,
                                     const Conv2dParams& p) {
  const size_t first =
      UsesDwQuads(dw_quads, p) ? DwQuadScratchBytes(p, b.block) : PaddedInputBytes(in_bytes, b, p);
  return ((first + 63) & ~size_t{63}) + RowPartialBytes(chunk_bytes, pair_max_block, b.block, p);
}

}  // namespace loom::kernels::q::fast

#endif  // LOOM_RUNTIME_KERNELS_INT8_FAST_ROWS_BODY_H_
