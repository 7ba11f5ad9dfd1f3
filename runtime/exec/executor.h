// The executor: runs a loaded package on one device (docs/runtime.md).
//
//   load package -> open driver (config checked) -> place arena, constants, micro-ops and linked
//   programs in device memory -> per inference: quantize + pack inputs into the arena, run the
//   segments in order (accelerator segments on the device; CPU segments, and every segment on a
//   device without an accelerator, on the host over the same arena bytes), unpack + dequantize
//   outputs.
//
// Ownership: the Executor owns the Package and the Driver, and every device allocation; all are
// released by its destructor. The arena is sized by the package and everything else a run needs
// at Create, so a run allocates nothing (on cpu and fsim; docs/runtime.md, "Allocation") unless it
// fails or its output shapes change. Not thread-safe: one inference at a time.
//
// A remote device (runtime/remote/client.h) is an Executor whose package runs on a server: it
// overrides Run and TraceJson and fills the same profile and timelines from the server's replies,
// so loom-run, the C API and the profiler drive both alike.
#ifndef LOOM_RUNTIME_EXEC_EXECUTOR_H_
#define LOOM_RUNTIME_EXEC_EXECUTOR_H_

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/dtype.h"
#include "runtime/drivers/driver.h"
#include "runtime/exec/cpu_ops.h"
#include "runtime/package/package.h"

namespace loom::runtime {

// Five minutes of host time per submission: far above any model the tests and the zoo run on fsim
// or tsim, and a bound on what a hung or endless program costs before it is reported.
inline constexpr uint32_t kDefaultWallTimeoutMs = 300000;

struct ExecutorOptions {
  // Open the device with this config instead of the package's. Simulators instantiate it;
  // a package built for another config is then refused (FailedPrecondition), as hardware would.
  bool has_device_config = false;
  HwConfig device_config;
  std::string device_args;       // DriverOptions::device_args (the device string's ARGS)
  bool trace = false;            // record the device's instruction timeline (TraceJson)
  bool timeline = false;         // keep per-instruction timing of each segment's last run
  uint32_t timeout_ms = 600000;  // per accelerator submission, device time
  // Per accelerator submission, host time on a simulator (DriverOptions::wall_timeout_ms);
  // 0: no limit.
  uint32_t wall_timeout_ms = kDefaultWallTimeoutMs;
  std::string waves;             // tsim: FST waveform file
  // The int8 kernels CPU segments run on (kernels/int8/fast/fast.h): "auto" (the fastest this CPU
  // has), "reference", "portable", "avx2", "avx512vnni", "neon" or "neondot"; empty means
  // LOOM_CPU_KERNELS, else auto. All compute the same bytes; Create refuses an unknown name or one
  // this CPU cannot run.
  std::string cpu_kernels;
  // Run the ops the package has native code for on this CPU through that code (docs/cpu.md,
  // "Native code"); false: the kernels above for every op (loom-run --no-native).
  bool native_code = true;
  // Create refuses (FailedPrecondition) a package whose device memory — every region it places,
  // each rounded up to 4 KiB — would be larger.
  uint64_t max_device_memory = kDefaultMaxDeviceMemory;
};

// A tensor on the host, row-major, in the shape the user sees (Binding.shape).
struct HostTensor {
  std::string name;  // model input/output name; an empty input name binds the only input
  DType type = DType::kF32;  // the model tensor's type; kF32 also for an int8 input (quantized)
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;  // elements in C order, little-endian
};

struct RunOptions {
  bool int8_outputs = false;  // return int8 outputs as computed, without dequantizing
  // Called after each of the k runs of a stacked batch (done, k).
  std::function<void(uint64_t, uint64_t)> progress;
};

// Per-segment counters, accumulated over every run since the last ResetProfile().
struct SegmentProfile {
  std::string name;
  bool accel = false;      // an accelerator segment in the package
  bool on_device = false;  // ran on the device (else on the host from its op description)
  uint64_t runs = 0;
  uint64_t wall_ns = 0;
  uint64_t cycles = 0;  // device cycles (0 on the host)
  uint64_t macs = 0;
  // The part of macs the device did in its cycles (a total also holds host segments' MACs).
  uint64_t device_macs = 0;
  uint64_t bytes_loaded = 0;
  uint64_t bytes_stored = 0;
  uint64_t insns = 0;
  std::array<uint64_t, isa::kNumModules> busy{};
  // Host-run segments: each op's wall time (ns), summed over the runs.
  std::vector<uint64_t> op_wall_ns;
  // device_macs / (cycles x peak MACs per cycle); 0 when the segment has no cycles.
  double gemm_utilization(const HwConfig& config) const;
};

struct Profile {
  uint64_t inferences = 0;
  std::vector<SegmentProfile> segments;
  SegmentProfile Total() const;
};

class Executor {
 public:
  // Opens `driver` for the package and places everything in device memory. Errors: the device's
  // own (open, memory), and FailedPrecondition when the device's config hash is not the package's
  // or the package needs more than options.max_device_memory.
  static Status Create(std::unique_ptr<Package> package, std::unique_ptr<Driver> driver,
                       const ExecutorOptions& options, std::unique_ptr<Executor>* out);
  virtual ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  const Package& package() const { return *package_; }
  // The package's native code running on this CPU, or null (none for it, or native_code off).
  const NativeOps* native() const { return native_.get(); }
  Driver& driver() { return *driver_; }

