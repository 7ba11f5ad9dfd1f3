// fast::MaxPool (fast.h): qops.h's MaxPool with every lane of a position at once. In the blocked
// layout one position's B x c bytes are contiguous, and a window's max is the same per lane, so
// the output position starts as a copy of its window's first real position and takes the max
// with the others 32 (AVX2 vpmaxsb, or two NEON vmax.s8) or 16 bytes at a time (NEON also 8); the
// reference walks the window once per lane. Max is exact, so only the order of comparisons changes
// and the bytes stay the same. Padding lanes (channels past C, batch rows past N) are written as 0,
// as the reference writes them, whatever the input holds there.
#include <algorithm>
#include <cstring>

#include "runtime/kernels/int8/fast/fast.h"
#include "runtime/kernels/int8/fast/pool_windows.h"
#include "runtime/kernels/int8/pool_internal.h"

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__ARM_NEON)
#include <arm_neon.h>
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
    ForEachWindowPosition(w, l, [&](const int8_t* v) LOOM_AVX2 {
      m = _mm256_max_epi8(m, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v)));
    });
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + l), m);
  }
  for (; l + 16 <= lanes; l += 16) {
    __m128i m = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w.first + l));
    ForEachWindowPosition(w, l, [&](const int8_t* v) LOOM_AVX2 {
      m = _mm_max_epi8(m, _mm_loadu_si128(reinterpret_cast<const __m128i*>(v)));
    });
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + l), m);
  }
  for (; l < lanes; ++l) {
    int8_t m = w.first[l];
    ForEachWindowPosition(w, l, [&](const int8_t* v) { m = std::max(m, *v); });
    out[l] = m;
  }
}
#elif defined(__ARM_NEON)
// Lanes in chunks of 32 bytes held in two q registers across the window, then 16, then 8, then
// the rest as the portable loop.
void MaxNeon(const Window& w, size_t lanes, int8_t* out) {
  size_t l = 0;
  for (; l + 32 <= lanes; l += 32) {
    int8x16_t m0 = vld1q_s8(w.first + l), m1 = vld1q_s8(w.first + l + 16);
    ForEachWindowPosition(w, l, [&](const int8_t* v) {
      m0 = vmaxq_s8(m0, vld1q_s8(v));
      m1 = vmaxq_s8(m1, vld1q_s8(v + 16));
    });
    vst1q_s8(out + l, m0);
    vst1q_s8(out + l + 16, m1);
  }
  for (; l + 16 <= lanes; l += 16) {
    int8x16_t m = vld1q_s8(w.first + l);
    ForEachWindowPosition(w, l, [&](const int8_t* v) { m = vmaxq_s8(m, vld1q_s8(v)); });
    vst1q_s8(out + l, m);
  }
  for (; l + 8 <= lanes; l += 8) {
    int8x8_t m = vld1_s8(w.first + l);
    ForEachWindowPosition(w, l, [&](const int8_t* v) { m = vmax_s8(m, vld1_s8(v)); });
    vst1_s8(out + l, m);
  }
  if (l == lanes) return;
  Window rest = w;
  rest.first += l;
  MaxPortable(rest, lanes - l, out + l);
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
#elif defined(__ARM_NEON)
  if ((path == KernelPath::kNeon || path == KernelPath::kNeonDot) && PathSupported(path)) {
    max = MaxNeon;
  }
#endif
  const size_t lanes = size_t{b.batch} * b.block;
  ForEachPoolWindow(b, p, in, out, [&](const Window& w, int8_t* o) { max(w, lanes, o); });
  return Status::Ok();
}

}  // namespace loom::kernels::q::fast
