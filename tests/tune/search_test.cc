// The search: its knob space, the cost model it fits, its rank correlation, and that it never
// returns a tiling slower than the built-in search's on the measuring device.
#include "compiler/tune/search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>

#include "compiler/tensorize/schedule.h"
#include "compiler/tune/cost_model.h"
#include "compiler/tune/measure.h"
#include "runtime/api/host_runtime.h"
#include "runtime/config/config_file.h"

namespace loom::tune {
namespace {

using tensorize::Conv2dLayer;
using tensorize::Conv2dTiling;

HwConfig Config(const char* name) {
  HwConfig c;
  EXPECT_TRUE(LoadHwConfig(name, &c).ok());
  return c;
}

// A ResNet-18 stage-3 convolution in blocks of 16: 128 -> 128 channels, 28x28, 3x3, padded.
Conv2dLayer Stage3(const HwConfig& c) {
  Conv2dLayer l = tensorize::Conv2dGeometry(c, "stage3", 1, 128, 28, 28, 128,
                                            tensorize::Window2d{3, 3, 1, 1, 1, 1, 1, 1});
  l.clip_lo = 0;
  l.post_shift = 9;
  return l;
}

TEST(Spearman, RanksAndTies) {
  EXPECT_DOUBLE_EQ(SpearmanCorrelation({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(SpearmanCorrelation({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
  EXPECT_DOUBLE_EQ(SpearmanCorrelation({1, 2, 3}, {5, 5, 5}), 0.0);  // constant: undefined, 0
  EXPECT_DOUBLE_EQ(SpearmanCorrelation({1}, {1}), 0.0);
  // Monotone but not linear still ranks perfectly.
  EXPECT_DOUBLE_EQ(SpearmanCorrelation({1, 2, 3, 4, 5}, {1, 8, 27, 64, 125}), 1.0);
  EXPECT_NEAR(SpearmanCorrelation({1, 2, 2, 3}, {1, 2, 3, 4}), 0.9487, 1e-3);
}

TEST(Signature, NamesShapeWindowAndEpilogueNotPlacement) {
  const HwConfig c = Config("1x16x16");
  Conv2dLayer a = Stage3(c), b = Stage3(c);
  b.name = "other";
  b.input = 4096;
  b.post_shift = 7;  // another value, same pass
  EXPECT_EQ(tensorize::Conv2dSignature(a, false), tensorize::Conv2dSignature(b, false));
  EXPECT_EQ(tensorize::Conv2dSignature(a, false),
            "conv2d n1 c8 h28 w28 o8 k3x3 s1x1 p1,1,1,1 i8>i8 epi=bias,mul,shr,max");
  b.clip_lo = -128;  // no ReLU: one ALU pass fewer
  EXPECT_NE(tensorize::Conv2dSignature(a, false), tensorize::Conv2dSignature(b, false));
  EXPECT_NE(tensorize::Conv2dSignature(a, false), tensorize::Conv2dSignature(a, true));
  // The depthwise mode's program is not the diagonal form's: a log of one does not apply to the
  // other.
  EXPECT_NE(tensorize::Conv2dSignature(a, true, true), tensorize::Conv2dSignature(a, true));
}

TEST(KnobSpace, EveryTilingFitsAndTheBuiltInChoiceIsInIt) {
  const HwConfig c = Config("1x16x16");
  const Conv2dLayer l = Stage3(c);
  const std::vector<Conv2dTiling> space = KnobSpace(c, l);
  ASSERT_GT(space.size(), 100u);
  for (const Conv2dTiling& t : space) EXPECT_TRUE(tensorize::Conv2dTilingFits(c, l, t));
  tensorize::TilingChoice choice;
  ASSERT_TRUE(tensorize::ChooseConv2dTiling(c, l, &choice).ok());
  EXPECT_NE(std::find(space.begin(), space.end(), choice.tiling), space.end());
}

// Fitted on random tilings measured on fsim's timing model, the model ranks held-out ones well.
TEST(CostModel, RanksHeldOutTilingsOfALayer) {
  const HwConfig c = Config("1x16x16");
  const Conv2dLayer l = Stage3(c);
  std::vector<Conv2dTiling> space = KnobSpace(c, l);
  std::mt19937 rng(3);
  std::shuffle(space.begin(), space.end(), rng);
  CostModel model;
  std::vector<double> predicted, measured;
  size_t used = 0;
  for (const Conv2dTiling& t : space) {
    uint64_t cycles = 0;
    if (!tensorize::TimeConv2d(c, l, t, &cycles).ok()) continue;
    if (used < 40) {
      model.Add(ScheduleFeatures(c, l, t), cycles);
    } else {
      if (!model.fitted()) {
        ASSERT_TRUE(model.Fit());
      }
      predicted.push_back(model.Predict(ScheduleFeatures(c, l, t)));
      measured.push_back(static_cast<double>(cycles));
    }
    if (++used == 70) break;
  }
  ASSERT_EQ(predicted.size(), 30u);
  const double rho = SpearmanCorrelation(predicted, measured);
  std::cout << "held-out Spearman on " << l.name << ": " << rho << "\n";
  EXPECT_GT(rho, 0.6);
}

TEST(CostModel, NeedsFourPointsToFit) {
  CostModel m;
  for (int i = 1; i <= 3; ++i) m.Add({double(i), 1.0}, 100 * i);
  EXPECT_FALSE(m.Fit());
  EXPECT_EQ(m.Predict({1.0, 1.0}), 0.0);
  m.Add({4.0, 1.0}, 400);
  EXPECT_TRUE(m.Fit());
  EXPECT_LT(m.Predict({1.0, 1.0}), m.Predict({4.0, 1.0}));
}

// The search starts from the built-in tiling, so its best is never slower; it measures what it
// says it measured, and logs every measurement.
TEST(SearchLayer, NeverSlowerThanTheBuiltInChoice) {
  const HwConfig c = Config("1x16x16");
  for (const Conv2dLayer& l :
       {Stage3(c),
        tensorize::Conv2dGeometry(c, "stem", 1, 3, 56, 56, 64,
                                  tensorize::Window2d{7, 7, 2, 2, 3, 3, 3, 3}),
        tensorize::Conv2dGeometry(c, "down", 1, 64, 56, 56, 128,
                                  tensorize::Window2d{1, 1, 2, 2, 0, 0, 0, 0})}) {
    SCOPED_TRACE(l.name);
    tensorize::TilingChoice choice;
    ASSERT_TRUE(tensorize::ChooseConv2dTiling(c, l, &choice).ok());
    std::unique_ptr<Measurer> m;
    ASSERT_TRUE(CreateMeasurer("fsim", c, 0, &m).ok());
    SearchOptions o;
    o.trials = 24;
    uint32_t logged = 0;
    uint64_t fastest_logged = UINT64_MAX;
    o.on_measured = [&](const Conv2dTiling&, uint64_t cycles) {
      ++logged;
      fastest_logged = std::min(fastest_logged, cycles);
    };
    SearchResult r;
    ASSERT_TRUE(SearchLayer(c, l, choice.tiling, m.get(), o, &r).ok());
    EXPECT_EQ(r.builtin_cycles, choice.cycles);  // same timing model
    EXPECT_LE(r.best_cycles, r.builtin_cycles);
    EXPECT_EQ(r.trials, 24u);
    EXPECT_EQ(logged + r.failed, r.trials);
    EXPECT_EQ(fastest_logged, r.best_cycles);
    uint64_t again = 0;
    ASSERT_TRUE(tensorize::TimeConv2d(c, l, r.best, &again).ok());
    EXPECT_EQ(again, r.best_cycles);
    EXPECT_EQ(r.predicted.size(), r.measured.size());
  }
}

// A spent time budget still measures the built-in tiling, and nothing more.
TEST(SearchLayer, APassedDeadlineMeasuresOnlyTheBuiltInChoice) {
  const HwConfig c = Config("1x16x16");
  const Conv2dLayer l = Stage3(c);
  tensorize::TilingChoice choice;
  ASSERT_TRUE(tensorize::ChooseConv2dTiling(c, l, &choice).ok());
  std::unique_ptr<Measurer> m;
  ASSERT_TRUE(CreateMeasurer("fsim", c, 0, &m).ok());
  SearchOptions o;
  o.deadline = std::chrono::steady_clock::now();
  SearchResult r;
  ASSERT_TRUE(SearchLayer(c, l, choice.tiling, m.get(), o, &r).ok());
  EXPECT_EQ(r.trials, 1u);
  EXPECT_EQ(r.best, choice.tiling);
  EXPECT_EQ(r.best_cycles, choice.cycles);
}

// Measuring through the runtime's Driver interface (here fsim's driver, which runs the data path
// as well) gives the timing model's cycles up to placement: the timing model runs the stream with
// every region at address 0, the driver at the addresses it allocates, which moves where DMA
// bursts split at 4 KiB boundaries (a fraction of a percent).
TEST(Measure, DriverMeasurementMatchesTheTimingModel) {
  ASSERT_TRUE(runtime::RegisterHostRuntime().ok());
  const HwConfig c = Config("1x16x16");
  const Conv2dLayer l = tensorize::Conv2dGeometry(c, "small", 1, 32, 14, 14, 32,
                                                  tensorize::Window2d{3, 3, 1, 1, 1, 1, 1, 1});
  std::unique_ptr<Measurer> timing, driver;
  ASSERT_TRUE(CreateMeasurer("fsim", c, 0, &timing).ok());
  const Status s = CreateDriverMeasurer("fsim", c, 60000, &driver);
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (const Conv2dTiling& t : {Conv2dTiling{2, 2, 7, 14, 2}, Conv2dTiling{1, 1, 2, 14, 1}}) {
    uint64_t a = 0, b = 0;
    ASSERT_TRUE(timing->Measure(l, t, &a).ok());
    const Status d = driver->Measure(l, t, &b);
    ASSERT_TRUE(d.ok()) << d.ToString();
    EXPECT_NEAR(double(a), double(b), 0.01 * double(a)) << t.ToString();
  }
  std::unique_ptr<Measurer> none;
  EXPECT_FALSE(CreateMeasurer("cpu", c, 0, &none).ok());
}

}  // namespace
}  // namespace loom::tune
