// ONNX Det: the determinant of each trailing M x M matrix, by LU decomposition with partial
// pivoting in double (a copy of the matrix in the caller's scratch).
#include <cmath>
#include <string>
#include <utility>

#include "runtime/kernels/kernels_seq.h"

namespace loom::kernels {

Status Det(const TensorView& x, const TensorView& y, double* scratch) {
  const int r = x.rank;
  bool ok = x.dtype == DType::kF32 && y.dtype == DType::kF32 && r >= 2 &&
            x.shape[r - 1] == x.shape[r - 2] && y.rank == r - 2;
  for (int d = 0; ok && d < r - 2; ++d) ok = x.shape[d] == y.shape[d];
  if (!ok) {
    char xs[96], ys[96];
    return InvalidArgument("det: x " + std::string(FormatShape(x, xs, sizeof xs)) +
                           " must be f32 [..., M, M] and y " + FormatShape(y, ys, sizeof ys) +
                           " its leading dims");
  }
  const int64_t m = x.shape[r - 1];
  const int64_t count = y.NumElements();
  for (int64_t k = 0; k < count; ++k) {
    const float* a = x.As<float>() + k * m * m;
    for (int64_t i = 0; i < m * m; ++i) scratch[i] = a[i];
    double det = 1.0;
    for (int64_t c = 0; c < m && det != 0.0; ++c) {
      int64_t pivot = c;
      for (int64_t i = c + 1; i < m; ++i) {
        if (std::fabs(scratch[i * m + c]) > std::fabs(scratch[pivot * m + c])) pivot = i;
      }
      if (scratch[pivot * m + c] == 0.0) {
        det = 0.0;
        break;
      }
      if (pivot != c) {
        for (int64_t j = 0; j < m; ++j) std::swap(scratch[c * m + j], scratch[pivot * m + j]);
        det = -det;
      }
      const double d = scratch[c * m + c];
      det *= d;
      for (int64_t i = c + 1; i < m; ++i) {
        const double f = scratch[i * m + c] / d;
        for (int64_t j = c + 1; j < m; ++j) scratch[i * m + j] -= f * scratch[c * m + j];
      }
    }
    y.As<float>()[k] = static_cast<float>(det);
  }
  return Status::Ok();
}

}  // namespace loom::kernels
