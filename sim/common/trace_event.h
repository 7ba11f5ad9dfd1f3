// The instruction timeline both simulators record (fsim from its scheduler, tsim from the RTL's
// trace port), and the runtime folds into traces and per-instruction timing.
#ifndef LOOM_SIM_COMMON_TRACE_EVENT_H_
#define LOOM_SIM_COMMON_TRACE_EVENT_H_

#include <cstdint>

#include "runtime/core/isa.h"

namespace loom::sim {

// One interval on the instruction timeline: an instruction executing, or a module stalled.
struct TraceEvent {
  enum class Kind : uint8_t { kExec, kStallFetch, kStallPop, kStallPush, kStallPort, kStallFinish };
  Kind kind = Kind::kExec;
  isa::Module module = isa::Module::kLoad;
  uint32_t insn = 0;                              // index in the stream
  isa::Queue queue = isa::Queue::kLoadToCompute;  // for kStallPop / kStallPush
  uint64_t begin = 0;
  uint64_t end = 0;
};

// "exec", "wait token", ...: the name a trace viewer shows for an interval of this kind.
inline const char* TraceEventKindName(TraceEvent::Kind k) {
  switch (k) {
    case TraceEvent::Kind::kExec:
      return "exec";
    case TraceEvent::Kind::kStallFetch:
      return "wait fetch";
    case TraceEvent::Kind::kStallPop:
      return "wait token";
    case TraceEvent::Kind::kStallPush:
      return "wait queue room";
    case TraceEvent::Kind::kStallPort:
      return "wait DRAM port";
    case TraceEvent::Kind::kStallFinish:
      return "wait drain";
  }
  return "?";
}

}  // namespace loom::sim

#endif  // LOOM_SIM_COMMON_TRACE_EVENT_H_
