// fast::MaxPool (fast.h): qops.h's MaxPool with every lane of a position at once. In the blocked
// layout one position's B x c bytes are contiguous, and a window's max is the same per lane, so
// the output position starts as a copy of its window's first real position and takes the max
// with the others 32 (AVX2 vpmaxsb) or 16 bytes at a time; the reference walks the window once
// per lane. Max is exact, so only the order of comparisons changes and the bytes stay the same.
// Padding lanes (channels past C, batch rows past N) are written as 0, as the reference writes
// them, whatever the input holds there.
#include <algorithm>
#include <cstring>

#include "runtime/kernels/int8/fast/fast.h"
#include "runtime/kernels/int8/fast/pool_windows.h"
#include "runtime/kernels/int8/pool_internal.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace loom::kernels::q::fast {
namespace {

// One output position: out[l] = max over the window's real positions of in[l], l < lanes.
using Window = PoolWindow;

void MaxPortable(const Window& w, size_t lanes, int8_t* __restrict out) {
  std::memcpy(out, w.first, lanes);
  for (uint32_t y = 0; y < w.rows; ++y)
    for (uint32_t x = y == 0 ? 1 : 0; x < w.cols; ++x) {
      const int8_t* __restrict v = w.first + y * w.row_step + x * w.pos_step;
      for (size_t l = 0; l < lanes; ++l) out[l] = v[l] > out[l] ? v[l] : out[l];
    }
}

#if defined(__x86_64__)
#define LOOM_AVX2 __attribute__((target("avx2")))

// Lanes in chunks of 32 bytes held in a ymm across the window, then 16, then one at a time.
LOOM_AVX2 void MaxAvx2(const Window& w, size_t lanes, int8_t* out) {
  size_t l = 0;
  for (; l + 32 <= lanes; l += 32) {
    __m256i m = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.first + l));
    for (uint32_t y = 0; y < w.rows; ++y) {
      const int8_t* row = w.first + y * w.row_step + l;
      for (uint32_t x = 0; x < w.cols; ++x) {
        const auto* v = reinterpret_cast<const __m256i*>(row + x * w.pos_step);
        m = _mm256_max_epi8(m, _mm256_loadu_si256(v));
      }
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + l), m);
  }
  for (; l + 16 <= lanes; l += 16) {
    __m128i m = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w.first + l));
    for (uint32_t y = 0; y < w.rows; ++y) {
      const int8_t* row = w.first + y * w.row_step + l;
      for (uint32_t x = 0; x < w.cols; ++x) {
        const auto* v = reinterpret_cast<const __m128i*>(row + x * w.pos_step);
        m = _mm_max_epi8(m, _mm_loadu_si128(v));
      }
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + l), m);
  }
  for (; l < lanes; ++l) {
    int8_t m = w.first[l];
    for (uint32_t y = 0; y < w.rows; ++y)
      for (uint32_t x = 0; x < w.cols; ++x)
        m = std::max(m, w.first[y * w.row_step + x * w.pos_step + l]);
    out[l] = m;
  }
}
#endif

}  // namespace

Status MaxPool(KernelPath path, const Blocking& b, const PoolParams& p, const int8_t* in,
               int8_t* out) {
  if (path == KernelPath::kReference) return q::MaxPool(b, p, in, out);
  LOOM_RETURN_IF_ERROR(internal::CheckPool(b, p, in, out, "MaxPool"));
  void (*max)(const Window&, size_t, int8_t*) = MaxPortable;
#if defined(__x86_64__)
  if ((path == KernelPath::kAvx2 || path == KernelPath::kAvx512Vnni) && PathSupported(path)) {
    max = MaxAvx2;
  }
#endif
  const size_t lanes = size_t{b.batch} * b.block;
  ForEachPoolWindow(b, p, in, out, [&](const Window& w, int8_t* o) { max(w, lanes, o); });
  return Status::Ok();
}

}  // namespace loom::kernels::q::fast
