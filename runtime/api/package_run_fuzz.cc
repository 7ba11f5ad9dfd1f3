// Fuzz target for running packages: the loader, the executor, the cpu device's kernels and fsim,
// past the point where package_fuzz stops. Nothing may crash, hang or allocate without bound.
//
// Input: one mode byte, then a payload.
//   mode bit 0 == 0  "package": the payload is a package image. If it loads (checksum not
//                    required, as in package_fuzz) and fits the budget below, it runs on cpu and
//                    on fsim, with zeros and with a fixed pattern shaped from its input bindings.
//   mode bit 0 == 1  "genuine": package (mode >> 2) % kNumPackages of fuzz_packages.h, with input
//                    values taken from the payload (NaN and infinities included); bit 1 asks for
//                    int8 outputs. When both devices succeed their outputs must be bit-identical
//                    (DESIGN.md §2.5); a difference is printed and the target aborts.
// Why the comparison needs genuine packages: the loader cannot prove that an accelerator program
// computes what its segment's op description says (the cpu device runs the description, fsim the
// program), so a mutated package may legitimately disagree — and libFuzzer can reseal a mutated
// package's checksum, so a valid checksum proves nothing either.
//
// Budget per input: arena and constants at most 4 MiB each, at most 65536 instructions, input
// bindings of at most 2^18 elements, an estimate of the host work of every op (output elements x
// (input elements + window)) below 2^27, and on fsim 2 ms of device time and 250 ms of host time
// per segment (20 s for genuine packages). Packages beyond the budget are skipped, not run.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "runtime/api/fuzz_packages.h"
#include "runtime/api/host_runtime.h"
#include "runtime/api/session.h"
#include "runtime/core/checked_math.h"

