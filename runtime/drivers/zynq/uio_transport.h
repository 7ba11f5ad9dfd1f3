// The accelerator's register window and interrupt through Linux UIO (uio_pdrv_genirq bound to the
// overlay's `generic-uio` node, whose UIO name is "loom"; vta_hw/gen/dt_overlay.h).
#ifndef LOOM_RUNTIME_DRIVERS_ZYNQ_UIO_TRANSPORT_H_
#define LOOM_RUNTIME_DRIVERS_ZYNQ_UIO_TRANSPORT_H_

#include <cstdint>
#include <memory>
#include <string>

#include "runtime/drivers/protocol/transport.h"

namespace loom::runtime::zynq {

struct UioOptions {
  std::string root = "/";     // sysfs and /dev are looked up under this folder (tests: a temp dir)
  std::string name = "loom";  // the wanted /sys/class/uio/uioN/name
};

// Finds the UIO device named `name`: the uioN (lowest N first) whose name matches. *device is
// "uioN". kNotFound with the names seen and what to check when there is none.
Status FindUioDevice(const UioOptions& options, std::string* device);

class UioTransport : public RegisterTransport {
 public:
  // Finds the device, reads map0's addr and size, opens /dev/uioN and maps the window.
  static Status Open(const UioOptions& options, std::unique_ptr<UioTransport>* out);
  ~UioTransport() override;
  UioTransport(const UioTransport&) = delete;
  UioTransport& operator=(const UioTransport&) = delete;

  Status Read32(uint32_t offset, uint32_t* value) override;
  Status Write32(uint32_t offset, uint32_t value) override;
  // Writes 1 (uint32) to /dev/uioN, uio_pdrv_genirq's unmask.
  Status EnableInterrupt() override;
  // poll() then read() of the 4-byte interrupt count.
  Status WaitInterrupt(int timeout_ms, bool* fired) override;

  const std::string& device_path() const { return device_path_; }
  uint64_t phys_addr() const { return phys_addr_; }
  uint64_t window_bytes() const { return size_; }
  uint32_t interrupt_count() const { return interrupt_count_; }

 private:
  UioTransport() = default;
  Status CheckOffset(uint32_t offset, const char* op) const;

  std::string device_path_;
  int fd_ = -1;
  volatile uint32_t* regs_ = nullptr;
  uint64_t phys_addr_ = 0, size_ = 0;
  uint32_t interrupt_count_ = 0;
};

}  // namespace loom::runtime::zynq

#endif  // LOOM_RUNTIME_DRIVERS_ZYNQ_UIO_TRANSPORT_H_
