// Measuring on a remote device: a `loom-run serve` server on loopback with fsim behind it runs
// each candidate as a one-layer package (compiler/tune/layer_package.h), and the cycles agree with
// fsim's driver measuring the same stream locally.
#include <gtest/gtest.h>

#include <memory>
#include <thread>

#include "compiler/tune/measure.h"
#include "compiler/tune/search.h"
#include "runtime/api/host_runtime.h"
#include "runtime/config/config_file.h"
#include "runtime/remote/server.h"

namespace loom::tune {
namespace {

using tensorize::Conv2dLayer;
using tensorize::Conv2dTiling;

class RemoteMeasureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(runtime::RegisterHostRuntime().ok());
    runtime::remote::ServeOptions o;
    o.device = "fsim";
    o.log = false;
    ASSERT_TRUE(runtime::remote::Server::Create(o, &server_).ok());
    thread_ = std::thread([this] { served_ = server_->Serve(); });
  }
  void TearDown() override {
    server_->Stop();
    thread_.join();
    EXPECT_TRUE(served_.ok()) << served_.ToString();
  }
  std::string Device() const { return "remote://127.0.0.1:" + std::to_string(server_->port()); }

  std::unique_ptr<runtime::remote::Server> server_;
  std::thread thread_;
  Status served_;
};

TEST_F(RemoteMeasureTest, OneLayerPackagesMeasureLikeTheLocalDriver) {
  HwConfig c;
  ASSERT_TRUE(LoadHwConfig("1x16x16", &c).ok());
  Conv2dLayer l = tensorize::Conv2dGeometry(c, "small", 1, 32, 14, 14, 32,
                                            tensorize::Window2d{3, 3, 1, 1, 1, 1, 1, 1});
  l.clip_lo = 0;
  std::unique_ptr<Measurer> remote, local;
  const Status created = CreateMeasurer(Device(), c, 60000, &remote);
  ASSERT_TRUE(created.ok()) << created.ToString();
  EXPECT_EQ(remote->device(), Device());
  ASSERT_TRUE(CreateDriverMeasurer("fsim", c, 60000, &local).ok());
  for (const Conv2dTiling& t : {Conv2dTiling{2, 2, 7, 14, 2}, Conv2dTiling{1, 1, 2, 14, 1}}) {
    uint64_t r = 0, d = 0;
    const Status s = remote->Measure(l, t, &r);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_TRUE(local->Measure(l, t, &d).ok());
    // Same stream, placed at other addresses (DMA bursts split elsewhere).
    EXPECT_NEAR(double(r), double(d), 0.01 * double(d)) << t.ToString();
  }
  // A search through it keeps the never-slower guarantee.
  tensorize::TilingChoice choice;
  ASSERT_TRUE(tensorize::ChooseConv2dTiling(c, l, &choice).ok());
  SearchOptions o;
  o.trials = 5;
  SearchResult result;
  ASSERT_TRUE(SearchLayer(c, l, choice.tiling, remote.get(), o, &result).ok());
  EXPECT_LE(result.best_cycles, result.builtin_cycles);
  EXPECT_EQ(result.trials, 5u);
}

// A depthwise layer's one-layer package: a depthwise op (compact weights) whose program reads the
// window-form filter rows, loaded and run by the server like any package.
TEST_F(RemoteMeasureTest, DepthwiseLayerPackagesMeasureLikeTheLocalDriver) {
  HwConfig c;
  ASSERT_TRUE(LoadHwConfig("1x16x16", &c).ok());
  Conv2dLayer l = tensorize::Conv2dGeometry(c, "dw", 1, 48, 14, 14, 48,
                                            tensorize::Window2d{3, 3, 2, 2, 1, 1, 1, 1});
  l.depthwise = true;
  l.clip_lo = 0;
  std::unique_ptr<Measurer> remote, local;
  ASSERT_TRUE(CreateMeasurer(Device(), c, 60000, &remote).ok());
  ASSERT_TRUE(CreateDriverMeasurer("fsim", c, 60000, &local).ok());
  for (const Conv2dTiling& t : {Conv2dTiling{3, 1, 7, 7, 2}, Conv2dTiling{2, 1, 3, 7, 1}}) {
    uint64_t r = 0, d = 0;
    const Status s = remote->Measure(l, t, &r);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_TRUE(local->Measure(l, t, &d).ok());
    EXPECT_NEAR(double(r), double(d), 0.01 * double(d)) << t.ToString();
  }
}

}  // namespace
}  // namespace loom::tune
