// The reference kernels of the detection/vision family (issue 12, second part): GridSample,
// RoiAlign, NonMaxSuppression, Unique, and BatchNormalization's training mode. Same contract as
// kernels.h (caller-provided outputs of their final shape, no allocation, resolved attributes).
// NonMaxSuppression and Unique have outputs whose length depends on the data: each has a counting
// entry point the compiler's shape function calls on constant inputs, and the kernel itself checks
// y's length against it.
#ifndef LOOM_RUNTIME_KERNELS_KERNELS_VISION2_H_
#define LOOM_RUNTIME_KERNELS_KERNELS_VISION2_H_

#include <cstdint>

#include "runtime/core/status.h"
#include "runtime/kernels/tensor.h"

namespace loom::kernels {

// grid_sample.cc — ONNX GridSample (opset 16) on f32: x [N, C, H, W], grid [N, Ho, Wo, 2] of
// normalized (x, y) positions in [-1, 1], y [N, C, Ho, Wo]. Interpolation is separable per
// axis (1, 2 or 4 taps); padding decides what a tap outside the image reads.
enum class GridSampleMode : uint8_t { kNearest = 0, kLinear = 1, kCubic = 2 };
enum class GridSamplePadding : uint8_t { kZeros = 0, kBorder = 1, kReflection = 2 };
struct GridSampleParams {
  GridSampleMode mode = GridSampleMode::kLinear;
  GridSamplePadding padding = GridSamplePadding::kZeros;
  bool align_corners = false;
};
Status GridSample(const GridSampleParams& p, const TensorView& x, const TensorView& grid,
                  const TensorView& y);
// From the IR's / a FloatOp's attributes (mode, padding_mode, align_corners as codes), checked:
// one place for the interpreter and the package's CPU segments.
template <typename Attrs>
Status GridSampleParamsFrom(const Attrs& a, GridSampleParams* p) {
  const int64_t mode = a.GetInt("mode", 1), padding = a.GetInt("padding_mode", 0),
                align = a.GetInt("align_corners", 0);
  if (mode < 0 || mode > 2 || padding < 0 || padding > 2 || align < 0 || align > 1) {
    return InvalidArgument(
        "GridSample: mode {}, padding_mode {} or align_corners {} is not a known code", mode,
        padding, align);
  }
  p->mode = static_cast<GridSampleMode>(mode);
  p->padding = static_cast<GridSamplePadding>(padding);
  p->align_corners = align != 0;
  return Status::Ok();
}

// roi_align.cc — ONNX RoiAlign (opset 16) on f32: x [N, C, H, W], rois [R, 4] (x1, y1, x2, y2 in
// input coordinates before spatial_scale), batch_indices [R] (i32 or i64), y [R, C, Ho, Wo].
// Each output bin averages (kAvg) or takes the maximum (kMax) of sampling_ratio^2 bilinear
// samples (sampling_ratio 0: ceil(roi size / output size) per axis). `half_pixel` is
// coordinate_transformation_mode=half_pixel (shift by -0.5, no minimum roi size of 1).
enum class RoiAlignMode : uint8_t { kAvg = 0, kMax = 1 };
struct RoiAlignParams {
  RoiAlignMode mode = RoiAlignMode::kAvg;
  bool half_pixel = true;
  int64_t sampling_ratio = 0;
  float spatial_scale = 1.0f;
};
Status RoiAlign(const RoiAlignParams& p, const TensorView& x, const TensorView& rois,
                const TensorView& batch_indices, const TensorView& y);
// From the IR's / a FloatOp's attributes (mode, half_pixel, sampling_ratio, spatial_scale).
template <typename Attrs>
Status RoiAlignParamsFrom(const Attrs& a, RoiAlignParams* p) {
  const int64_t mode = a.GetInt("mode", 0), half = a.GetInt("half_pixel", 1);
  p->sampling_ratio = a.GetInt("sampling_ratio", 0);
  if (mode < 0 || mode > 1 || half < 0 || half > 1 || p->sampling_ratio < 0) {
    return InvalidArgument("RoiAlign: mode, half_pixel or sampling_ratio is out of range");
  }
  p->mode = static_cast<RoiAlignMode>(mode);
  p->half_pixel = half != 0;
  p->spatial_scale = a.GetFloat("spatial_scale", 1.0f);
  return Status::Ok();
}

// batch_norm_training.cc — ONNX BatchNormalization with training_mode=1 on f32: y normalized with
// the batch's statistics (per channel over N and the spatial dims; population variance), and the
// running statistics mean * momentum + batch_mean * (1 - momentum) (likewise var), each optional.
Status BatchNormTraining(const TensorView& x, const TensorView& scale, const TensorView& bias,
                         const TensorView& mean, const TensorView& var, float epsilon,
                         float momentum, const TensorView& y, const TensorView* running_mean,
                         const TensorView* running_var);

// non_max_suppression.cc — ONNX NonMaxSuppression on f32: boxes [B, N, 4] (corners y1, x1, y2,
// x2 in any order, or centers x, y, w, h when center_point_box), scores [B, C, N]. Per batch and
// class, boxes above score_threshold are taken by decreasing score (ties: lower index first) and
// kept unless their IoU with a kept box exceeds iou_threshold, at most max_output_boxes_per_class
// of them. The selected [K, 3] int64 rows are (batch, class, box) in that order.
struct NmsParams {
  bool center_point_box = false;
  int64_t max_output_boxes_per_class = 0;
  float iou_threshold = 0.0f;
  float score_threshold = 0.0f;
  bool has_score_threshold = false;
};
// The number of rows K the selection has. `order` is caller scratch of N int64s.
Status NonMaxSuppressionCount(const NmsParams& p, const TensorView& boxes, const TensorView& scores,
                              int64_t* order, int64_t* count);
// Writes the rows into `selected` [K, 3] (i64). `order` is caller scratch of N int64s.
Status NonMaxSuppression(const NmsParams& p, const TensorView& boxes, const TensorView& scores,
                         int64_t* order, const TensorView& selected);

// unique.cc — ONNX Unique: the distinct slices of x along `axis` (or the distinct elements of the
// flattened x when axis < 0), sorted ascending (lexicographically for slices) or in order of
// first occurrence. Any numeric or bool type; floats compare by value (NaN equal to NaN).
// y [.., U, ..]; indices [U] the first occurrence of each; inverse [slices] which unique slice
// each input slice is; counts [U]. The index outputs are int64 and each optional.
struct UniqueParams {
  int axis = -1;  // < 0: flatten
  bool sorted = true;
};
// Scratch (int64s) UniqueCount and Unique need: 4 per slice + 1.
int64_t UniqueScratchSize(const UniqueParams& p, const TensorView& x);
// The number U of distinct slices.
Status UniqueCount(const UniqueParams& p, const TensorView& x, int64_t* scratch, int64_t* count);
Status Unique(const UniqueParams& p, const TensorView& x, int64_t* scratch, const TensorView& y,
              const TensorView* indices, const TensorView* inverse, const TensorView* counts);

}  // namespace loom::kernels

#endif  // LOOM_RUNTIME_KERNELS_KERNELS_VISION2_H_
