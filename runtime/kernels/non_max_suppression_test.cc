// NonMaxSuppression: selections checked against ONNX's reference implementation (three limits and
// thresholds on two classes), center-point boxes, the count/write agreement and the shape checks.
#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_vision2.h"

namespace loom::kernels {
namespace {

using testing::Buf;

// Boxes 0-2 overlap each other, 3-4 overlap each other, 5 stands alone.
Buf<float> Boxes() {
  return Buf<float>({1, 6, 4}, {0, 0,  1, 1,  0, 0.1f,  1, 1.1f,  0, -0.1f, 1, 0.9f,
                                0, 10, 1, 11, 0, 10.1f, 1, 11.1f, 0, 100,   1, 101});
}
Buf<float> Scores() {
  return Buf<float>({1, 2, 6}, {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f,  //
                                0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f});
}

std::vector<int64_t> Select(const NmsParams& p, Buf<float>& boxes, Buf<float>& scores) {
  std::vector<int64_t> order(6);
  int64_t rows = -1;
  EXPECT_TRUE(NonMaxSuppressionCount(p, boxes.view(), scores.view(), order.data(), &rows).ok());
  Buf<int64_t> y({rows, 3});
  Status s = NonMaxSuppression(p, boxes.view(), scores.view(), order.data(), y.view());
  EXPECT_TRUE(s.ok()) << s.message();
  return y.data;
}

TEST(NonMaxSuppression, MatchesOnnxReference) {
  Buf<float> boxes = Boxes(), scores = Scores();
  NmsParams p;
  p.max_output_boxes_per_class = 3;
  p.iou_threshold = 0.5f;
  p.has_score_threshold = true;
  EXPECT_EQ(Select(p, boxes, scores),
            (std::vector<int64_t>{0, 0, 3, 0, 0, 0, 0, 0, 5, 0, 1, 5, 0, 1, 4, 0, 1, 2}));
  p.max_output_boxes_per_class = 2;
  p.score_threshold = 0.35f;
  EXPECT_EQ(Select(p, boxes, scores), (std::vector<int64_t>{0, 0, 3, 0, 0, 0, 0, 1, 5, 0, 1, 4}));
  // No limit given selects nothing (ONNX's default of 0 boxes per class).
  p.max_output_boxes_per_class = 0;
  EXPECT_TRUE(Select(p, boxes, scores).empty());
}

TEST(NonMaxSuppression, CenterPointBoxesAndTies) {
  // Two identical boxes (x, y, w, h) with equal scores: the lower index wins.
  Buf<float> boxes({1, 3, 4}, {0.5f, 0.5f, 1, 1, 0.5f, 0.5f, 1, 1, 5, 5, 1, 1});
  Buf<float> scores({1, 1, 3}, {0.7f, 0.7f, 0.1f});
  NmsParams p;
  p.center_point_box = true;
  p.max_output_boxes_per_class = 5;
  p.iou_threshold = 0.5f;
  EXPECT_EQ(Select(p, boxes, scores), (std::vector<int64_t>{0, 0, 0, 0, 0, 2}));
}

TEST(NonMaxSuppression, RefusesWrongShapesAndLengths) {
  Buf<float> boxes = Boxes(), scores = Scores();
  std::vector<int64_t> order(6);
  NmsParams p;
  p.max_output_boxes_per_class = 3;
  Buf<int64_t> short_y({2, 3});
  Status s = NonMaxSuppression(p, boxes.view(), scores.view(), order.data(), short_y.view());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("has 6 rows"), std::string::npos) << s.message();
  Buf<float> bad_scores({1, 2, 5});
  int64_t rows = 0;
  EXPECT_FALSE(
      NonMaxSuppressionCount(p, boxes.view(), bad_scores.view(), order.data(), &rows).ok());
}

}  // namespace
}  // namespace loom::kernels
