// The Driver every hardware device is: the accelerator protocol (accelerator.h) over the register
// and DMA transports (transport.h) of one device. A hardware driver is its transports and one line:
//
//   std::unique_ptr<Driver> CreateZynqDriver() {
//     return CreateProtocolDriver("zynq", &OpenZynqTransports);
//   }
//
// Open(): the transports (OpenTransportsFn, which reads DriverOptions::device_args), then VERSION
// and CONFIG_HASH against DriverOptions::config. Device memory is the DMA transport's: Allocate and
// Free go to it; CopyIn writes the CPU's view and hands exactly the written range to the device
// (SyncForDevice), CopyOut takes exactly the read range back (SyncForCpu) before reading, so a
// non-coherent port needs nothing else. Submit starts the run; Wait waits in device time (by
// interrupt or polling, as the register transport allows) and decodes errors and hangs.
//
// Library loom_driver_protocol, a runtime library: C++17 and runtime/core only, no exceptions, no
// RTTI. Nothing allocates per run (Submit/Wait/CopyIn/CopyOut) except the text of an error.
#ifndef LOOM_RUNTIME_DRIVERS_PROTOCOL_PROTOCOL_DRIVER_H_
#define LOOM_RUNTIME_DRIVERS_PROTOCOL_PROTOCOL_DRIVER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "runtime/core/status.h"
#include "runtime/drivers/driver.h"
#include "runtime/drivers/protocol/accelerator.h"
#include "runtime/drivers/protocol/transport.h"

namespace loom::runtime {

struct Transports {
  std::unique_ptr<RegisterTransport> regs;
  std::unique_ptr<DmaTransport> dma;
};

// Opens one device's transports for `options` (reads options.device_args); the message of a
// failure says which device node / card / file was missing and what to check.
using OpenTransportsFn = Status (*)(const DriverOptions& options, Transports* out);

std::unique_ptr<Driver> CreateProtocolDriver(const char* name, OpenTransportsFn open);

// The implementation, public for devices that add to it (tsim records an instruction timeline
// through the hooks below). A plain hardware driver uses CreateProtocolDriver.
class ProtocolDriver : public Driver {
 public:
  // `name` must outlive the driver (a string literal).
  ProtocolDriver(const char* name, OpenTransportsFn open) : name_(name), open_(open) {}
  ~ProtocolDriver() override;

  const char* name() const override { return name_; }
  bool executes_programs() const override { return true; }
  Status Open(const DriverOptions& options) override;
  const HwConfig& config() const override { return config_; }
  Status Allocate(uint64_t bytes, uint64_t align, uint64_t* addr) override;
  Status Free(uint64_t addr) override;
  Status CopyIn(uint64_t dst, const void* src, uint64_t bytes) override;
  Status CopyOut(void* dst, uint64_t src, uint64_t bytes) override;
  Status Submit(uint64_t insn_addr, uint32_t insn_count) override;
  Status Wait(uint32_t timeout_ms) override;
  Status ReadCounters(DeviceCounters* out) override;
  void Close() override;

 protected:
  // Opens the transports; the default calls the OpenTransportsFn.
  virtual Status OpenTransports(const DriverOptions& options, Transports* out);
  // After Open succeeded / before Close tears the transports down.
  virtual Status OnOpen(const DriverOptions& /*options*/) { return Status::Ok(); }
  virtual void OnClose() {}
  // Right after the start write of a run of `insn_count` instructions whose host copy is `stream`.
  virtual void OnStart(const uint8_t* /*stream*/, uint32_t /*insn_count*/) {}
  // After the wait ended with `outcome` (counters are read when it reached done); returns what
  // Wait reports.
  virtual Status OnRunEnd(Status outcome) { return outcome; }

  bool is_open() const { return accel_.is_open(); }

 private:
  // The live allocation holding [addr, addr + bytes), or null.
  const DmaBuffer* Find(uint64_t addr, uint64_t bytes) const;
  Status CheckOpen() const;
  Status RangeError(const char* what, uint64_t addr, uint64_t bytes) const;

  const char* name_;
  OpenTransportsFn open_;
  Transports transports_;
  Accelerator accel_;
  HwConfig config_;
  std::map<uint64_t, DmaBuffer> buffers_;  // by device address
};

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_DRIVERS_PROTOCOL_PROTOCOL_DRIVER_H_
