// The xrt transports on a machine with XRT and no card (XCL_EMULATION_MODE unset): what
// `loom-run --device xrt` meets here, and what it meets on a host whose XRT is not set up.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "runtime/drivers/xrt/xrt_transport.h"

namespace loom::runtime::xrt {
namespace {

using ::testing::HasSubstr;

const bool kEnvironment = [] {
  unsetenv("XCL_EMULATION_MODE");
  setenv("XILINX_XRT", LOOM_XRT_ROOT, 1);
  return true;
}();

Status Open(const std::string& args) {
  XrtOptions options;
  LOOM_RETURN_IF_ERROR(ParseXrtDeviceArgs(args, nullptr, &options));
  std::unique_ptr<XrtRegisterTransport> regs;
  std::unique_ptr<XrtDmaTransport> dma;
  return OpenXrtTransportPair(options, &regs, &dma);
}

// CI machines have no Alveo card; on a host with one this test is expected to fail.
TEST(XrtNoCard, NoDeviceSaysWhatXrtSawAndWhatToCheck) {
  ASSERT_TRUE(kEnvironment);
  const std::string xclbin = std::string(LOOM_XRT_TEST_DIR) + "/alveo-u250.xclbin";
  for (const std::string& args : {std::string(""), "0,xclbin=" + xclbin, std::string("3")}) {
    Status s = Open(args);
    EXPECT_EQ(s.code(), StatusCode::kNotFound) << args;
    EXPECT_THAT(s.message(), HasSubstr("no XRT device found (XRT saw 0 devices; is the xocl "
                                       "driver loaded"));
    EXPECT_THAT(s.message(), HasSubstr("XCL_EMULATION_MODE is unset"));
  }
}

TEST(XrtNoCard, ABdfIsLookedUpToo) {
  Status s = Open("0000:65:00.1,xclbin=/x.xclbin");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("no XRT device found"));
}

}  // namespace
}  // namespace loom::runtime::xrt
