// The zynq device: what its device string means and the transports it opens. The string is
//
//   zynq[:KEY=VALUE,...]   keys: uio=NAME         UIO device name (default loom)
//                                dma=udmabuf[:NAME] | devmem:ADDR:SIZE   (dma_option.h)
//                                uncached         map the u-dma-buf region uncached (O_SYNC)
//                                addr_bits=32|40  DMA address width; default from the device tree
//                                root=DIR         look up /sys, /dev, /proc under DIR (tests)
//
// The address width is the SoC's: Zynq-7000's accelerator reaches 32 bits, ZynqMP's 40. The device
// tree's root `compatible` list says which SoC this is ("xlnx,zynq-7000" or "xlnx,zynqmp"), so a
// package is not tied to one family and the user states nothing the board already knows.
#ifndef LOOM_RUNTIME_DRIVERS_ZYNQ_ZYNQ_DEVICE_H_
#define LOOM_RUNTIME_DRIVERS_ZYNQ_ZYNQ_DEVICE_H_

#include <memory>
#include <string>

#include "runtime/core/status.h"
#include "runtime/drivers/protocol/transport.h"
#include "runtime/drivers/zynq/dma_option.h"

namespace loom::runtime::zynq {

struct ZynqDeviceArgs {
  std::string root = "/";
  std::string uio = "loom";
  DmaOption dma;
  bool uncached = false;
  int address_bits = 0;  // 0: from the device tree (DetectAddressBits)
};

// Parses what followed "zynq:" (may be empty). Errors name the key and the whole string.
Status ParseZynqDeviceArgs(const std::string& args, ZynqDeviceArgs* out);

// 32 or 40 from the first of <root>/proc/device-tree/compatible and
// <root>/sys/firmware/devicetree/base/compatible that exists: 40 when it lists xlnx,zynqmp, 32 when
// it lists xlnx,zynq-7000. NotFound / FailedPrecondition naming the file, what it lists and
// addr_bits= as the way out.
Status DetectAddressBits(const std::string& root, int* bits);

// Opens the register window (UIO) first, since its absence is the common failure (no overlay, no
// uio_pdrv_genirq), then the DMA memory at the address width.
Status OpenZynqDevice(const ZynqDeviceArgs& args, std::unique_ptr<RegisterTransport>* regs,
                      std::unique_ptr<DmaTransport>* dma);

}  // namespace loom::runtime::zynq

#endif  // LOOM_RUNTIME_DRIVERS_ZYNQ_ZYNQ_DEVICE_H_
