#include "runtime/drivers/sim/sim_driver.h"

namespace loom::runtime {

Status SimDriver::CheckOpen() {
  return dram() ? Status::Ok() : FailedPrecondition(std::string(name()) + " device is not open");
}

Status SimDriver::CheckRange(uint64_t addr, uint64_t bytes) {
  LOOM_RETURN_IF_ERROR(CheckOpen());
  if (!heap_.Contains(addr, bytes)) {
    return OutOfRange(std::string(name()) + ": device range [" + std::to_string(addr) + ", +" +
                      std::to_string(bytes) + ") is not inside an allocation");
  }
  return Status::Ok();
}

Status SimDriver::Allocate(uint64_t bytes, uint64_t align, uint64_t* addr) {
  LOOM_RETURN_IF_ERROR(CheckOpen());
  return heap_.Allocate(bytes, align, addr);
}

Status SimDriver::Free(uint64_t addr) {
  LOOM_RETURN_IF_ERROR(CheckOpen());
  return heap_.Free(addr);
}

Status SimDriver::CopyIn(uint64_t dst, const void* src, uint64_t bytes) {
  LOOM_RETURN_IF_ERROR(CheckRange(dst, bytes));
  return dram()->Write(dst, src, bytes);
}

Status SimDriver::CopyOut(void* dst, uint64_t src, uint64_t bytes) {
  LOOM_RETURN_IF_ERROR(CheckRange(src, bytes));
  return dram()->Read(src, dst, bytes);
}

Status SimDriver::Submit(uint64_t insn_addr, uint32_t insn_count) {
  LOOM_RETURN_IF_ERROR(CheckOpen());
  if (pending_) return FailedPrecondition(std::string(name()) + ": a submission is already in flight");
  if (insn_addr % HwConfig::kInsnBytes != 0 || insn_count == 0 ||
      !heap_.Contains(insn_addr, uint64_t{insn_count} * HwConfig::kInsnBytes)) {
    return InvalidArgument(std::string(name()) + ": instruction stream at " +
                           std::to_string(insn_addr) + " (" + std::to_string(insn_count) +
                           " instructions) is not aligned or not inside an allocation");
  }
  insn_addr_ = insn_addr;
  insn_count_ = insn_count;
  pending_ = true;
  return Status::Ok();
}

Status SimDriver::TakeSubmission(uint64_t* insn_addr, uint32_t* insn_count) {
  LOOM_RETURN_IF_ERROR(CheckOpen());
  if (!pending_) return FailedPrecondition(std::string(name()) + ": nothing submitted");
  pending_ = false;
  *insn_addr = insn_addr_;
  *insn_count = insn_count_;
  return Status::Ok();
}

}  // namespace loom::runtime
