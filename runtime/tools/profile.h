// The profiling view (`loom profile`): one inference, attributed to the package's layers.
//
// On a device with a per-instruction timeline (fsim) every accelerator op's instruction range
// (Op.insn_begin/insn_end) is charged with the cycles from the end of the previous layer to the
// end of its own last instruction (layers are separated by barriers, so these intervals tile the
// segment; what is left is the FINISH tail), plus the stall cycles its instructions waited, by
// cause. MACs and bytes come from the instructions themselves, counted as fsim counts them, so
// per-layer sums equal the segment's counters. fsim and tsim (the RTL's trace port) have timelines;
// on a device without one (cpu) only the segments' counters have cycles; layers keep their MACs
// and bytes.
//
// Each accelerator layer also gets its roofline bound (runtime/core/roofline.h) on the model's own
// MACs (no channel padding) and on its compulsory DRAM traffic (every byte of its input and
// constant tensors read once, of its outputs written once, as the package lays them out), and the
// ratio cycles / bound: 1.0 is the limit for any schedule on this config.
#ifndef LOOM_RUNTIME_TOOLS_PROFILE_H_
#define LOOM_RUNTIME_TOOLS_PROFILE_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/roofline.h"
#include "runtime/core/status.h"
#include "runtime/exec/executor.h"

namespace loom::runtime {

// Stall cycles by cause, as the token queues name them.
struct StallCycles {
  uint64_t compute_on_load = 0;   // compute waiting for a load->compute token
  uint64_t load_on_compute = 0;   // load waiting for a compute->load token (buffer reuse)
  uint64_t store_on_compute = 0;  // store waiting for a compute->store token
  uint64_t compute_on_store = 0;  // compute waiting for a store->compute token
  uint64_t queue_full = 0;        // a push waiting for room in a full token queue
  uint64_t dram_port = 0;         // waiting for the shared DRAM read or write port
  uint64_t fetch = 0;             // waiting for the instruction to be fetched (and FINISH drain)
  uint64_t total() const;
  void Add(const InsnTiming& t);
};

struct LayerProfile {
  std::string name;
  std::string op;       // "Conv2d", "Conv2d(dw)", "Add", ...
  size_t segment = 0;   // index
  bool accel = false;   // in an accelerator segment
  uint32_t insn_begin = 0, insn_end = 0;
  bool timed = false;   // cycles and stalls below come from a timeline
  uint64_t cycles = 0;
  uint64_t macs = 0;        // executed by GEMM (channel padding included), or the op's on the host
  uint64_t model_macs = 0;  // the op's own count (Op.macs)
  uint64_t bytes_loaded = 0, bytes_stored = 0;
  std::array<uint64_t, isa::kNumModules> busy{};
  StallCycles stalls;
  double gemm_utilization = 0;  // macs / (cycles x peak), when timed
  double real_utilization = 0;  // model_macs / (cycles x peak), when timed
  uint64_t min_bytes_read = 0, min_bytes_written = 0;  // compulsory traffic (accelerator layers)
  RooflineBound bound;  // on model_macs and the compulsory traffic (accelerator layers)
  // Ops fused into this one (an empty instruction range right after its own: a max pool run in
  // the convolution's tiles). Their row is this one: name and op read "conv+pool", the MACs and
  // the compulsory traffic are the pair's (the convolution's output is never stored or loaded).
  std::vector<std::string> fused;
  // Run on the host (a cpu segment, or any segment on the cpu device): mean wall time per run.
  double host_ms = -1;
};

struct SegmentSummary {
  std::string name;
  bool accel = false, on_device = false, timed = false;
  uint64_t cycles = 0, macs = 0, bytes_loaded = 0, bytes_stored = 0;
  uint64_t untimed_tail = 0;  // timed: cycles after the last layer's end (FINISH, drain)
  double wall_ms = 0;
  double gemm_utilization = 0;
};

struct ProfileReport {
  std::string device;
  HwConfig config;
  std::vector<SegmentSummary> segments;
  std::vector<LayerProfile> layers;
  uint64_t cycles = 0, macs = 0;
  uint64_t device_macs = 0;        // the part of macs done in the device's cycles
  uint64_t device_model_macs = 0;  // model_macs of the layers run on the device
  uint64_t bound_cycles = 0;       // sum of the device layers' roofline bounds
  bool timed = false;              // every device segment had a timeline
};

// Zero inputs (float32) in every input's user-visible shape. The loader bounds each input's size,
// but the product is checked here too: this allocates it.
Status ZeroInputs(const Package& package, std::vector<HostTensor>* out);

// Runs one inference on `exec` (opened with ExecutorOptions::timeline for per-layer cycles) and
// attributes it. Resets the executor's profile first.
Status ProfileInference(Executor& exec, const std::vector<HostTensor>& inputs, ProfileReport* out);

// The per-layer and per-segment tables.
std::string FormatProfile(const ProfileReport& report);
std::string ProfileToJson(const ProfileReport& report);

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_TOOLS_PROFILE_H_