namespace {

using loom::DType;
using loom::Status;
using loom::runtime::Executor;
using loom::runtime::HostTensor;
using loom::runtime::Package;
namespace pkg = loom::pkg;

constexpr uint64_t kMaxArenaBytes = 4 << 20;
constexpr uint64_t kMaxConstantsBytes = 4 << 20;
constexpr uint64_t kMaxInsns = 1 << 16;
constexpr uint64_t kMaxInputElements = 1 << 18;
constexpr uint64_t kMaxHostWork = 1 << 27;
constexpr uint32_t kDeviceTimeoutMs = 2;  // 200k cycles at 100 MHz
constexpr uint32_t kWallTimeoutMs = 250;
// Genuine packages run in microseconds; their outcomes are compared, so the host-time limit, the
// one limit that depends on the machine's load, must not decide them.
constexpr uint32_t kGenuineWallTimeoutMs = 20000;

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "package_run_fuzz: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

uint64_t SatMul(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  return loom::CheckedMul(a, b, &r) ? r : UINT64_MAX;
}
uint64_t SatAdd(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  return loom::CheckedAdd(a, b, &r) ? r : UINT64_MAX;
}

uint64_t Elements(const flatbuffers::Vector<uint32_t>* shape) {
  uint64_t n = 0;
  return loom::runtime::ShapeElements(shape, &n) ? n : UINT64_MAX;
}

uint64_t TensorElements(const pkg::Package& root, int32_t index) {
  if (index < 0 || static_cast<uint32_t>(index) >= root.tensors()->size()) return 0;
  return Elements(root.tensors()->Get(static_cast<flatbuffers::uoffset_t>(index))->shape());
}

uint64_t WindowArea(const pkg::Window* w) { return w ? SatMul(w->kh(), w->kw()) : 0; }

// Per output element, how many steps an op may take besides reading its inputs: the window of
// convolutions and pools (its padding can make it larger than the input).
uint64_t OpWindow(const pkg::Op& op) {
  switch (op.params_type()) {
    case pkg::OpParams::Conv2d:
      return WindowArea(op.params_as_Conv2d()->window());
    case pkg::OpParams::MaxPool:
      return WindowArea(op.params_as_MaxPool()->window());
    case pkg::OpParams::AvgPool:
      return WindowArea(op.params_as_AvgPool()->window());
    case pkg::OpParams::FloatOp: {
      uint64_t area = 0;
      const auto* attrs = op.params_as_FloatOp()->attrs();
      if (!attrs) return 0;
      for (const pkg::FloatAttr* a : *attrs) {
        if (a->name()->str() != "kernel_shape" || !a->ints()) continue;
        area = 1;
        for (int64_t k : *a->ints()) area = SatMul(area, k > 0 ? static_cast<uint64_t>(k) : 1);
      }
      return area;
    }
    default:
      return 0;
  }
}

// Whether the package is small enough to run within the budget.
bool WithinBudget(const Package& p) {
  const pkg::Package& root = p.root();
  if (p.arena_bytes() > kMaxArenaBytes || p.constants_bytes() > kMaxConstantsBytes) return false;
  uint64_t insns = 0;
  uint64_t work = 0;
  for (size_t s = 0; s < p.num_segments(); ++s) {
    if (const loom::runtime::Program* prog = p.program(s)) insns += prog->insns.size();
    const pkg::Segment* seg = root.segments()->Get(static_cast<flatbuffers::uoffset_t>(s));
    for (const pkg::Op* op : *seg->ops()) {
      uint64_t in = 0, out = 0;
      for (int32_t t : *op->inputs()) in = SatAdd(in, TensorElements(root, t));
      for (int32_t t : *op->outputs()) out = SatAdd(out, TensorElements(root, t));
      work = SatAdd(work, SatMul(out, SatAdd(SatAdd(in, OpWindow(*op)), 1)));
    }
  }
  if (insns > kMaxInsns || work > kMaxHostWork) return false;
  for (const pkg::Binding* b : *root.inputs()) {
    if (Elements(b->shape()) > kMaxInputElements) return false;
  }
  return true;
}

// Float32 inputs shaped from the bindings, filled by `value(k)` for element k.
template <typename ValueFn>
std::vector<HostTensor> MakeInputs(const Package& p, ValueFn value) {
  std::vector<HostTensor> inputs;
  uint64_t k = 0;
  for (const pkg::Binding* b : *p.root().inputs()) {
    HostTensor t;
    t.name = b->name()->str();
    t.type = DType::kF32;
    for (uint32_t d : *b->shape()) t.shape.push_back(d);
    const uint64_t n = Elements(b->shape());
    t.data.resize(n * sizeof(float));
    for (uint64_t i = 0; i < n; ++i, ++k) {
      const float v = value(k);
      std::memcpy(t.data.data() + i * sizeof(float), &v, sizeof v);
    }
    inputs.push_back(std::move(t));
  }
  return inputs;
}

// Loads a fresh copy (the executor owns its package) and runs it once on `device`.
Status RunOn(const char* device, const uint8_t* data, size_t size,
             const std::vector<HostTensor>& inputs, bool int8_outputs, uint32_t wall_timeout_ms,
             std::vector<HostTensor>* outputs) {
  loom::runtime::LoadOptions lo;
  lo.verify_checksum = false;
  std::unique_ptr<Package> p;
  LOOM_RETURN_IF_ERROR(Package::LoadMemory(data, size, &p, lo));
  loom::runtime::SessionOptions so;
  so.device = device;
  so.timeout_ms = kDeviceTimeoutMs;
  so.wall_timeout_ms = wall_timeout_ms;
  // A package's native code is code the package's author chose to run: a mutated object would
  // be arbitrary code, not a runtime bug. Its parser has its own target (native_loader_fuzz).
  so.native_code = false;
  std::unique_ptr<Executor> exec;
  LOOM_RETURN_IF_ERROR(loom::runtime::OpenSession(std::move(p), so, &exec));
  loom::runtime::RunOptions ro;
  ro.int8_outputs = int8_outputs;
  return exec->Run(inputs, ro, outputs);
}

void CheckSame(const char* package, const std::vector<HostTensor>& cpu,
               const std::vector<HostTensor>& fsim) {
  if (cpu.size() != fsim.size()) {
    Fail(std::string(package) + ": cpu returns " + std::to_string(cpu.size()) + " outputs, fsim " +
         std::to_string(fsim.size()));
  }
  for (size_t i = 0; i < cpu.size(); ++i) {
    const HostTensor& a = cpu[i];
    const HostTensor& b = fsim[i];
    if (a.name != b.name || a.type != b.type || a.shape != b.shape) {
      Fail(std::string(package) + ": output " + std::to_string(i) + " differs in name, type or " +
           "shape between cpu ('" + a.name + "') and fsim ('" + b.name + "')");
    }
    for (size_t k = 0; k < a.data.size(); ++k) {
      if (a.data[k] != b.data[k]) {
        Fail(std::string(package) + ": output '" + a.name + "' differs between cpu and fsim at " +
             "byte " + std::to_string(k) + " (cpu " + std::to_string(a.data[k]) + ", fsim " +
             std::to_string(b.data[k]) + ")");
      }
    }
  }
}

// Input value k of a genuine run: the payload's bytes as multiples of half the binding's step, so
// that quantization sees exact ties, values in range and saturating ones; three byte values stand
// for NaN and the infinities.
float PayloadValue(const uint8_t* payload, size_t n, uint64_t k) {
  if (n == 0) return 0.0f;
  const uint8_t b = payload[k % n];
  switch (b) {
    case 0x7d:
      return std::numeric_limits<float>::quiet_NaN();
    case 0x7e:
      return std::numeric_limits<float>::infinity();
    case 0x7f:
      return -std::numeric_limits<float>::infinity();
    default:
      return static_cast<float>(static_cast<int8_t>(b)) * 0.03125f;
  }
}

void RunGenuine(uint8_t mode, const uint8_t* payload, size_t n) {
  const loom::fuzz::EmbeddedPackage& e =
      loom::fuzz::kPackages[(mode >> 2) % loom::fuzz::kNumPackages];
  std::unique_ptr<Package> p;
  const Status loaded = Package::LoadMemory(e.data, e.size, &p);
  if (!loaded.ok()) {
    Fail(std::string("embedded package ") + e.name + " does not load (regenerate it with " +
         "make_test_package --corpus runtime/package/fuzz_corpus): " + loaded.ToString());
  }
  const std::vector<HostTensor> inputs =
      MakeInputs(*p, [&](uint64_t k) { return PayloadValue(payload, n, k); });
  const bool int8_outputs = (mode >> 1) & 1;
  std::vector<HostTensor> cpu, fsim;
  const Status sc = RunOn("cpu", e.data, e.size, inputs, int8_outputs, kGenuineWallTimeoutMs, &cpu);
  const Status sf =
      RunOn("fsim", e.data, e.size, inputs, int8_outputs, kGenuineWallTimeoutMs, &fsim);
  if (sc.ok() != sf.ok() || sc.code() != sf.code()) {
    Fail(std::string(e.name) + ": cpu says " + sc.ToString() + ", fsim says " + sf.ToString());
  }
  if (sc.ok()) CheckSame(e.name, cpu, fsim);
}

void RunPackage(const uint8_t* data, size_t size) {
  loom::runtime::LoadOptions lo;
  lo.verify_checksum = false;
  std::unique_ptr<Package> p;
  if (!Package::LoadMemory(data, size, &p, lo).ok()) return;
  if (!WithinBudget(*p)) return;
  const std::vector<std::vector<HostTensor>> patterns = {
      MakeInputs(*p, [](uint64_t) { return 0.0f; }),
      MakeInputs(*p, [](uint64_t k) { return static_cast<float>(k * 37 % 255) / 16.0f - 8.0f; })};
  for (const std::vector<HostTensor>& inputs : patterns) {
    for (const char* device : {"cpu", "fsim"}) {
      std::vector<HostTensor> outputs;
      (void)RunOn(device, data, size, inputs, false, kWallTimeoutMs, &outputs);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // fsim is a host-runtime device (the board runtime has none).
  static const bool registered = loom::runtime::RegisterHostRuntime().ok();
  if (!registered) std::abort();
  if (size == 0) return 0;
  if (data[0] & 1) {
    RunGenuine(data[0], data + 1, size - 1);
  } else {
    RunPackage(data + 1, size - 1);
  }
  return 0;
}
