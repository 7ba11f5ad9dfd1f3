// F(2x2, 3x3) of winograd.h. With B, G, A the transforms of Lavin and Gray:
//   U = G g G^T (4x4 per output/input channel pair), V = B^T d B (4x4 per input tile and
//   channel), M_e = U_e V_e summed over channels (16 sgemms, e the position in the 4x4 tile),
//   y = A^T M A (2x2 per output tile and channel).
#include "compiler/interp/winograd.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "compiler/interp/interpreter.h"

#if LOOM_HAVE_BLAS
#include <cblas.h>
#endif

namespace loom::interp {
namespace {

// c[m x n] = a[m x k] * b[k x n], row-major.
void Gemm(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c) {
#if LOOM_HAVE_BLAS
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
              static_cast<int>(k), 1.0f, a, static_cast<int>(k), b, static_cast<int>(n), 0.0f, c,
              static_cast<int>(n));
#else
  for (int64_t i = 0; i < m; ++i) {
    float* row = c + i * n;
    std::fill(row, row + n, 0.0f);
    for (int64_t p = 0; p < k; ++p) {
      const float av = a[i * k + p];
      const float* brow = b + p * n;
      for (int64_t j = 0; j < n; ++j) row[j] += av * brow[j];
    }
  }
#endif
}

// Transformed weights by (address, m, c), while a ReuseConstantWork lives on this thread.
using WeightCache = std::map<std::tuple<const float*, int64_t, int64_t>, std::vector<float>>;
thread_local WeightCache* weight_cache = nullptr;

// The transforms work on kLanes tiles (or filters) at once in fixed-length loops, which GCC's -O2
// vectorizer takes; the 16 results of each go to 16 planes, contiguous along the tiles.
constexpr int kLanes = 16;

// u[e][m][c] = (G g G^T)[e] for every filter g = w[m][c].
void TransformWeights(const Winograd3x3Shape& s, const float* w, float* u) {
  const int64_t plane = s.m * s.c;
  for (int64_t f0 = 0; f0 < plane; f0 += kLanes) {
    const int64_t n = std::min<int64_t>(kLanes, plane - f0);
    float g[9][kLanes] = {};
    for (int64_t l = 0; l < n; ++l)
      for (int k = 0; k < 9; ++k) g[k][l] = w[(f0 + l) * 9 + k];
    float q[4][3][kLanes];  // G g
    for (int j = 0; j < 3; ++j) {
      for (int l = 0; l < kLanes; ++l) {
        q[0][j][l] = g[j][l];
        q[1][j][l] = 0.5f * (g[j][l] + g[3 + j][l] + g[6 + j][l]);
        q[2][j][l] = 0.5f * (g[j][l] - g[3 + j][l] + g[6 + j][l]);
        q[3][j][l] = g[6 + j][l];
      }
    }
    float out[16][kLanes];  // (G g) G^T
    for (int i = 0; i < 4; ++i) {
      for (int l = 0; l < kLanes; ++l) {
        out[i * 4 + 0][l] = q[i][0][l];
        out[i * 4 + 1][l] = 0.5f * (q[i][0][l] + q[i][1][l] + q[i][2][l]);
        out[i * 4 + 2][l] = 0.5f * (q[i][0][l] - q[i][1][l] + q[i][2][l]);
        out[i * 4 + 3][l] = q[i][2][l];
      }
    }
    for (int e = 0; e < 16; ++e) std::copy(out[e], out[e] + n, u + e * plane + f0);
  }
}

// v[e][c][t] = (B^T d B)[e] for every input tile d (tile t = ty * tw + tx reads rows 2ty - pt ...
// + 3 and columns 2tx - pl ... + 3 of plane c, 0 outside).
void TransformInput(const Winograd3x3Shape& s, int64_t th, int64_t tw, const float* x, float* v) {
  const int64_t tiles = th * tw, plane = s.c * tiles;
  const int64_t chunks = (tw + kLanes - 1) / kLanes;
  // Four input rows with their padding made explicit, long enough for whole chunks.
  const int64_t row_len = 2 * chunks * kLanes + 2;
  float* rows = Scratch(3, static_cast<size_t>(4 * row_len));
  for (int64_t c = 0; c < s.c; ++c) {
    const float* xc = x + c * s.h * s.w;
    for (int64_t ty = 0; ty < th; ++ty) {
      for (int i = 0; i < 4; ++i) {
        float* r = rows + i * row_len;
        std::fill(r, r + row_len, 0.0f);
        const int64_t iy = 2 * ty - s.pt + i;
        if (iy < 0 || iy >= s.h) continue;
        // Column ix of the input is r[ix + pl].
        const int64_t lo = std::max<int64_t>(0, -s.pl), hi = std::min(s.w, row_len - s.pl);
        if (hi > lo) std::copy(xc + iy * s.w + lo, xc + iy * s.w + hi, r + lo + s.pl);
      }
      for (int64_t k = 0; k < chunks; ++k) {
        const int64_t tx0 = k * kLanes, n = std::min<int64_t>(kLanes, tw - tx0);
        float d[4][4][kLanes];
        for (int i = 0; i < 4; ++i) {
          const float* r = rows + i * row_len + 2 * tx0;
          for (int j = 0; j < 4; ++j)
            for (int l = 0; l < kLanes; ++l) d[i][j][l] = r[2 * l + j];
        }
        float b[4][4][kLanes];  // B^T d
        for (int j = 0; j < 4; ++j) {
          for (int l = 0; l < kLanes; ++l) {
            b[0][j][l] = d[0][j][l] - d[2][j][l];
            b[1][j][l] = d[1][j][l] + d[2][j][l];
            b[2][j][l] = d[2][j][l] - d[1][j][l];
            b[3][j][l] = d[1][j][l] - d[3][j][l];
          }
        }
        float out[16][kLanes];  // (B^T d) B
        for (int i = 0; i < 4; ++i) {
          for (int l = 0; l < kLanes; ++l) {
            out[i * 4 + 0][l] = b[i][0][l] - b[i][2][l];
            out[i * 4 + 1][l] = b[i][1][l] + b[i][2][l];
            out[i * 4 + 2][l] = b[i][2][l] - b[i][1][l];
            out[i * 4 + 3][l] = b[i][1][l] - b[i][3][l];
          }
        }
        float* dst = v + c * tiles + ty * tw + tx0;
        for (int e = 0; e < 16; ++e) std::copy(out[e], out[e] + n, dst + e * plane);
      }
    }
  }
}

// y = A^T M A + bias per output tile, cropped to oh x ow.
void TransformOutput(const Winograd3x3Shape& s, int64_t th, int64_t tw, const float* mm,
                     const float* bias, float* y) {
  const int64_t tiles = th * tw, plane = s.m * tiles;
  for (int64_t m = 0; m < s.m; ++m) {
    const float bv = bias != nullptr ? bias[m] : 0.0f;
    float* ym = y + m * s.oh * s.ow;
    for (int64_t ty = 0; ty < th; ++ty) {
      for (int64_t tx0 = 0; tx0 < tw; tx0 += kLanes) {
        const int64_t n = std::min<int64_t>(kLanes, tw - tx0);
        float e[16][kLanes] = {};
        const float* src = mm + m * tiles + ty * tw + tx0;
        for (int k = 0; k < 16; ++k) std::copy(src + k * plane, src + k * plane + n, e[k]);
        float r[2][4][kLanes];  // A^T M
        for (int j = 0; j < 4; ++j) {
          for (int l = 0; l < kLanes; ++l) {
            r[0][j][l] = e[j][l] + e[4 + j][l] + e[8 + j][l];
            r[1][j][l] = e[4 + j][l] - e[8 + j][l] - e[12 + j][l];
          }
        }
        float out[2][2 * kLanes];  // (A^T M) A + bias, the two output rows of the tiles
        for (int i = 0; i < 2; ++i) {
          for (int l = 0; l < kLanes; ++l) {
            out[i][2 * l] = bv + (r[i][0][l] + r[i][1][l] + r[i][2][l]);
            out[i][2 * l + 1] = bv + (r[i][1][l] - r[i][2][l] - r[i][3][l]);
          }
        }
        const int64_t ox = 2 * tx0, cols = std::min(2 * n, s.ow - ox);
        for (int i = 0; i < 2 && 2 * ty + i < s.oh; ++i) {
          std::copy(out[i], out[i] + cols, ym + (2 * ty + i) * s.ow + ox);
        }
      }
    }
  }
}

}  // namespace

