// Scripted hardware for the protocol's unit tests: a register file that answers the way
// docs/registers.md says the accelerator does, run by a script (how long a run takes, how it
// ends), with its own device clock; and a non-coherent DMA region that records every sync. The real
// RTL runs the same protocol in protocol_tsim_test.cc.
#ifndef LOOM_TESTS_PROTOCOL_FAKE_TRANSPORTS_H_
#define LOOM_TESTS_PROTOCOL_FAKE_TRANSPORTS_H_

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "runtime/drivers/protocol/registers.h"
#include "runtime/drivers/protocol/transport.h"

namespace loom::testing {

using runtime::Coherence;
using runtime::DmaBuffer;
using runtime::DmaTransport;
using runtime::RegisterTransport;
namespace reg = runtime::reg;

class FakeRegisters : public RegisterTransport {
 public:
  // How the scripted accelerator behaves after a start.
  struct Script {
    uint64_t run_ns = 10000;         // device time from start to done; ~0: never done (a hang)
    uint32_t status = 0;             // STATUS at done
    uint32_t error_insn = 0;         // ERROR_INSN at done
    uint32_t tokens = 0;             // TOKENS
    std::array<uint32_t, 3> last{};  // LOAD/COMPUTE/STORE_LAST
    uint32_t fetched = 0;
    std::array<SequencerState, 3> states{SequencerState::kUnknown, SequencerState::kUnknown,
                                         SequencerState::kUnknown};
  };

  bool has_interrupt = true;
  uint32_t version = reg::kExpectedVersion;
  uint64_t config_hash = 0;
  Script script;
  uint64_t now_ns = 1000;  // the device clock
  // Every access, in order: "r CTRL", "w 0x0c=1", "enable", "wait 100", "pause 50", "reset".
  std::vector<std::string> log;
  std::array<uint32_t, 0x80 / 4> regs{};

  static std::string Hex(uint32_t v) {
    char b[16];
    std::snprintf(b, sizeof b, "0x%02x", v);
    return b;
  }
  bool done() const { return running_ && now_ns - start_ns_ >= script.run_ns; }

  Status Read32(uint32_t offset, uint32_t* value) override {
    if (offset % 4 != 0 || offset >= 0x80) return OutOfRange("offset " + Hex(offset));
    log.push_back("r " + Hex(offset));
    Update();
    *value = regs[offset / 4];
    return Status::Ok();
  }
  Status Write32(uint32_t offset, uint32_t value) override {
    if (offset % 4 != 0 || offset >= 0x80) return OutOfRange("offset " + Hex(offset));
    log.push_back("w " + Hex(offset) + "=" + std::to_string(value));
    if (offset == reg::kIsr) {
      regs[reg::kIsr / 4] &= ~value;  // W1C
    } else if (offset == reg::kCtrl) {
      if (value & reg::kCtrlStart) {
        running_ = true;
        start_ns_ = now_ns;
        regs[0] = reg::kCtrlStart;
      }
    } else {
      regs[offset / 4] = value;
    }
    Update();
    return Status::Ok();
  }
  Status EnableInterrupt() override {
    if (!has_interrupt) return Unimplemented("no interrupt");
    log.push_back("enable");
    return Status::Ok();
  }
  Status WaitInterrupt(int timeout_ms, bool* fired) override {
    if (!has_interrupt) return Unimplemented("no interrupt");
    log.push_back("wait " + std::to_string(timeout_ms));
    const uint64_t end = now_ns + uint64_t(timeout_ms) * 1000000;
    if (running_ && !done() && script.run_ns <= end - start_ns_) now_ns = start_ns_ + script.run_ns;
    if (!done()) now_ns = end;
    Update();
    *fired = (regs[reg::kIsr / 4] & 1) && regs[reg::kGie / 4] && regs[reg::kIer / 4];
    return Status::Ok();
  }
  uint64_t NowNanos() override { return now_ns; }
  void Pause(uint32_t micros) override {
    log.push_back("pause " + std::to_string(micros));
    now_ns += uint64_t{micros} * 1000;
  }
  SequencerState ModuleState(int module) override { return script.states[module]; }
  Status ResetAccelerator() override {
    log.push_back("reset");
    running_ = false;
    regs[0] = reg::kCtrlIdle;
    return Status::Ok();
  }

  size_t Count(const std::string& entry) const {
    size_t n = 0;
    for (const std::string& e : log) n += e == entry;
    return n;
  }

 private:
  void Update() {
    regs[reg::kVersion / 4] = version;
    regs[reg::kConfigHashLo / 4] = static_cast<uint32_t>(config_hash);
    regs[reg::kConfigHashHi / 4] = static_cast<uint32_t>(config_hash >> 32);
    if (!running_) {
      if (!(regs[0] & reg::kCtrlDone)) regs[0] |= reg::kCtrlIdle;
      return;
    }
    regs[reg::kTokens / 4] = script.tokens;
    regs[reg::kFetched / 4] = script.fetched;
    regs[reg::kLoadLast / 4] = script.last[0];
    regs[reg::kComputeLast / 4] = script.last[1];
    regs[reg::kStoreLast / 4] = script.last[2];
    const uint64_t cycles = (now_ns - start_ns_) / 10;  // 100 MHz
    regs[reg::kCyclesLo / 4] = static_cast<uint32_t>(cycles);
    regs[reg::kCyclesHi / 4] = static_cast<uint32_t>(cycles >> 32);
    if (done()) {
      running_ = false;
      regs[0] = reg::kCtrlDone | reg::kCtrlIdle | reg::kCtrlReady;
      regs[reg::kStatus / 4] = script.status;
      regs[reg::kErrorInsn / 4] = script.error_insn;
      regs[reg::kGemmIters / 4] = 7;
      regs[reg::kFetched / 4] = script.fetched;
      if (regs[reg::kIer / 4] & 1) regs[reg::kIsr / 4] |= 1;
    }
  }

  bool running_ = false;
  uint64_t start_ns_ = 0;
};

// A non-coherent DMA region: the CPU view is `host`; syncs are recorded, not performed.
class FakeDma : public DmaTransport {
 public:
  struct Sync {
    bool for_device;
    uint64_t buffer, offset, bytes;
  };
  explicit FakeDma(uint64_t base = 0x40000000, uint64_t bytes = 1 << 20)
      : base_(base), memory_(bytes) {}

  Coherence coherence() const override { return Coherence::kNonCoherent; }
  Status Allocate(uint64_t bytes, uint64_t align, DmaBuffer* buffer) override {
    next_ = (next_ + align - 1) / align * align;
    if (next_ + bytes > memory_.size()) return OutOfRange("fake DMA region full");
    buffer->device_address = base_ + next_;
    buffer->host = memory_.data() + next_;
    buffer->bytes = bytes;
    next_ += bytes;
    return Status::Ok();
  }
  Status Free(const DmaBuffer&) override { return Status::Ok(); }
  Status SyncForDevice(const DmaBuffer& b, uint64_t offset, uint64_t bytes) override {
    syncs.push_back({true, b.device_address, offset, bytes});
    return Status::Ok();
  }
  Status SyncForCpu(const DmaBuffer& b, uint64_t offset, uint64_t bytes) override {
    syncs.push_back({false, b.device_address, offset, bytes});
    return Status::Ok();
  }

  std::vector<Sync> syncs;

 private:
  uint64_t base_;
  std::vector<uint8_t> memory_;
  uint64_t next_ = 0;
};

}  // namespace loom::testing

#endif  // LOOM_TESTS_PROTOCOL_FAKE_TRANSPORTS_H_