  // Runs the model. Each model input must be given once, by name, as float32 (quantized with the
  // input's scale) or int8 (taken as is; only for int8 inputs). Its shape is the binding's, or has
  // a leading dimension k times the binding's: then the model runs k times and every output is
  // stacked along its leading dimension. Errors: NotFound (missing or unknown input name),
  // InvalidArgument (wrong shape, wrong dtype, wrong byte size, a shape whose byte size overflows,
  // stacked outputs too large for this host), and the device's errors.
  virtual Status Run(const std::vector<HostTensor>& inputs, const RunOptions& options,
                     std::vector<HostTensor>* outputs);

  const Profile& profile() const { return profile_; }
  void ResetProfile();
  // The device's instruction timeline over every accelerator submission (fsim).
  virtual Status TraceJson(std::string* out) { return driver_->TraceJson(out); }
  // With ExecutorOptions::timeline: per-instruction timing of segment `index`'s last run on the
  // device, indexed like its program; empty for CPU segments and devices without a timeline.
  const std::vector<InsnTiming>& timeline(size_t index) const { return timelines_[index]; }

 protected:
  // For a subclass that runs the package elsewhere (remote): it sets package_, driver_ (a device
  // that describes the remote one), device_programs_ and timelines_, then calls ResetProfile().
  Executor() = default;

  std::unique_ptr<Package> package_;
  std::unique_ptr<Driver> driver_;
  bool device_programs_ = false;  // accelerator segments run on the device
  Profile profile_;
  std::vector<std::vector<InsnTiming>> timelines_;  // per segment

 private:
  Status Place();
  Status RunOnce(const std::vector<const HostTensor*>& inputs, uint64_t slice, uint64_t slices,
                 const RunOptions& options, std::vector<HostTensor>* outputs);
  Status RunSegment(size_t index);
  Status CopyTensorIn(const pkg::Tensor* t);
  Status CopyTensorOut(const pkg::Tensor* t);

  ExecutorOptions options_;
  std::unique_ptr<NativeOps> native_;  // before cpu_, which calls into it
  std::unique_ptr<CpuOpRunner> cpu_;
  bool host_mapped_ = false;      // the device's arena is host memory (no copies)
  uint64_t arena_addr_ = 0, constants_addr_ = 0;
  struct DeviceProgram {
    uint64_t uops_addr = 0, insns_addr = 0;
    uint32_t insn_count = 0;
  };
  std::vector<DeviceProgram> programs_;  // per segment
  std::vector<uint64_t> allocations_;
  std::unique_ptr<uint8_t[]> host_arena_storage_;
  uint8_t* arena_ = nullptr;  // host view of the arena
  // Sized in Place() so that Run allocates nothing (docs/runtime.md, "Allocation").
  std::vector<std::string> input_names_, output_names_;
  std::vector<std::vector<int64_t>> input_shapes_, output_shapes_;
  std::vector<const HostTensor*> bound_;  // per model input, during Run
  std::vector<int8_t> io_scratch_;        // the largest int8 input or output, unpacked
};

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_EXEC_EXECUTOR_H_
