// The reference kernels of the vision/normalization family (issue 12): ConvTranspose, Resize,
// LayerNormalization, InstanceNormalization, LRN and GlobalMaxPool. Same contract as kernels.h
// (caller-provided outputs of their final shape, no allocation, resolved attributes); kept in a
// header of their own so the op families grow without editing each other's declarations.
#ifndef LOOM_RUNTIME_KERNELS_KERNELS_VISION_H_
#define LOOM_RUNTIME_KERNELS_KERNELS_VISION_H_

#include <cstdint>

#include "runtime/core/status.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/tensor.h"

namespace loom::kernels {

// conv_transpose.cc — ONNX ConvTranspose on f32 over N-D inputs [N, C, D1..Ds]: weights
// [C, M/group, K1..Ks], bias [M] optional, output [N, M, O1..Os] taken from y. Input cell i with
// tap k lands on output cell i * stride + k * dilation - pads_begin (cells outside [0, O) are
// dropped), so pads_end and output_padding are already in y's shape.
Status ConvTranspose(const ConvParams& p, const TensorView& x, const TensorView& w,
                     const TensorView* bias, const TensorView& y);

// resize.cc — ONNX Resize (opset 11..18) / Upsample on f32, any rank. The output shape comes from
// y; `scales` (per dim, output / input) drive the coordinate transforms; `roi` [2 * rank] (starts,
// then ends, normalized) is read by tf_crop_and_resize only. Out-of-range taps read the edge
// value (as ONNX's reference pads), except that tf_crop_and_resize fills a cell whose source lies
// outside the input with extrapolation_value.
enum class ResizeMode : uint8_t { kNearest = 0, kLinear = 1, kCubic = 2 };
enum class ResizeCoord : uint8_t {
  kHalfPixel = 0,
  kAsymmetric = 1,
  kPytorchHalfPixel = 2,
  kTfHalfPixelForNn = 3,
  kAlignCorners = 4,
  kTfCropAndResize = 5,
  kHalfPixelSymmetric = 6,
};
enum class ResizeNearest : uint8_t {
  kRoundPreferFloor = 0,
  kRoundPreferCeil = 1,
  kFloor = 2,
  kCeil = 3
};
struct ResizeParams {
  ResizeMode mode = ResizeMode::kNearest;
  ResizeCoord coord = ResizeCoord::kHalfPixel;
  ResizeNearest nearest = ResizeNearest::kRoundPreferFloor;
  float cubic_coeff_a = -0.75f;
  bool exclude_outside = false;
  float extrapolation_value = 0.0f;
  double scales[kMaxRank] = {1, 1, 1, 1, 1, 1, 1, 1};
  double roi_start[kMaxRank] = {};
  double roi_end[kMaxRank] = {1, 1, 1, 1, 1, 1, 1, 1};
};
Status Resize(const ResizeParams& p, const TensorView& x, const TensorView& y);

// layer_norm.cc — ONNX LayerNormalization on f32: each x[i, ...] over dims [axis, rank) is
// normalized to (x - mean) / sqrt(var + epsilon) * scale + bias, scale and bias (optional)
// broadcast to x.shape[axis:]. mean and inv_std_dev (optional) have x's shape with 1 from axis on.
// Statistics are accumulated in double.
Status LayerNorm(const TensorView& x, const TensorView& scale, const TensorView* bias, int axis,
                 float epsilon, const TensorView& y, const TensorView* mean,
                 const TensorView* inv_std_dev);

// instance_norm.cc — ONNX InstanceNormalization on f32: each [n, c] plane normalized over its
// spatial dims, then * scale[c] + bias[c].
Status InstanceNorm(const TensorView& x, const TensorView& scale, const TensorView& bias,
                    float epsilon, const TensorView& y);

// lrn.cc — ONNX LRN (across channels) on f32 [N, C, ...]: y = x / (bias + alpha / size *
// sum of x^2 over channels [c - (size - 1) / 2, c + ceil((size - 1) / 2)]) ^ beta.
struct LrnParams {
  int64_t size = 1;
  float alpha = 1e-4f;
  float beta = 0.75f;
  float bias = 1.0f;
};
Status Lrn(const LrnParams& p, const TensorView& x, const TensorView& y);

// global_max_pool.cc — f32 max over all spatial dims: [N, C, ...] -> [N, C, 1, ...].
Status GlobalMaxPool(const TensorView& x, const TensorView& y);

}  // namespace loom::kernels

#endif  // LOOM_RUNTIME_KERNELS_KERNELS_VISION_H_
