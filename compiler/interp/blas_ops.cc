// The BLAS paths of blas_ops.h. Shape checks stay with the reference kernels: whenever a case is
// not plainly valid, *done stays false and the reference runs, with its messages.
#include "compiler/interp/blas_ops.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "compiler/interp/winograd.h"
#include "runtime/kernels/conv_common.h"
#include "runtime/kernels/matmul_common.h"

#if LOOM_HAVE_BLAS
#include <cblas.h>
#endif

namespace loom::interp {

using kernels::TensorView;

#if LOOM_HAVE_BLAS
namespace {

// One thread unless LOOM_BLAS_THREADS says otherwise: calibration may run beside other work, and
// the measurements of docs/cpu.md are per core.
void SetUpBlasOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    int threads = 1;
    if (const char* s = std::getenv("LOOM_BLAS_THREADS")) {
      const int v = std::atoi(s);
      if (v > 0) threads = v;
    }
    openblas_set_num_threads(threads);
  });
}

bool AllF32(const TensorView& a, const TensorView& b, const TensorView& y) {
  return a.dtype == DType::kF32 && b.dtype == DType::kF32 && y.dtype == DType::kF32;
}

// sgemm takes int sizes; empty products are left to the reference (no BLAS call to reason about).
bool GemmSizes(int64_t m, int64_t n, int64_t k) {
  constexpr int64_t kMax = 1 << 30;
  return m > 0 && n > 0 && k > 0 && m < kMax && n < kMax && k < kMax;
}

// col[(c * kh + ky) * kw + kx][oy * ow + ox] = x[c][oy * sh + ky * dh - pt][ox * sw + kx * dw -
// pl], 0 in the padding. x is one image's `channels` planes. The columns whose input is real are
// one range per kx, computed once, so the copy has no per-element test (a tenth of a calibration
// image's time with one).
void Im2Col(const kernels::ConvParams& p, const float* x, int64_t channels, int64_t h, int64_t w,
            int64_t kh, int64_t kw, int64_t oh, int64_t ow, float* col) {
  const int64_t sh = p.strides[0], sw = p.strides[1], dh = p.dilations[0], dw = p.dilations[1];
  const int64_t pt = p.pads_begin[0], pl = p.pads_begin[1];
  for (int64_t c = 0; c < channels; ++c) {
    const float* plane = x + c * h * w;
    for (int64_t ky = 0; ky < kh; ++ky) {
      for (int64_t kx = 0; kx < kw; ++kx, col += oh * ow) {
        // ox in [lo, hi) reads ix = ox * sw + off inside [0, w).
        const int64_t off = kx * dw - pl;
        const int64_t lo = std::min(ow, off >= 0 ? 0 : (-off + sw - 1) / sw);
        const int64_t hi = std::max(lo, std::min(ow, w - off <= 0 ? 0 : (w - off - 1) / sw + 1));
        for (int64_t oy = 0; oy < oh; ++oy) {
          const int64_t iy = oy * sh + ky * dh - pt;
          float* dst = col + oy * ow;
          if (iy < 0 || iy >= h) {
            std::fill(dst, dst + ow, 0.0f);
            continue;
          }
          const float* row = plane + iy * w;
          std::fill(dst, dst + lo, 0.0f);
          if (sw == 1) {
            std::copy(row + lo + off, row + hi + off, dst + lo);
          } else {
            for (int64_t ox = lo; ox < hi; ++ox) dst[ox] = row[ox * sw + off];
          }
          std::fill(dst + hi, dst + ow, 0.0f);
        }
      }
    }
  }
}

}  // namespace

bool HaveBlas() { return true; }

Status BlasConv(const kernels::ConvParams& p, const TensorView& x, const TensorView& w,
                const TensorView* bias, const TensorView& y, bool constant_w, bool* done) {
  *done = false;
  if (p.spatial != 2 || !AllF32(x, w, y) || p.group < 1) return Status::Ok();
  if (!kernels::internal::CheckConvShapes(p, x, w, y).ok()) return Status::Ok();
  if (bias != nullptr && (bias->dtype != DType::kF32 || bias->NumElements() != w.shape[0])) {
    return Status::Ok();
  }
  SetUpBlasOnce();
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], wd = x.shape[3];
  const int64_t m = w.shape[0], kh = w.shape[2], kw = w.shape[3];
  const int64_t oh = y.shape[2], ow = y.shape[3], g = p.group;
  const int64_t cg = c / g, mg = m / g, k = cg * kh * kw, hw = oh * ow;
  const bool direct = kh == 1 && kw == 1 && p.strides[0] == 1 && p.strides[1] == 1 &&
                      p.pads_begin[0] == 0 && p.pads_begin[1] == 0 && p.pads_end[0] == 0 &&
                      p.pads_end[1] == 0;
  if (!GemmSizes(mg, hw, k) || n == 0) return Status::Ok();
  Winograd3x3Shape ws;
  ws.c = c, ws.h = h, ws.w = wd, ws.m = m, ws.oh = oh, ws.ow = ow;
  ws.pt = p.pads_begin[0], ws.pl = p.pads_begin[1];
  if (g == 1 && kh == 3 && kw == 3 && p.strides[0] == 1 && p.strides[1] == 1 &&
      p.dilations[0] == 1 && p.dilations[1] == 1 && WinogradPays(ws)) {
    for (int64_t i = 0; i < n; ++i) {
      Winograd3x3(ws, x.As<const float>() + i * c * h * wd, w.As<const float>(),
                  bias != nullptr ? bias->As<const float>() : nullptr, y.As<float>() + i * m * hw,
                  constant_w);
    }
    *done = true;
    return Status::Ok();
  }
  float* col = direct ? nullptr : Scratch(0, static_cast<size_t>(k * hw));
  const float* xd = x.As<const float>();
  const float* wd_ = w.As<const float>();
  const float* bd = bias != nullptr ? bias->As<const float>() : nullptr;
  float* yd = y.As<float>();
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t gi = 0; gi < g; ++gi) {
      const float* xg = xd + (i * c + gi * cg) * h * wd;
      const float* b = xg;
      if (!direct) {
        Im2Col(p, xg, cg, h, wd, kh, kw, oh, ow, col);
        b = col;
      }
      float* yg = yd + (i * m + gi * mg) * hw;
      // The bias first, then y = W * col + y: one pass over y fewer than adding it after.
      for (int64_t o = 0; o < mg; ++o) {
        const float v = bd != nullptr ? bd[gi * mg + o] : 0.0f;
        for (int64_t j = 0; j < hw; ++j) yg[o * hw + j] = v;
      }
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(mg),
                  static_cast<int>(hw), static_cast<int>(k), 1.0f, wd_ + gi * mg * k,
                  static_cast<int>(k), b, static_cast<int>(hw), 1.0f, yg, static_cast<int>(hw));
    }
  }
  *done = true;
  return Status::Ok();
}

