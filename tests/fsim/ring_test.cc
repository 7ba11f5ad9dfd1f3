// sim::Ring, the FIFO both simulators keep their queues in: order across wrap-around and growth.
#include "sim/common/ring.h"

#include <gtest/gtest.h>

namespace loom::sim {
namespace {

TEST(Ring, KeepsOrderAcrossWrapAround) {
  Ring<int> r;
  r.Reserve(3);
  int next_in = 0, next_out = 0;
  for (int round = 0; round < 10; ++round) {
    while (r.size() < 3) r.push_back(next_in++);
    r.pop_front();
    EXPECT_EQ(r.front(), ++next_out);
  }
  EXPECT_EQ(r.size(), 2u);
}

TEST(Ring, GrowsWhenFullWithoutLosingOrder) {
  Ring<int> r;
  r.Reserve(2);
  r.push_back(0);
  r.push_back(1);
  r.pop_front();  // head now in the middle of the slots
  for (int i = 2; i < 40; ++i) r.push_back(i);
  for (int want = 1; want < 40; ++want) {
    ASSERT_FALSE(r.empty());
    EXPECT_EQ(r.front(), want);
    r.pop_front();
  }
  EXPECT_TRUE(r.empty());
}

TEST(Ring, ClearEmptiesAndZeroCapacityStillWorks) {
  Ring<int> r;
  r.Reserve(0);
  r.push_back(7);
  r.push_back(8);
  r.clear();
  EXPECT_TRUE(r.empty());
  r.push_back(9);
  EXPECT_EQ(r.front(), 9);
}

}  // namespace
}  // namespace loom::sim
