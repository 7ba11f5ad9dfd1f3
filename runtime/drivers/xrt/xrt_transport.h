// The xrt driver's transports (Alveo cards; XRT edge on ZynqMP): registers through xrt::ip
// (user-managed control: read_register / write_register, the interrupt through
// xrt::ip::interrupt where the platform has one) and DMA memory through xrt::bo on the memory bank
// the kernel's m_axi port is connected to in the xclbin.
//
// XRT's C++ API reports errors by throwing. This library's .cc is the only runtime code compiled
// with exceptions (docs/runtime.md): every method catches at its boundary and returns a Status
// naming the XRT call and XRT's message, and this header includes no XRT header, so the code that
// includes it stays exception-free.
//
// Device string (DriverOptions::device_args, what follows "xrt:"):
//   [DEVICE][,xclbin=PATH][,kernel=NAME]
//   DEVICE  a device index ("0", the default) or a PCIe BDF ("0000:65:00.1")
//   PATH    the xclbin to load; default: $LOOM_XCLBIN. Required one way or the other.
//   NAME    the kernel in the xclbin's IP layout; default "loom" (kernel_name of
//           boards/alveo-u250.json, which `loom-hwconfig xo` packages)
#ifndef LOOM_RUNTIME_DRIVERS_XRT_XRT_TRANSPORT_H_
#define LOOM_RUNTIME_DRIVERS_XRT_XRT_TRANSPORT_H_

#include <cstdint>
#include <memory>
#include <string>

#include "runtime/drivers/protocol/transport.h"

namespace loom::runtime::xrt {

inline constexpr char kDefaultKernelName[] = "loom";

struct XrtOptions {
  std::string device;  // "" or a decimal index, or a PCIe BDF (has a ':')
  std::string xclbin;  // path; empty: none given
  std::string kernel = kDefaultKernelName;
};

// Parses the device string above. `env_xclbin` is $LOOM_XCLBIN (null when unset); an xclbin= in
// `args` wins over it. InvalidArgument names the bad part.
Status ParseXrtDeviceArgs(const std::string& args, const char* env_xclbin, XrtOptions* out);

class XrtDmaTransport;

class XrtRegisterTransport : public RegisterTransport {
 public:
  ~XrtRegisterTransport() override;
  XrtRegisterTransport(const XrtRegisterTransport&) = delete;
  XrtRegisterTransport& operator=(const XrtRegisterTransport&) = delete;

  Status Read32(uint32_t offset, uint32_t* value) override;
  Status Write32(uint32_t offset, uint32_t value) override;
  // kUnimplemented (with XRT's reason) when the platform gave no interrupt for the kernel.
  Status EnableInterrupt() override;
  Status WaitInterrupt(int timeout_ms, bool* fired) override;

  // Why there is no interrupt ("" when there is one).
  const std::string& no_interrupt_reason() const;

 private:
  friend Status OpenXrtTransportPair(const XrtOptions&, std::unique_ptr<XrtRegisterTransport>*,
                                     std::unique_ptr<XrtDmaTransport>*);
  struct Impl;
  explicit XrtRegisterTransport(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

class XrtDmaTransport : public DmaTransport {
 public:
  ~XrtDmaTransport() override;
  XrtDmaTransport(const XrtDmaTransport&) = delete;
  XrtDmaTransport& operator=(const XrtDmaTransport&) = delete;

  // The card's memory is across PCIe: every sync is a DMA copy.
  Coherence coherence() const override { return Coherence::kNonCoherent; }
  // One xrt::bo per allocation on the kernel's memory bank. `align` above what XRT gives (a page
  // on a card) is met by over-allocating and offsetting into the bo.
  Status Allocate(uint64_t bytes, uint64_t align, DmaBuffer* buffer) override;
  Status Free(const DmaBuffer& buffer) override;
  Status SyncForDevice(const DmaBuffer& buffer, uint64_t offset, uint64_t bytes) override;
  Status SyncForCpu(const DmaBuffer& buffer, uint64_t offset, uint64_t bytes) override;

  // The xrt::bo memory group (index in the xclbin's memory topology) and its tag ("bank0").
  int memory_group() const;
  const std::string& memory_tag() const;
  // Live allocations.
  size_t live_buffers() const;

 private:
  friend Status OpenXrtTransportPair(const XrtOptions&, std::unique_ptr<XrtRegisterTransport>*,
                                     std::unique_ptr<XrtDmaTransport>*);
  struct Impl;
  explicit XrtDmaTransport(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Opens the device, loads the xclbin, finds the kernel and its memory bank. Messages say what was
// seen and what to check (no card, XILINX_XRT, the xclbin, the kernel names the xclbin has).
Status OpenXrtTransportPair(const XrtOptions& options, std::unique_ptr<XrtRegisterTransport>* regs,
                            std::unique_ptr<XrtDmaTransport>* dma);

}  // namespace loom::runtime::xrt

#endif  // LOOM_RUNTIME_DRIVERS_XRT_XRT_TRANSPORT_H_
