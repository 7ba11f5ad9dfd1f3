// ONNX NonMaxSuppression, greedy per (batch, class), in float as ONNX's reference computes it.
// The selection runs twice with the same code: once to count the rows (the compiler sizes the
// output from constant inputs), once to write them. Kept boxes are compacted to the front of the
// caller's `order` scratch, so the kernel needs no other memory.
#include <algorithm>

#include "runtime/kernels/kernels_vision2.h"

namespace loom::kernels {
namespace {

struct Extent {
  float x0, x1, y0, y1;
};

Extent BoxExtent(const float* b, bool center) {
  if (center) {  // x_center, y_center, width, height
    const float hw = b[2] / 2, hh = b[3] / 2;
    return {b[0] - hw, b[0] + hw, b[1] - hh, b[1] + hh};
  }
  // y1, x1, y2, x2, either corner first.
  return {std::min(b[1], b[3]), std::max(b[1], b[3]), std::min(b[0], b[2]), std::max(b[0], b[2])};
}

bool Suppresses(const float* a, const float* b, bool center, float iou_threshold) {
  const Extent e1 = BoxExtent(a, center), e2 = BoxExtent(b, center);
  const float ix0 = std::max(e1.x0, e2.x0), ix1 = std::min(e1.x1, e2.x1);
  if (ix1 <= ix0) return false;
  const float iy0 = std::max(e1.y0, e2.y0), iy1 = std::min(e1.y1, e2.y1);
  if (iy1 <= iy0) return false;
  const float inter = (ix1 - ix0) * (iy1 - iy0);
  const float area1 = (e1.x1 - e1.x0) * (e1.y1 - e1.y0);
  const float area2 = (e2.x1 - e2.x0) * (e2.y1 - e2.y0);
  const float uni = area1 + area2 - inter;
  if (inter <= 0 || area1 <= 0 || area2 <= 0 || uni <= 0) return false;
  return inter / uni > iou_threshold;
}

Status Check(const TensorView& boxes, const TensorView& scores) {
  if (boxes.dtype != DType::kF32 || scores.dtype != DType::kF32) {
    return InvalidArgument("non-max-suppression: boxes and scores must be f32");
  }
  if (boxes.rank != 3 || boxes.shape[2] != 4 || scores.rank != 3 ||
      scores.shape[0] != boxes.shape[0] || scores.shape[2] != boxes.shape[1]) {
    char sb[96], ss[96];
    return InvalidArgument(std::string("non-max-suppression: needs boxes [B, N, 4] and scores "
                                       "[B, C, N], got ") +
                           FormatShape(boxes, sb, sizeof sb) + " and " +
                           FormatShape(scores, ss, sizeof ss));
  }
  return Status::Ok();
}

// Runs the selection; writes rows into `out` ([K, 3] int64s) when not null. Returns K.
int64_t Select(const NmsParams& p, const TensorView& boxes, const TensorView& scores,
               int64_t* order, int64_t* out) {
  const int64_t nb = boxes.shape[0], nc = scores.shape[1], n = boxes.shape[1];
  const float* bd = boxes.As<const float>();
  const float* sd = scores.As<const float>();
  const int64_t limit = std::max<int64_t>(p.max_output_boxes_per_class, 0);
  int64_t rows = 0;
  for (int64_t b = 0; b < nb; ++b) {
    const float* bb = bd + b * n * 4;
    for (int64_t c = 0; c < nc; ++c) {
      const float* s = sd + (b * nc + c) * n;
      int64_t m = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (!p.has_score_threshold || s[i] > p.score_threshold) order[m++] = i;
      }
      std::sort(order, order + m,
                [s](int64_t i, int64_t j) { return s[i] > s[j] || (s[i] == s[j] && i < j); });
      int64_t kept = 0;
      for (int64_t k = 0; k < m && kept < limit; ++k) {
        const int64_t cand = order[k];
        bool keep = true;
        for (int64_t q = 0; q < kept && keep; ++q) {
          keep = !Suppresses(bb + cand * 4, bb + order[q] * 4, p.center_point_box, p.iou_threshold);
        }
        if (!keep) continue;
        order[kept++] = cand;  // kept <= k: compaction never overwrites an unread candidate
        if (out != nullptr) {
          out[rows * 3] = b;
          out[rows * 3 + 1] = c;
          out[rows * 3 + 2] = cand;
        }
        ++rows;
      }
    }
  }
  return rows;
}

}  // namespace

Status NonMaxSuppressionCount(const NmsParams& p, const TensorView& boxes, const TensorView& scores,
                              int64_t* order, int64_t* count) {
  LOOM_RETURN_IF_ERROR(Check(boxes, scores));
  *count = Select(p, boxes, scores, order, nullptr);
  return Status::Ok();
}

Status NonMaxSuppression(const NmsParams& p, const TensorView& boxes, const TensorView& scores,
                         int64_t* order, const TensorView& selected) {
  LOOM_RETURN_IF_ERROR(Check(boxes, scores));
  if (selected.dtype != DType::kI64 || selected.rank != 2 || selected.shape[1] != 3) {
    return InvalidArgument("non-max-suppression: selected must be i64 [K, 3]");
  }
  const int64_t want = Select(p, boxes, scores, order, nullptr);
  if (want != selected.shape[0]) {
    return InvalidArgument("non-max-suppression: the selection has " + std::to_string(want) +
                           " rows, the output room for " + std::to_string(selected.shape[0]) +
                           " (its length was fixed from other box data)");
  }
  Select(p, boxes, scores, order, selected.As<int64_t>());
  return Status::Ok();
}

}  // namespace loom::kernels