float* Scratch(int slot, size_t count) {
  thread_local std::vector<float> buffers[kScratchSlots];
  std::vector<float>& b = buffers[slot];
  if (b.size() < count) b.resize(count);
  return b.data();
}

ReuseConstantWork::ReuseConstantWork() : outermost_(weight_cache == nullptr) {
  if (outermost_) weight_cache = new WeightCache;
}

ReuseConstantWork::~ReuseConstantWork() {
  if (outermost_) {
    delete weight_cache;
    weight_cache = nullptr;
  }
}

bool WinogradPays(const Winograd3x3Shape& s) {
  // Measured per layer of ResNet-18 against im2col + sgemm (docs/cpu.md): the 16 products are
  // [M x C] x [C x tiles], and sgemm runs them near its peak only when both C and the tile count
  // are large; 128 channels on 28x28 (196 tiles) gain a third, 64 channels on 56x56 and 256 on
  // 14x14 (49 tiles) lose.
  const int64_t tiles = ((s.oh + 1) / 2) * ((s.ow + 1) / 2);
  return tiles >= 32 && s.c >= 64 && s.m >= 64;
}

void Winograd3x3(const Winograd3x3Shape& s, const float* x, const float* w, const float* bias,
                 float* y, bool constant_w) {
  const int64_t th = (s.oh + 1) / 2, tw = (s.ow + 1) / 2, tiles = th * tw;
  const size_t u_size = static_cast<size_t>(16 * s.m * s.c);
  float* u = nullptr;
  if (weight_cache != nullptr && constant_w) {
    auto [it, added] = weight_cache->try_emplace({w, s.m, s.c});
    if (added) {
      it->second.resize(u_size);
      TransformWeights(s, w, it->second.data());
    }
    u = it->second.data();
  } else {
    u = Scratch(0, u_size);
    TransformWeights(s, w, u);
  }
  float* v = Scratch(1, static_cast<size_t>(16 * s.c * tiles));
  float* mm = Scratch(2, static_cast<size_t>(16 * s.m * tiles));
  TransformInput(s, th, tw, x, v);
  for (int e = 0; e < 16; ++e) {
    Gemm(s.m, tiles, s.c, u + e * s.m * s.c, v + e * s.c * tiles, mm + e * s.m * tiles);
  }
  TransformOutput(s, th, tw, mm, bias, y);
}

}  // namespace loom::interp