Status BlasGemm(const kernels::GemmParams& p, const TensorView& a, const TensorView& b,
                const TensorView* c, const TensorView& y, bool* done) {
  *done = false;
  if (!AllF32(a, b, y) || a.rank != 2 || b.rank != 2 || y.rank != 2) return Status::Ok();
  // beta == 0 with a C: the reference still computes 0 * c (NaN for an infinite c); sgemm would
  // not read it.
  if (c != nullptr && (c->dtype != DType::kF32 || c->rank > 2 || p.beta == 0.0f)) {
    return Status::Ok();
  }
  const int64_t m = p.trans_a ? a.shape[1] : a.shape[0];
  const int64_t k = p.trans_a ? a.shape[0] : a.shape[1];
  const int64_t kb = p.trans_b ? b.shape[1] : b.shape[0];
  const int64_t n = p.trans_b ? b.shape[0] : b.shape[1];
  if (k != kb || y.shape[0] != m || y.shape[1] != n || !GemmSizes(m, n, k)) return Status::Ok();
  int64_t c_rs = 0, c_cs = 0;
  if (c != nullptr) {
    // C's last dims right-aligned against [M, N]; each 1 (broadcast) or equal.
    const int64_t cm = c->rank == 2 ? c->shape[0] : 1;
    const int64_t cn = c->rank >= 1 ? c->shape[c->rank - 1] : 1;
    if ((cm != 1 && cm != m) || (cn != 1 && cn != n)) return Status::Ok();
    c_cs = cn == 1 ? 0 : 1;
    c_rs = cm == 1 ? 0 : cn;
  }
  SetUpBlasOnce();
  float* yd = y.As<float>();
  if (c != nullptr) {
    const float* cd = c->As<const float>();
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) yd[i * n + j] = cd[i * c_rs + j * c_cs];
  }
  cblas_sgemm(CblasRowMajor, p.trans_a ? CblasTrans : CblasNoTrans,
              p.trans_b ? CblasTrans : CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
              static_cast<int>(k), p.alpha, a.As<const float>(), static_cast<int>(a.shape[1]),
              b.As<const float>(), static_cast<int>(b.shape[1]), c != nullptr ? p.beta : 0.0f, yd,
              static_cast<int>(n));
  *done = true;
  return Status::Ok();
}

Status BlasMatMul(const TensorView& a, const TensorView& b, const TensorView& y, bool* done) {
  *done = false;
  if (!AllF32(a, b, y)) return Status::Ok();
  kernels::internal::MatMulGeometry g;
  if (!kernels::internal::PlanMatMul(a, b, y, &g).ok() || !GemmSizes(g.m, g.n, g.k)) {
    return Status::Ok();
  }
  SetUpBlasOnce();
  int64_t batches = 1;
  for (int i = 0; i < g.batch_rank; ++i) batches *= g.batch[i];
  const float* ad = a.As<const float>();
  const float* bd = b.As<const float>();
  float* yd = y.As<float>();
  for (int64_t bi = 0; bi < batches; ++bi) {
    // The batch index's digits give each operand's matrix (stride 0 where it broadcasts).
    int64_t rest = bi, ai = 0, bj = 0;
    for (int d = g.batch_rank - 1; d >= 0; --d) {
      const int64_t idx = rest % g.batch[d];
      rest /= g.batch[d];
      ai += idx * g.a_batch_strides[d];
      bj += idx * g.b_batch_strides[d];
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(g.m),
                static_cast<int>(g.n), static_cast<int>(g.k), 1.0f, ad + ai * g.m * g.k,
                static_cast<int>(g.k), bd + bj * g.k * g.n, static_cast<int>(g.n), 0.0f,
                yd + bi * g.m * g.n, static_cast<int>(g.n));
  }
  *done = true;
  return Status::Ok();
}

#else  // no BLAS in this build: the reference kernels run.

bool HaveBlas() { return false; }

Status BlasConv(const kernels::ConvParams&, const TensorView&, const TensorView&, const TensorView*,
                const TensorView&, bool, bool* done) {
  *done = false;
  return Status::Ok();
}

Status BlasGemm(const kernels::GemmParams&, const TensorView&, const TensorView&, const TensorView*,
                const TensorView&, bool* done) {
  *done = false;
  return Status::Ok();
}

Status BlasMatMul(const TensorView&, const TensorView&, const TensorView&, bool* done) {
  *done = false;
  return Status::Ok();
}

#endif

}  // namespace loom::interp
