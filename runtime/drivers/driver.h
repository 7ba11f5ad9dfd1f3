// The device driver interface (docs/architecture.md §2, contract 4): the only way the executor
// touches a device.
//
// The device memory model is one device DRAM address space. The executor allocates regions in it
// (arena, constants, micro-ops, instruction streams), copies bytes in and out, submits an
// instruction stream by address and count, and waits for it. A driver for new hardware (xrt, zynq)
// implements these calls and nothing else changes; `null/` is the template.
//
// Calls are not thread-safe; one executor owns one open driver. Addresses are device byte
// addresses (what the accelerator's DMA sees); the driver owns all device memory it hands out
// and releases it in Close() or its destructor.
#ifndef LOOM_RUNTIME_DRIVERS_DRIVER_H_
#define LOOM_RUNTIME_DRIVERS_DRIVER_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/hw_config.h"
#include "runtime/core/isa.h"
#include "runtime/core/status.h"

namespace loom::runtime {

// What the device counted during the last completed submission. `valid` is false on devices
// that count nothing (cpu); then every field is zero. `timed` is false on devices that execute
// programs but model no time (opencl): cycles and busy are then absent (zero), not measured.
struct DeviceCounters {
  bool valid = false;
  bool timed = true;
  uint64_t cycles = 0;        // accelerator cycles from start to done
  uint64_t macs = 0;          // GEMM multiply-accumulates
  uint64_t bytes_loaded = 0;  // DRAM bytes read by LOAD instructions (not instruction fetch)
  uint64_t bytes_stored = 0;  // DRAM bytes written by STORE instructions
  uint64_t insns = 0;         // instructions executed
  std::array<uint64_t, isa::kNumModules> busy{};  // busy cycles per module (load, compute, store)
  // Instructions executed per module; zero on devices that count only the total (the register
  // protocol's hardware).
  std::array<uint64_t, isa::kNumModules> module_insns{};
};

// Where one instruction of a submission spent its cycles (devices with an instruction timeline:
// fsim). Cycles count from the submission's start; stalls are the waits charged to this
// instruction by its module before or after it ran, by cause.
struct InsnTiming {
  isa::Module module = isa::Module::kLoad;
  uint64_t begin = 0, end = 0;  // execution interval; end == 0: did not run
  std::array<uint64_t, isa::kNumQueues> stall_pop{};   // waiting for a token, per queue
  std::array<uint64_t, isa::kNumQueues> stall_push{};  // waiting for room in a full queue
  uint64_t stall_port = 0;    // waiting for the shared DRAM port
  uint64_t stall_fetch = 0;   // waiting to be fetched
  uint64_t stall_finish = 0;  // FINISH waiting for load and store to drain
};

struct DriverOptions {
  // The config to instantiate (simulators) or to expect (hardware reports its own in config()).
  HwConfig config;
  // What followed "name:" in the device string ("zynq:dma=devmem:0x70000000:0x8000000",
  // "xrt:0"); empty when the string was just the name. Each driver documents its syntax.
  std::string device_args;
  // Device memory the caller will allocate at most; simulators size their DRAM from it.
  uint64_t memory_bytes = 0;
  // Record an instruction timeline (TraceJson); drivers without one ignore it.
  bool trace = false;
  // Record per-instruction timing of each submission (InsnTimeline); drivers without one ignore it.
  bool timeline = false;
  // tsim only: FST waveform file of the whole run.
  std::string waves;
  // Simulators only: host (wall-clock) time one Wait may take, on top of its device-time
  // timeout; 0: no limit. A simulator can need hours for a program that takes seconds on the
  // device, so this is what bounds a run's cost; hardware runs in device time and ignores it.
  uint32_t wall_timeout_ms = 0;
};

class Driver {
 public:
  virtual ~Driver() = default;

  // "cpu", "fsim", "tsim", ...
  virtual const char* name() const = 0;
  // False for a device that cannot run instruction streams (cpu): the executor then runs every
  // segment from its op-level description on the host.
  virtual bool executes_programs() const = 0;

  virtual Status Open(const DriverOptions& options) = 0;
  // The device's config, valid after Open. Hardware reports what it was built for; the executor
  // refuses a package whose config hash differs.
  virtual const HwConfig& config() const = 0;

