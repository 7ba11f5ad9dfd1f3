// Unique: flattened and per-axis, sorted and by first occurrence, against NumPy's unique (which
// ONNX's reference uses); NaN handling and the output-length checks.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_vision2.h"

namespace loom::kernels {
namespace {

using testing::Buf;

struct Result {
  std::vector<int64_t> y, indices, inverse, counts;
};

Result RunUnique(const UniqueParams& p, Buf<int64_t>& x, int64_t slices,
                 std::vector<int64_t> y_shape) {
  std::vector<int64_t> scratch(static_cast<size_t>(UniqueScratchSize(p, x.view())));
  int64_t u = 0;
  EXPECT_TRUE(UniqueCount(p, x.view(), scratch.data(), &u).ok());
  for (int64_t& d : y_shape) d = d < 0 ? u : d;
  Buf<int64_t> y(y_shape), indices({u}), inverse({slices}), counts({u});
  const TensorView iv = indices.view(), inv = inverse.view(), cv = counts.view();
  Status s = Unique(p, x.view(), scratch.data(), y.view(), &iv, &inv, &cv);
  EXPECT_TRUE(s.ok()) << s.message();
  return {y.data, indices.data, inverse.data, counts.data};
}

Buf<int64_t> Input() { return Buf<int64_t>({5, 2}, {1, 3, 2, 1, 1, 3, 0, 5, 2, 1}); }

TEST(Unique, FlattenedSortedAndByFirstOccurrence) {
  Buf<int64_t> x = Input();
  UniqueParams p;
  Result r = RunUnique(p, x, 10, {-1});
  EXPECT_EQ(r.y, (std::vector<int64_t>{0, 1, 2, 3, 5}));
  EXPECT_EQ(r.indices, (std::vector<int64_t>{6, 0, 2, 1, 7}));
  EXPECT_EQ(r.inverse, (std::vector<int64_t>{1, 3, 2, 1, 1, 3, 0, 4, 2, 1}));
  EXPECT_EQ(r.counts, (std::vector<int64_t>{1, 4, 2, 2, 1}));
  p.sorted = false;
  r = RunUnique(p, x, 10, {-1});
  EXPECT_EQ(r.y, (std::vector<int64_t>{1, 3, 2, 0, 5}));
  EXPECT_EQ(r.indices, (std::vector<int64_t>{0, 1, 2, 6, 7}));
  EXPECT_EQ(r.inverse, (std::vector<int64_t>{0, 1, 2, 0, 0, 1, 3, 4, 2, 0}));
  EXPECT_EQ(r.counts, (std::vector<int64_t>{4, 2, 2, 1, 1}));
}

TEST(Unique, RowsAndColumns) {
  Buf<int64_t> x = Input();
  UniqueParams p;
  p.axis = 0;
  Result r = RunUnique(p, x, 5, {-1, 2});
  EXPECT_EQ(r.y, (std::vector<int64_t>{0, 5, 1, 3, 2, 1}));
  EXPECT_EQ(r.indices, (std::vector<int64_t>{3, 0, 1}));
  EXPECT_EQ(r.inverse, (std::vector<int64_t>{1, 2, 1, 0, 2}));
  EXPECT_EQ(r.counts, (std::vector<int64_t>{1, 2, 2}));
  p.axis = 1;  // the two columns differ: both kept, in order
  r = RunUnique(p, x, 2, {5, -1});
  EXPECT_EQ(r.y, x.data);
  EXPECT_EQ(r.counts, (std::vector<int64_t>{1, 1}));
}

TEST(Unique, NanIsOneValueSortedLast) {
  Buf<float> x({4}, {std::nanf(""), 2.0f, std::nanf(""), -1.0f});
  UniqueParams p;
  std::vector<int64_t> scratch(static_cast<size_t>(UniqueScratchSize(p, x.view())));
  int64_t u = 0;
  ASSERT_TRUE(UniqueCount(p, x.view(), scratch.data(), &u).ok());
  ASSERT_EQ(u, 3);
  Buf<float> y({3});
  ASSERT_TRUE(Unique(p, x.view(), scratch.data(), y.view(), nullptr, nullptr, nullptr).ok());
  EXPECT_EQ(y.data[0], -1.0f);
  EXPECT_EQ(y.data[1], 2.0f);
  EXPECT_TRUE(std::isnan(y.data[2]));
}

TEST(Unique, RefusesAnOutputOfAnotherLength) {
  Buf<int64_t> x = Input();
  UniqueParams p;
  std::vector<int64_t> scratch(static_cast<size_t>(UniqueScratchSize(p, x.view())));
  Buf<int64_t> y({4});
  Status s = Unique(p, x.view(), scratch.data(), y.view(), nullptr, nullptr, nullptr);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("5 distinct"), std::string::npos) << s.message();
  p.axis = 2;
  EXPECT_FALSE(Unique(p, x.view(), scratch.data(), y.view(), nullptr, nullptr, nullptr).ok());
}

}  // namespace
}  // namespace loom::kernels
