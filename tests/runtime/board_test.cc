// The runtime a board links (loom_runtime) without the host additions: no simulator devices, no
// config files by name, and a clear error for each. This binary links loom_runtime and registers
// nothing (the package builder's compiler libraries do not register drivers either).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "runtime/api/session.h"
#include "runtime/config/config_file.h"
#include "runtime/drivers/driver.h"
#include "tests/runtime/test_packages.h"

namespace loom::testing {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<runtime::Package> ConvPackage() {
  HwConfig c;
  EXPECT_TRUE(LoadHwConfig("1x8x8", &c).ok());  // the test builds a package; the runtime reads none
  package::PackageSpec spec;
  EXPECT_TRUE(BuildConvModel(c, ConvModelOptions{}, &spec).ok());
  std::vector<uint8_t> bytes;
  EXPECT_TRUE(package::SerializePackage(spec, &bytes).ok());
  std::unique_ptr<runtime::Package> p;
  EXPECT_TRUE(runtime::Package::LoadMemory(bytes.data(), bytes.size(), &p).ok());
  return p;
}

// The core drivers and the hardware drivers this build has (zynq on Linux, xrt when XRT was
// found, opencl when OpenCL was); no simulator.
constexpr const char* kBoardDevices =
    "cpu"
#ifdef __linux__
    " zynq"
#endif
#ifdef LOOM_HAVE_XRT_DRIVER
    " xrt"
#endif
#ifdef LOOM_HAVE_OPENCL_DRIVER
    " opencl"
#endif
    " null";

TEST(BoardRuntime, HasTheCoreAndHardwareDriversOnly) {
  EXPECT_EQ(runtime::DriverNames(), kBoardDevices);
  for (const char* sim : {"fsim", "tsim"}) {
    std::unique_ptr<runtime::Driver> d;
    const Status s = runtime::CreateDriver(sim, &d);
    EXPECT_EQ(s.code(), StatusCode::kNotFound);
    EXPECT_THAT(s.message(), HasSubstr(std::string("device '") + sim + "' is a simulator"));
    EXPECT_THAT(s.message(), HasSubstr("built without simulators"));
    EXPECT_THAT(s.message(), HasSubstr(std::string("available: ") + kBoardDevices));
  }
}

TEST(BoardRuntime, ReadsNoConfigFiles) {
  runtime::SessionOptions o;
  o.device = "cpu";
  o.config = "1x8x8";
  std::unique_ptr<runtime::Executor> e;
  const Status s = runtime::OpenSession(ConvPackage(), o, &e);
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("config '1x8x8' was asked for, but this runtime reads no "
                                     "config files"));
}

TEST(BoardRuntime, RunsOnCpu) {
  runtime::SessionOptions o;
  o.device = "cpu";
  std::unique_ptr<runtime::Executor> e;
  Status s = runtime::OpenSession(ConvPackage(), o, &e);
  ASSERT_TRUE(s.ok()) << s.ToString();
  runtime::HostTensor in;
  in.name = "input";
  in.shape = {1, 5, 8, 8};
  const std::vector<float> x = ConvModelInput(ConvModelOptions{}, 2);
  in.data.resize(x.size() * 4);
  std::memcpy(in.data.data(), x.data(), in.data.size());
  std::vector<runtime::HostTensor> out;
  s = e->Run({in}, runtime::RunOptions{}, &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].name, "probs");
  float sum = 0;
  for (size_t i = 0; i < out[1].data.size() / 4; ++i) {
    float v;
    std::memcpy(&v, out[1].data.data() + i * 4, 4);
    sum += v;
  }
  EXPECT_NEAR(sum, 1.0f, 1e-4);  // a softmax
}

}  // namespace
}  // namespace loom::testing
