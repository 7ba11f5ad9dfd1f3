// The accelerator protocol of docs/registers.md, written once over a RegisterTransport: the check
// at open (VERSION, CONFIG_HASH), a run (INSN_ADDR/INSN_COUNT, start, wait by interrupt or by
// polling within a device-time timeout), the decoding of STATUS/ERROR_INSN into the Status fsim
// returns for the same problem, the hang report (*_LAST, TOKENS, CYCLES, FETCHED) and the counters.
// Every hardware driver (tsim, zynq, xrt) runs this code; only the transport differs.
//
//   Accelerator acc;
//   LOOM_RETURN_IF_ERROR(acc.Open(regs, config, "zynq"));
//   LOOM_RETURN_IF_ERROR(acc.Start(insn_addr, count, host_copy_of_stream));
//   LOOM_RETURN_IF_ERROR(acc.Wait(timeout_ns));
//   LOOM_RETURN_IF_ERROR(acc.ReadCounters(&counters));
//
// Errors the accelerator reports come back as: invalid instruction and stream errors
// kInvalidArgument, token imbalance kFailedPrecondition, DRAM errors kOutOfRange, a hang (no done
// within the timeout) kDeadlineExceeded. Each names the instruction (index and disassembly, decoded
// from the host's copy of the stream, which is what the caller wrote) or, for a hang, where each
// module stopped. Nothing here allocates per run except the text of an error.
#ifndef LOOM_RUNTIME_DRIVERS_PROTOCOL_ACCELERATOR_H_
#define LOOM_RUNTIME_DRIVERS_PROTOCOL_ACCELERATOR_H_

#include <cstdint>
#include <string>

#include "runtime/core/hw_config.h"
#include "runtime/core/isa.h"
#include "runtime/core/status.h"
#include "runtime/drivers/driver.h"
#include "runtime/drivers/protocol/transport.h"

namespace loom::runtime {

class Accelerator {
 public:
  // Device time between two reads of CTRL when the transport has no interrupt.
  static constexpr uint32_t kPollMicros = 50;
  // Longest single WaitInterrupt; between two, the protocol checks its own deadline.
  static constexpr int kInterruptSliceMs = 100;

  // Binds to `regs` (not owned; it must outlive the Accelerator or the next Open) and checks that
  // the hardware is the major VERSION this protocol speaks and was built for `config`
  // (CONFIG_HASH); a mismatch is kFailedPrecondition naming both values. `device` names the
  // device in messages ("tsim", "zynq"). Decides between interrupt and polling: the interrupt
  // when EnableInterrupt() works, polling when it is kUnimplemented.
  Status Open(RegisterTransport* regs, const HwConfig& config, const char* device);
  bool is_open() const { return regs_ != nullptr; }
  bool uses_interrupt() const { return use_irq_; }
  const HwConfig& config() const { return config_; }

  // Programs INSN_ADDR/INSN_COUNT and starts a run. `stream` is the host's copy of the
  // `insn_count` 16-byte instruction words (for messages; may be null); it must stay valid until
  // Wait() returns. kFailedPrecondition when the accelerator is not idle.
  Status Start(uint64_t insn_addr, uint32_t insn_count, const uint8_t* stream);
  bool running() const { return running_; }
  // Waits up to `timeout_ns` of device time (RegisterTransport::NowNanos) for done, then decodes
  // STATUS. On a hang the accelerator is reset through the transport when it can be.
  Status Wait(uint64_t timeout_ns);
  // The counters of the last run that reached done (valid == false before one did).
  Status ReadCounters(DeviceCounters* out);

 private:
  Status Read64(uint32_t lo, uint64_t* value);
  Status WaitDone(uint64_t timeout_ns, bool* done);
  Status ReadCountersFromDevice();
  Status ErrorStatus(uint32_t code, uint32_t insn);
  Status HangStatus(uint64_t timeout_ns, uint32_t host_limit_ms);
  // "load.inp sram=0 ..." for stream instruction `index`, from the host copy.
  std::string Describe(uint32_t index) const;
  bool DecodeAt(uint32_t index, isa::Insn* insn, std::string* why) const;
  std::string ModuleNow(isa::Module m, uint32_t last, uint32_t fetched,
                        RegisterTransport::SequencerState state) const;
  std::string Where() const { return std::string(device_) + ": "; }

  RegisterTransport* regs_ = nullptr;
  HwConfig config_;
  isa::Layout layout_;
  const char* device_ = "accelerator";
  bool use_irq_ = false;
  bool running_ = false;
  uint64_t insn_addr_ = 0;
  uint32_t insn_count_ = 0;
  const uint8_t* stream_ = nullptr;
  DeviceCounters counters_;
};

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_DRIVERS_PROTOCOL_ACCELERATOR_H_
