// The kernel ABI's entry points (kernel_abi.h) over the kernel bodies (../bodies.h). Never built
// into the runtime: clang compiles this file to LLVM bitcode per target triple at build time
// (compiler/codegen/CMakeLists.txt), and the code generator links that bitcode into every
// package's native code, inlines these entries and specializes them on their constant arrays.
// Freestanding: no exceptions, no RTTI, no allocation, no library call but memcpy/memset.
#include "runtime/kernels/int8/abi/kernel_abi.h"

#include "runtime/kernels/int8/bodies.h"
#include "runtime/kernels/int8/fast/conv2d_rows_body.h"
#include "runtime/kernels/int8/fast/rows_avx2_body.h"
#include "runtime/kernels/int8/fast/rows_avx512_body.h"
#include "runtime/kernels/int8/fast/rows_neon_body.h"
#include "runtime/kernels/int8/fast/tile_pack.h"

using namespace loom::kernels::q;  // NOLINT: the entries are extern "C", outside any namespace

#if defined(__x86_64__)
namespace {

// The row kernels of fast/ as Conv2dByRows' instruction sets: the values fast::Conv2d's tables
// (rows_avx2.cc, rows_avx512.cc) hold, with the block dispatch they do at run time. Once an op's
// block is a literal, only its kernels stay.
struct Avx2Isa {
  static size_t TileBytes(uint32_t block) { return fast::Avx2TileBytes(block); }
  static constexpr uint8_t kInXor = 0;
  static constexpr uint32_t kInBytes = 2;
  static constexpr uint32_t kPairMaxBlock = 0;
  static constexpr bool kBiasAdjust = false;
  static constexpr uint32_t kChunkBytes = 0;
  static constexpr bool kDwQuads = false;
  static uint32_t MaxPos(uint32_t block) {
    return block == 8 ? fast::avx2::kMaxPos<8>
                      : (block == 16 ? fast::avx2::kMaxPos<16> : fast::avx2::kMaxPos<32>);
  }
  static void Rows(const uint8_t* packed, uint32_t block, const fast::ConvRows& r, uint32_t npos,
                   uint32_t nob, const int32_t* bias, const int32_t* mult, const Requant& rq,
                   int8_t* out) {
    if (block == 8)
      return fast::avx2::Avx2Rows<8>(packed, block, r, npos, nob, bias, mult, rq, out);
    if (block == 16) {
      return fast::avx2::Avx2Rows<16>(packed, block, r, npos, nob, bias, mult, rq, out);
    }
    fast::avx2::Avx2Rows<32>(packed, block, r, npos, nob, bias, mult, rq, out);
  }
  static void Depthwise(const int8_t* w, uint32_t block, const fast::ConvRows& r, uint32_t npos,
                        const int32_t* bias, const int32_t* mult, const Requant& rq, int8_t* out) {
    if (block == 8) return fast::avx2::Avx2Depthwise<8>(w, block, r, npos, bias, mult, rq, out);
    if (block == 16) return fast::avx2::Avx2Depthwise<16>(w, block, r, npos, bias, mult, rq, out);
    fast::avx2::Avx2Depthwise<32>(w, block, r, npos, bias, mult, rq, out);
  }
};

struct VnniIsa {
  static size_t TileBytes(uint32_t block) { return fast::VnniTileBytes(block); }
  static constexpr uint8_t kInXor = 0x80;
  static constexpr uint32_t kInBytes = 1;
  static constexpr uint32_t kPairMaxBlock = 16;
  static constexpr bool kBiasAdjust = true;  // tile_pack.h VnniBiasAdjust, after the tiles
  static constexpr uint32_t kChunkBytes = fast::kVnniChunkBytes;
  static constexpr bool kDwQuads = true;
  static void DepthwisePlane(const Conv2dParams& p, uint32_t block, const int8_t* in,
                             const int8_t* w, const int32_t* bias, const int32_t* mult,
                             uint32_t real_c, uint8_t* scratch, int8_t* out) {
    fast::vnni::VnniDepthwisePlane(p, block, in, w, bias, mult, real_c, scratch, out);
  }
  static uint32_t MaxPos(uint32_t) { return fast::vnni::kMaxPos; }
  static void Rows(const uint8_t* packed, uint32_t block, const fast::ConvRows& r, uint32_t npos,
                   uint32_t nob, const int32_t* bias, const int32_t* mult, const Requant& rq,
                   int8_t* out) {
    fast::vnni::VnniRows(packed, block, r, npos, nob, bias, mult, rq, out);
  }
  static void Depthwise(const int8_t* w, uint32_t block, const fast::ConvRows& r, uint32_t npos,
                        const int32_t* bias, const int32_t* mult, const Requant& rq, int8_t* out) {
    fast::vnni::VnniDepthwise(w, block, r, npos, bias, mult, rq, out);
  }
};

}  // namespace
#endif

