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
  CpuDriver() = default;
  // Over the caller's memory instead of a vector of our own.
  CpuDriver(uint8_t* memory, uint64_t bytes) : external_(memory), external_bytes_(bytes) {}

  const char* name() const override { return "cpu"; }
  bool executes_programs() const override { return false; }

  Status Open(const DriverOptions& options) override {
    if (open_) return FailedPrecondition("cpu device is already open");
    LOOM_RETURN_IF_ERROR(CheckNoDeviceArgs("cpu", options));
    if (external_ != nullptr) {
      if (options.memory_bytes > external_bytes_) {
        return OutOfRange(
            "cpu device: the package needs {} bytes of device memory, the memory region given to "
            "the device holds {}",
            options.memory_bytes, external_bytes_);
      }
      // Zeroed like the vector, so a run never sees what a previous package left.
      std::memset(external_, 0, static_cast<size_t>(options.memory_bytes));
      base_ptr_ = external_;
    } else {
      memory_.assign(options.memory_bytes, 0);
      base_ptr_ = memory_.data();
    }
    config_ = options.config;
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
    base_ptr_ = nullptr;
    heap_.Reset(kBase, 0);
  }

 private:
  Status CheckOpen() const {
    return open_ ? Status::Ok() : FailedPrecondition("cpu device is not open");
  }
  Status Map(uint64_t addr, uint64_t bytes, uint8_t** p) {
    LOOM_RETURN_IF_ERROR(CheckOpen());
    if (!heap_.Contains(addr, bytes)) {
      return OutOfRange("device range [{}, +{}) is not inside an allocation", addr, bytes);
    }
    *p = base_ptr_ + (addr - kBase);
    return Status::Ok();
  }

  bool open_ = false;
  HwConfig config_;
  std::vector<uint8_t> memory_;
  uint8_t* external_ = nullptr;  // the caller's memory, when given
  uint64_t external_bytes_ = 0;
  uint8_t* base_ptr_ = nullptr;  // device address kBase
  DeviceHeap heap_;
};

}  // namespace

std::unique_ptr<Driver> CreateCpuDriver() { return std::make_unique<CpuDriver>(); }

std::unique_ptr<Driver> CreateCpuDriverOver(uint8_t* memory, uint64_t bytes) {
  return std::make_unique<CpuDriver>(memory, bytes);
}

}  // namespace loom::runtime
