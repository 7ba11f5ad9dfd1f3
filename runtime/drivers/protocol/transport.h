// The two small interfaces the accelerator protocol runs over: a register window (with an optional
// interrupt) and DMA memory the accelerator reads and writes. The protocol (registers.md: start,
// poll or wait for done, read counters) is written once against these, so tsim, a Zynq board under
// Linux and an XRT card differ only in their transports.
//
// Ownership: a transport owns its mappings and file descriptors and releases them in its
// destructor; a DmaBuffer is a view into the transport's DMA region, valid from Allocate until Free
// or the transport's destruction, whichever comes first. No exceptions, no RTTI: every call returns
// a Status.
#ifndef LOOM_RUNTIME_DRIVERS_PROTOCOL_TRANSPORT_H_
#define LOOM_RUNTIME_DRIVERS_PROTOCOL_TRANSPORT_H_

#include <cstdint>

#include "runtime/core/platform.h"
#include "runtime/core/status.h"

namespace loom::runtime {

// 32-bit registers at byte offsets inside one window (docs/registers.md).
class RegisterTransport {
 public:
  virtual ~RegisterTransport() = default;

  // `offset` must be 4-byte aligned and inside the window; otherwise kOutOfRange.
  virtual Status Read32(uint32_t offset, uint32_t* value) = 0;
  virtual Status Write32(uint32_t offset, uint32_t value) = 0;

  // Unmasks the interrupt so the next one is delivered (UIO masks it again after each one).
  // kUnimplemented when the transport has no interrupt: callers then poll the status register.
  virtual Status EnableInterrupt() = 0;
  // Waits up to `timeout_ms` (0: just check) for an interrupt. *fired is false on timeout, which is
  // not an error: the caller decides how long to keep waiting. kUnimplemented as above.
  virtual Status WaitInterrupt(int timeout_ms, bool* fired) = 0;

  // Time as the device lives it, which is what a wait's timeout counts. Hardware keeps the
  // defaults: the platform's monotonic clock and pause (runtime/core/platform.h; a bare-metal
  // image supplies its own). A simulator overrides both so that its simulated time is the clock
  // (Pause then simulates `micros` of device time), and a timeout means the same number of
  // accelerator cycles on the model as on the board.
  virtual uint64_t NowNanos() { return MonotonicNanos(); }
  virtual void Pause(uint32_t micros) { PauseMicros(micros); }

  // Simulators only: the host-time (wall-clock) limit in ms when it ran out during the current run,
  // else 0. A simulator can need hours for a second of device time, so it bounds its own waits by
  // host time too; the protocol then reports the hang as caused by that limit. Hardware: 0.
  virtual uint32_t ExpiredHostLimitMs() { return 0; }

  // Optional: what each execution module's sequencer is doing right now (the hang report names
  // it). Called when a wait gives up, before any register is read. kUnknown when the transport
  // cannot see it (hardware shows only the registers).
  enum class SequencerState : uint8_t {
    kUnknown,
    kNoInsn,    // no instruction at the head of its queue
    kExec,      // executing
    kPopPrev,   // waiting for a token from the previous module
    kPopNext,   // ... from the next module
    kPushPrev,  // waiting for room to push a token to the previous module
    kPushNext,  // ... to the next module
  };
  virtual SequencerState ModuleState(int /*module*/) { return SequencerState::kUnknown; }

  // Optional: returns a hung accelerator to idle (a reset line, a simulator's reset), so the next
  // run can start. kUnimplemented when there is no way; the device then stays busy.
  virtual Status ResetAccelerator() {
    return Unimplemented("this transport cannot reset the accelerator");
  }
};

// How the CPU's view of DMA memory relates to the accelerator's.
enum class Coherence {
  kNonCoherent,  // cached by the CPU, not snooped: syncs do cache maintenance
  kCoherent,     // the port snoops the CPU caches (dma-coherent): syncs are no-ops
  kUncached,     // mapped uncached (O_SYNC): syncs are no-ops, CPU accesses are slow
};

const char* CoherenceName(Coherence c);

// A piece of DMA memory: `device_address` is what the accelerator uses (a physical or bus address,
// up to 64 bits), `host` is where the CPU sees the same bytes. Owned by the transport that made it.
struct DmaBuffer {
  uint64_t device_address = 0;
  void* host = nullptr;
  uint64_t bytes = 0;
};

class DmaTransport {
 public:
  virtual ~DmaTransport() = default;

  virtual Coherence coherence() const = 0;
  // `align` is a power of two; kOutOfRange when the region has no room left.
  virtual Status Allocate(uint64_t bytes, uint64_t align, DmaBuffer* buffer) = 0;
  virtual Status Free(const DmaBuffer& buffer) = 0;
  // Hands [offset, offset + bytes) of `buffer` to the accelerator after the CPU wrote it (cache
  // clean), or back to the CPU before it reads what the accelerator wrote (cache invalidate).
  // kOutOfRange when the range is not inside `buffer` or `buffer` is not a live allocation.
  virtual Status SyncForDevice(const DmaBuffer& buffer, uint64_t offset, uint64_t bytes) = 0;
  virtual Status SyncForCpu(const DmaBuffer& buffer, uint64_t offset, uint64_t bytes) = 0;
};

inline const char* CoherenceName(Coherence c) {
  switch (c) {
    case Coherence::kNonCoherent:
      return "noncoherent";
    case Coherence::kCoherent:
      return "coherent";
    case Coherence::kUncached:
      return "uncached";
  }
  return "unknown";
}

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_DRIVERS_PROTOCOL_TRANSPORT_H_
