// The bare-metal runtime image: runs the package and input linked into it (embed.S) on the cpu
// device (or, built with LOOM_BAREMETAL_MMIO, on the accelerator at the board's fixed addresses),
// and prints a checksum of the outputs that firmware/baremetal/build compares with the host's.
//
// Everything is allocated before the timed run: the package copy, the executor's plans, and the
// outputs (a first run sizes them). The second run is the one measured and checked: the image
// counts heap calls around it and fails if there was any. The device memory (the arena) is the
// linker script's .loom_arena region, never the heap.
//
// Output, one line each, on the UART:
//   loom-baremetal: output 0 'logits' float32 [1, 10] fnv1a64 0123456789abcdef
//   loom-baremetal: checksum 0123456789abcdef allocations-during-run 0 run-ns 123456
//   loom-baremetal: PASS
// Exit status (semihosting): 0 pass, 1 a runtime error (printed), 2 the run allocated, 3 a fault.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "firmware/baremetal/allocation_count.h"
#include "firmware/baremetal/mmu_a9.h"
#include "firmware/baremetal/zynq_uart.h"
#include "runtime/core/platform.h"
#include "runtime/drivers/cpu/cpu_driver.h"
#include "runtime/exec/executor.h"
#include "runtime/exec/native_ops.h"
#include "runtime/io/npy.h"
#include "runtime/native/loader.h"
#include "runtime/package/format.h"
#include "runtime/package/package.h"
#ifdef LOOM_BAREMETAL_MMIO
#include "runtime/drivers/mmio/mmio_driver.h"
#endif

extern "C" {
extern const uint8_t loom_package_start[], loom_package_end[];
extern const uint8_t loom_input_start[], loom_input_end[];
extern uint8_t __loom_arena_start[], __loom_arena_end[];
extern uint8_t __loom_dma_start[], __loom_dma_end[];
}