#if defined(__ARM_NEON)
namespace {

// The smlal rows (armv7 and aarch64; the sdot ones need a CPU check the baseline CPUs fail).
struct NeonIsa {
  static size_t TileBytes(uint32_t block) { return fast::NeonTileBytes(block); }
  static constexpr uint8_t kInXor = 0;
  static constexpr uint32_t kInBytes = 2;
  static constexpr uint32_t kPairMaxBlock = 0;
  static constexpr bool kBiasAdjust = false;
  static constexpr uint32_t kChunkBytes = 0;
  static constexpr bool kDwQuads = false;
  static uint32_t MaxPos(uint32_t block) {
    switch (fast::neon::SliceOf(block)) {
      case 4:
        return fast::neon::kSmlalPos<4>;
      case 8:
        return fast::neon::kSmlalPos<8>;
      default:
        return fast::neon::kSmlalPos<fast::neon::kWide>;
    }
  }
  static void Rows(const uint8_t* packed, uint32_t block, const fast::ConvRows& r, uint32_t npos,
                   uint32_t nob, const int32_t* bias, const int32_t* mult, const Requant& rq,
                   int8_t* out) {
    using fast::neon::RowsOf;
    using fast::neon::Smlal;
    switch (fast::neon::SliceOf(block)) {
      case 4:
        return RowsOf<Smlal, 4>(packed, block, r, npos, nob, bias, mult, rq, out);
      case 8:
        return RowsOf<Smlal, 8>(packed, block, r, npos, nob, bias, mult, rq, out);
      default:
        return RowsOf<Smlal, fast::neon::kWide>(packed, block, r, npos, nob, bias, mult, rq, out);
    }
  }
  static void Depthwise(const int8_t* w, uint32_t block, const fast::ConvRows& r, uint32_t npos,
                        const int32_t* bias, const int32_t* mult, const Requant& rq, int8_t* out) {
    using fast::neon::DwRowsOf;
    using fast::neon::SmlalDw;
    switch (fast::neon::SliceOf(block)) {
      case 4:
        return DwRowsOf<SmlalDw, 4>(w, block, r, npos, bias, mult, rq, out);
      case 8:
        return DwRowsOf<SmlalDw, 8>(w, block, r, npos, bias, mult, rq, out);
      default:
        return DwRowsOf<SmlalDw, fast::neon::kWide>(w, block, r, npos, bias, mult, rq, out);
    }
  }
};

}  // namespace
#endif

extern "C" {

void loom_k_conv2d(const int32_t* a, const int8_t* in, const int8_t* weights, const int32_t* bias,
                   const int32_t* mult, int8_t* out) {
  Blocking b;
  Conv2dParams p;
  abi::DecodeConv2d(a, &b, &p);
  body::Conv2d(b, p, in, weights, bias, mult, out);
}

#if defined(__x86_64__)
void loom_k_conv2d_rows_avx2(const int32_t* a, const int8_t* in, const uint8_t* packed,
                             const int8_t* weights, const int32_t* bias, const int32_t* mult,
                             int8_t* out, uint8_t* workspace) {
  Blocking b;
  Conv2dParams p;
  abi::DecodeConv2d(a, &b, &p);
  fast::Conv2dByRows<Avx2Isa>(b, p, in, packed, weights, bias, mult, out, workspace);
}

void loom_k_conv2d_rows_vnni(const int32_t* a, const int8_t* in, const uint8_t* packed,
                             const int8_t* weights, const int32_t* bias, const int32_t* mult,
                             int8_t* out, uint8_t* workspace) {
  Blocking b;
  Conv2dParams p;
  abi::DecodeConv2d(a, &b, &p);
  fast::Conv2dByRows<VnniIsa>(b, p, in, packed, weights, bias, mult, out, workspace);
}
#endif

#if defined(__ARM_NEON)
void loom_k_conv2d_rows_neon(const int32_t* a, const int8_t* in, const uint8_t* packed,
                             const int8_t* weights, const int32_t* bias, const int32_t* mult,
                             int8_t* out, uint8_t* workspace) {
  Blocking b;
  Conv2dParams p;
  abi::DecodeConv2d(a, &b, &p);
  fast::Conv2dByRows<NeonIsa>(b, p, in, packed, weights, bias, mult, out, workspace);
}
#endif

void loom_k_add(const int32_t* a, const int8_t* x, const int8_t* y, int8_t* out) {
  Blocking b;
  AddParams p;
  abi::DecodeAdd(a, &b, &p);
  body::Add(b, p, x, y, out);
}

void loom_k_mul(const int32_t* a, const int8_t* x, const int8_t* y, int8_t* out) {
  Blocking b;
  MulParams p;
  abi::DecodeMul(a, &b, &p);
  body::Mul(b, p, x, y, out);
}

void loom_k_max_pool(const int32_t* a, const int8_t* in, int8_t* out) {
  Blocking b;
  PoolParams p;
  abi::DecodeMaxPool(a, &b, &p);
  body::MaxPool(b, p, in, out);
}

void loom_k_avg_pool(const int32_t* a, const int32_t* mult_by_count, const int8_t* in,
                     int8_t* out) {
  Blocking b;
  AvgPoolParams p;
  abi::DecodeAvgPool(a, &b, &p);
  body::AvgPool(b, p, mult_by_count, in, out);
}

void loom_k_resize_nearest(const int32_t* a, const int8_t* in, int8_t* out) {
  Blocking b;
  ResizeParams p;
  abi::DecodeScaledPlane(a, &b, &p.shape, &p.factor_h, &p.factor_w);
  body::ResizeNearest(b, p, in, out);
}

void loom_k_zero_insert(const int32_t* a, const int8_t* in, int8_t* out) {
  Blocking b;
  ZeroInsertParams p;
  abi::DecodeScaledPlane(a, &b, &p.shape, &p.stride_h, &p.stride_w);
  body::ZeroInsert(b, p, in, out);
}

void loom_k_concat_into(const int32_t* a, const int8_t* in, int8_t* out) {
  Blocking b;
  ActShape os;
  uint32_t c_off = 0;
  ConcatInput input;
  abi::DecodeConcatInto(a, &b, &os, &c_off, &input);
  input.data = in;
  body::ConcatInto(b, os, c_off, input, out);
}

}  // extern "C"
