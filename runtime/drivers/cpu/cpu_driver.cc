#include "runtime/drivers/cpu/cpu_driver.h"

#include <cstring>
#include <vector>

#include "runtime/drivers/device_heap.h"

namespace loom::runtime {
namespace {

// Device addresses start at a non-zero base so a null address is never valid.
constexpr uint64_t kBase = 0x1000;

class CpuDriver final : public Driver {
 public:
  const char* name() const override { return "cpu"; }
  bool executes_programs() const override { return false; }

  Status Open(const DriverOptions& options) override {
    if (open_) return FailedPrecondition("cpu device is already open");
    LOOM_RETURN_IF_ERROR(CheckNoDeviceArgs("cpu", options));
    config_ = options.config;
    memory_.assign(options.memory_bytes, 0);
    heap_.Reset(kBase, options.memory_bytes);
    open_ = true;
    return Status::Ok();
  }
  const HwConfig& config() const override { return config_; }

  Status Allocate(uint64_t bytes, uint64_t align, uint64_t* addr) override {
    LOOM_RETURN_IF_ERROR(CheckOpen());
    return heap_.Allocate(bytes, align, addr);
  }
  Status Free(uint64_t addr) override {
    LOOM_RETURN_IF_ERROR(CheckOpen());
    return heap_.Free(addr);
  }
  Status CopyIn(uint64_t dst, const void* src, uint64_t bytes) override {
    uint8_t* p = nullptr;
    LOOM_RETURN_IF_ERROR(Map(dst, bytes, &p));
    if (bytes) std::memcpy(p, src, bytes);
    return Status::Ok();
  }
  Status CopyOut(void* dst, uint64_t src, uint64_t bytes) override {
    uint8_t* p = nullptr;
    LOOM_RETURN_IF_ERROR(Map(src, bytes, &p));
    if (bytes) std::memcpy(dst, p, bytes);
    return Status::Ok();
  }
  Status Submit(uint64_t, uint32_t) override {
    return Unimplemented("the cpu device has no accelerator: it runs segments from their op "
                         "description and does not execute instruction streams");
  }
  Status Wait(uint32_t) override {
    return FailedPrecondition("the cpu device has no submission to wait for");
  }
  Status ReadCounters(DeviceCounters* out) override {
    *out = DeviceCounters{};
    return CheckOpen();
  }
  uint8_t* HostPointer(uint64_t addr, uint64_t bytes) override {
    uint8_t* p = nullptr;
    return Map(addr, bytes, &p).ok() ? p : nullptr;
  }
  void Close() override {
    open_ = false;
    memory_.clear();
    memory_.shrink_to_fit();
    heap_.Reset(kBase, 0);
  }

 private:
  Status CheckOpen() const {
    return open_ ? Status::Ok() : FailedPrecondition("cpu device is not open");
  }
  Status Map(uint64_t addr, uint64_t bytes, uint8_t** p) {
    LOOM_RETURN_IF_ERROR(CheckOpen());
    if (!heap_.Contains(addr, bytes)) {
      return OutOfRange("device range [" + std::to_string(addr) + ", +" + std::to_string(bytes) +
                        ") is not inside an allocation");
    }
    *p = memory_.data() + (addr - kBase);
    return Status::Ok();
  }

  bool open_ = false;
  HwConfig config_;
  std::vector<uint8_t> memory_;
  DeviceHeap heap_;
};

}  // namespace

std::unique_ptr<Driver> CreateCpuDriver() { return std::make_unique<CpuDriver>(); }

}  // namespace loom::runtime
