#include "runtime/drivers/null/null_driver.h"

namespace loom::runtime {
namespace {

Status Missing(const char* call) {
  return Unimplemented(std::string("the null device does not implement ") + call);
}

class NullDriver final : public Driver {
 public:
  const char* name() const override { return "null"; }
  bool executes_programs() const override { return true; }
  Status Open(const DriverOptions&) override { return Missing("Open"); }
  const HwConfig& config() const override { return config_; }
  Status Allocate(uint64_t, uint64_t, uint64_t*) override { return Missing("Allocate"); }
  Status Free(uint64_t) override { return Missing("Free"); }
  Status CopyIn(uint64_t, const void*, uint64_t) override { return Missing("CopyIn"); }
  Status CopyOut(void*, uint64_t, uint64_t) override { return Missing("CopyOut"); }
  Status Submit(uint64_t, uint32_t) override { return Missing("Submit"); }
  Status Wait(uint32_t) override { return Missing("Wait"); }
  Status ReadCounters(DeviceCounters*) override { return Missing("ReadCounters"); }
  void Close() override {}

 private:
  HwConfig config_;
};

}  // namespace

std::unique_ptr<Driver> CreateNullDriver() { return std::make_unique<NullDriver>(); }

}  // namespace loom::runtime
