// Built with -fno-exceptions -fno-rtti, as the runtime is: the transport headers must compile
// there, and the flags must really be in effect (otherwise this check proves nothing).
#include <gtest/gtest.h>

#include "runtime/drivers/protocol/transport.h"
#include "runtime/drivers/zynq/fpga_manager.h"
#include "runtime/drivers/zynq/udmabuf_transport.h"
#include "runtime/drivers/zynq/uio_transport.h"

#if defined(__cpp_exceptions) || defined(__GXX_RTTI)
#error "this test must be compiled with -fno-exceptions -fno-rtti"
#endif

namespace loom::runtime {
namespace {

TEST(NoExceptions, TransportsAreUsableThroughTheirInterfaces) {
  zynq::UioOptions uio;
  uio.root = "/nonexistent-loom-root";
  std::unique_ptr<zynq::UioTransport> regs;
  EXPECT_EQ(zynq::UioTransport::Open(uio, &regs).code(), StatusCode::kNotFound);
  zynq::UdmabufOptions dma;
  dma.root = uio.root;
  std::unique_ptr<zynq::UdmabufTransport> mem;
  EXPECT_EQ(zynq::UdmabufTransport::Open(dma, &mem).code(), StatusCode::kNotFound);
  EXPECT_STREQ(CoherenceName(Coherence::kCoherent), "coherent");
}

}  // namespace
}  // namespace loom::runtime
