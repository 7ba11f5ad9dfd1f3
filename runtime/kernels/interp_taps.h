// What the resampling kernels (Resize, GridSample) share: the taps one output position reads
// along one axis, and Keys' cubic convolution kernel that weights the four cubic taps.
#ifndef LOOM_RUNTIME_KERNELS_INTERP_TAPS_H_
#define LOOM_RUNTIME_KERNELS_INTERP_TAPS_H_

#include <cmath>
#include <cstdint>

namespace loom::kernels {

constexpr int kMaxTaps = 4;  // 1 nearest, 2 linear, 4 cubic

// One axis of one output position: the taps' source indices (the kernel's own meaning for an
// index outside the input) and their weights.
struct Taps {
  int count = 0;
  int64_t index[kMaxTaps] = {};
  double weight[kMaxTaps] = {};
};

// Keys' cubic convolution kernel with coefficient `a` (-0.75 in ONNX, -0.5 in Keys' paper) at
// distance |s|: the weight of the tap at offset s from the sample point.
inline double KeysCubic(double a, double s) {
  s = std::fabs(s);
  if (s <= 1) return ((a + 2) * s - (a + 3)) * s * s + 1;
  if (s < 2) return ((a * s - 5 * a) * s + 8 * a) * s - 4 * a;
  return 0;
}

// The four cubic weights of a sample at fraction `frac` past tap 1 (taps at -1, 0, 1, 2).
inline void KeysCubicWeights(double a, double frac, double* w) {
  for (int k = 0; k < 4; ++k) w[k] = KeysCubic(a, frac - (k - 1));
}

}  // namespace loom::kernels

#endif  // LOOM_RUNTIME_KERNELS_INTERP_TAPS_H_
