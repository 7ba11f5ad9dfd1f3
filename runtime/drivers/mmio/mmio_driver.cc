#include "runtime/drivers/mmio/mmio_driver.h"

#include "runtime/drivers/protocol/protocol_driver.h"

namespace loom::runtime {
namespace {

class MmioDriver final : public ProtocolDriver {
 public:
  explicit MmioDriver(const MmioDeviceMap& map) : ProtocolDriver("mmio", nullptr), map_(map) {}

 protected:
  Status OpenTransports(const DriverOptions& options, Transports* out) override {
    LOOM_RETURN_IF_ERROR(CheckNoDeviceArgs("mmio", options));
    if (map_.register_base == 0 || map_.dma_host == nullptr || map_.dma_bytes == 0) {
      return FailedPrecondition(
          "mmio: the device map has no register base or no DMA region; set MmioDeviceMap from "
          "the board's memory map");
    }
    out->regs =
        std::make_unique<MmioRegisters>(map_.register_base, map_.register_bytes, map_.clock);
    out->dma = std::make_unique<StaticDmaMemory>(map_.dma_host, map_.dma_device, map_.dma_bytes,
                                                 map_.coherence, map_.cache);
    return Status::Ok();
  }

 private:
  MmioDeviceMap map_;
};

}  // namespace

std::unique_ptr<Driver> CreateMmioDriver(const MmioDeviceMap& map) {
  return std::make_unique<MmioDriver>(map);
}

}  // namespace loom::runtime