namespace loom::baremetal {
namespace {

using runtime::HostTensor;

}  // namespace

void Print(const std::string& line) {
  const std::string text = "loom-baremetal: " + line + "\n";
  UartWrite(text.data(), text.size());
}

// Hex by hand: newlib-nano's printf has no %llx.
namespace {

std::string Hex64(uint64_t v) {
  char b[17];
  for (int i = 15; i >= 0; --i, v >>= 4) b[i] = "0123456789abcdef"[v & 0xf];
  b[16] = '\0';
  return b;
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::unique_ptr<runtime::Driver> MakeDevice() {
#ifdef LOOM_BAREMETAL_MMIO
  runtime::MmioDeviceMap map;
  map.register_base = LOOM_BAREMETAL_MMIO;  // the board's register_base
  map.dma_host = __loom_dma_start;
  map.dma_device = reinterpret_cast<uintptr_t>(__loom_dma_start);  // flat: physical == virtual
  map.dma_bytes = static_cast<uint64_t>(__loom_dma_end - __loom_dma_start);
  map.coherence = runtime::Coherence::kUncached;  // mapped non-cacheable (mmu_a9.cc)
  return runtime::CreateMmioDriver(map);
#else
  return runtime::CreateCpuDriverOver(__loom_arena_start,
                                      static_cast<uint64_t>(__loom_arena_end - __loom_arena_start));
#endif
}

// *allocations: heap calls during the second run.
Status Run(uint32_t* allocations) {
  const uint32_t at_start = AllocationCount();
  const size_t package_bytes = static_cast<size_t>(loom_package_end - loom_package_start);
  Print(MmuState());
  Print("package " LOOM_IMAGE_NAME ", " + std::to_string(package_bytes) + " bytes");
  std::unique_ptr<runtime::Package> package;
  LOOM_RETURN_IF_ERROR(runtime::Package::LoadMemory(loom_package_start, package_bytes, &package)
                           .WithContext("embedded package " LOOM_IMAGE_NAME));

  NpyArray input;
  LOOM_RETURN_IF_ERROR(ParseNpy(loom_input_start,
                                static_cast<size_t>(loom_input_end - loom_input_start),
                                "embedded input", &input));
  std::vector<HostTensor> inputs(1);
  inputs[0].type = input.dtype;
  inputs[0].shape = input.shape;
  inputs[0].data = std::move(input.bytes);
  Print("input " + std::string(DTypeName(inputs[0].type)) + " " + ShapeText(inputs[0].shape));

  std::unique_ptr<runtime::Executor> executor;
  std::unique_ptr<runtime::Driver> device = MakeDevice();
  const std::string device_name = device->name();
  runtime::ExecutorOptions options;
  options.max_device_memory = static_cast<uint64_t>(__loom_arena_end - __loom_arena_start);
  LOOM_RETURN_IF_ERROR(
      runtime::Executor::Create(std::move(package), std::move(device), options, &executor));
  Print("device " + device_name + ", " + std::to_string(executor->package().num_segments()) +
        " segments");
  // Which code runs the CPU ops: the package's armv7 native code (loaded into the code memory of
  // code_memory_a9.cc) or the portable kernels; build --test requires the former for images
  // whose package carries armv7 code.
  if (const runtime::NativeOps* code = executor->native()) {
    Print("native code: " + std::string(runtime::native::HostTriple()) + " (" + code->cpu() +
          "), " + std::to_string(code->num_functions()) + " op functions");
  } else {
    Print("native code: none, the kernels run every CPU op");
  }

  // The first run sizes the outputs; the second must allocate nothing and give the same bytes.
  std::vector<HostTensor> outputs, first;
  runtime::RunOptions run_options;
  const uint32_t created = AllocationCount();
  LOOM_RETURN_IF_ERROR(executor->Run(inputs, run_options, &outputs).WithContext("run 1"));
  const uint32_t first_run = AllocationCount() - created;
  first = outputs;
  Print("heap calls: load and create " + std::to_string(created - at_start) + ", first run " +
        std::to_string(first_run));
  const uint32_t before = AllocationCount();
  const uint64_t start = MonotonicNanos();
  LOOM_RETURN_IF_ERROR(executor->Run(inputs, run_options, &outputs).WithContext("run 2"));
  const uint64_t run_ns = MonotonicNanos() - start;
  *allocations = AllocationCount() - before;

  uint64_t all = 0xcbf29ce484222325ull;  // FNV-1a over every output's bytes, in output order
  for (size_t i = 0; i < outputs.size(); ++i) {
    const HostTensor& t = outputs[i];
    if (t.data != first[i].data) return Internal("output '" + t.name + "' differs between runs");
    Print("output " + std::to_string(i) + " '" + t.name + "' " + DTypeName(t.type) + " " +
          ShapeText(t.shape) + " fnv1a64 " + Hex64(runtime::Fnv1a64(t.data.data(), t.data.size())));
    for (uint8_t b : t.data) all = (all ^ b) * 0x100000001b3ull;
  }
  Print("checksum " + Hex64(all) + " allocations-during-run " + std::to_string(*allocations) +
        " run-ns " + std::to_string(run_ns));
  return Status::Ok();
}

}  // namespace
}  // namespace loom::baremetal

extern "C" void loom_fault(uint32_t kind, uint32_t pc, uint32_t address) {
  static const char* const kKinds[] = {"?", "undefined instruction", "prefetch abort", "data abort",
                                       "unexpected interrupt"};
  char line[128];
  std::snprintf(line, sizeof line, "loom-baremetal: FAULT %s at pc 0x%08lx, address 0x%08lx\n",
                kKinds[kind < 5 ? kind : 0], static_cast<unsigned long>(pc),
                static_cast<unsigned long>(address));
  loom::baremetal::UartWrite(line, std::char_traits<char>::length(line));
  _exit(3);
}

int main() {
  using loom::baremetal::Print;
  loom::baremetal::UartInit();
  uint32_t allocations = 0;
  const loom::Status s = loom::baremetal::Run(&allocations);
  if (!s.ok()) {
    Print("FAIL " + s.ToString());
    return 1;
  }
  if (allocations != 0) {
    Print("FAIL the second run called the heap allocator " + std::to_string(allocations) +
          " times; a run must allocate nothing");
    return 2;
  }
  Print("PASS");
  return 0;
}