  // Device memory. Allocate returns a device byte address aligned to `align` (a power of two).
  virtual Status Allocate(uint64_t bytes, uint64_t align, uint64_t* addr) = 0;
  virtual Status Free(uint64_t addr) = 0;
  virtual Status CopyIn(uint64_t dst, const void* src, uint64_t bytes) = 0;
  virtual Status CopyOut(void* dst, uint64_t src, uint64_t bytes) = 0;

  // Starts `insn_count` instructions at device address `insn_addr` (16-byte aligned; the last is
  // FINISH). One submission at a time: Submit while one is in flight is FailedPrecondition.
  virtual Status Submit(uint64_t insn_addr, uint32_t insn_count) = 0;
  // Blocks until the submission completes and returns its outcome (the device's error, or
  // DeadlineExceeded after `timeout_ms` of device time, or on a simulator after
  // DriverOptions::wall_timeout_ms of host time; the message names where each module stopped).
  virtual Status Wait(uint32_t timeout_ms) = 0;
  // Counters of the last completed submission.
  virtual Status ReadCounters(DeviceCounters* out) = 0;

  // Optional. A host pointer to device memory [addr, addr + bytes) when the device's memory is
  // host memory (cpu); null otherwise, and the executor copies.
  virtual uint8_t* HostPointer(uint64_t /*addr*/, uint64_t /*bytes*/) { return nullptr; }
  // Optional. Names the next submission in the timeline.
  virtual void Annotate(const std::string& /*label*/) {}
  // Optional. The timeline of every submission since Open as Chrome/Perfetto trace JSON, one
  // submission after another on one time axis.
  virtual Status TraceJson(std::string* /*out*/) {
    return Unimplemented("the {} device records no instruction timeline", name());
  }

  // Optional. Per-instruction timing of the last completed submission, indexed by instruction,
  // when opened with `timeline`.
  virtual Status InsnTimeline(std::vector<InsnTiming>* /*out*/) {
    return Unimplemented("the {} device records no per-instruction timing", name());
  }

  virtual void Close() = 0;
};

// The driver registry. The runtime a board links (loom_runtime) has "cpu" and "null" (and the
// hardware drivers, when they exist); the simulators are an optional library (loom_sim_drivers)
// whose RegisterSimulatorDrivers() adds "fsim" and "tsim" here. Registration is an explicit call
// at start-up, not a static initialiser, so a static link never drops a driver silently and a
// board binary never carries a simulator it cannot use.
using DriverFactory = std::unique_ptr<Driver> (*)();

// Adds a driver. `name` must outlive the process (a string literal). Registering the same name
// with the same factory again does nothing, so registration functions may run more than once;
// another factory under a taken name, or more than kMaxDrivers drivers, is FailedPrecondition.
// Not thread-safe: register at start-up, before devices are opened from other threads.
constexpr size_t kMaxDrivers = 16;
Status RegisterDriver(const char* name, DriverFactory create);

// A device string is "NAME[:ARGS]": the part before the first ':' names a registered driver, the
// rest (DriverOptions::device_args) is that driver's to parse ("zynq:uio=loom,dma=udmabuf").
void SplitDeviceString(const std::string& device, std::string* name, std::string* args);

// For drivers that take no device arguments: InvalidArgument naming the device and what was given,
// so "cpu:fast" is refused rather than run as if the arguments meant something.
Status CheckNoDeviceArgs(const char* device, const DriverOptions& options);

// A registered driver by device string. NotFound lists the available names and, for a simulator
// this build lacks, says why. *device_args receives the string's ARGS for DriverOptions; without
// `device_args`, a string with ARGS is InvalidArgument rather than losing them.
Status CreateDriver(const std::string& device, std::unique_ptr<Driver>* out,
                    std::string* device_args = nullptr);
// Space-separated names of the registered drivers, for help texts.
std::string DriverNames();
// `loom-run devices`: one line per registered driver with what it is, and under a driver that
// reaches several devices (opencl) one line per device it can select.
std::string DescribeDevices();
// The device used when none is named: fsim where it is registered (it needs no board and counts
// cycles), else cpu, which every runtime has.
const char* DefaultDeviceName();

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_DRIVERS_DRIVER_H_
