#include "runtime/drivers/opencl/opencl_driver.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "runtime/core/isa.h"
#include "runtime/drivers/device_heap.h"
#include "runtime/drivers/opencl/opencl_abi.h"
#include "runtime/drivers/opencl/opencl_device.h"
#include "runtime/drivers/opencl/opencl_program.h"
#include "runtime/drivers/opencl/opencl_status.h"

namespace loom::runtime {
namespace {

using opencl::ClError;

// opencl_abi.h writes isa's codes again as #defines for the kernel; the compiler keeps them equal.
constexpr int Code(isa::AluOp op) { return static_cast<int>(op); }
static_assert(ALU_MIN == Code(isa::AluOp::kMin) && ALU_MAX == Code(isa::AluOp::kMax) &&
                  ALU_ADD == Code(isa::AluOp::kAdd) && ALU_SHR == Code(isa::AluOp::kShr) &&
                  ALU_SHR_RND == Code(isa::AluOp::kShrRound) && ALU_MUL == Code(isa::AluOp::kMul) &&
                  ALU_REQUANT == Code(isa::AluOp::kRequant) &&
                  ALU_RQPARAM == Code(isa::AluOp::kRqParam),
              "opencl_abi.h's ALU_* differ from isa::AluOp");
static_assert(RQP_DEPTH == static_cast<int>(isa::kRqParamDepth),
              "opencl_abi.h's RQP_DEPTH differs from isa's");
static_assert(BUF_RQP > static_cast<int>(isa::Buffer::kOut), "BUF_RQP must not be a buffer code");

// Device addresses start where fsim's DRAM does, so a linked program means the same bytes on both.
constexpr uint64_t kDramBase = 0x10000000;
// Work per launch (micro-op iterations, DMA elements): starts small so that the first launch
// returns quickly, then adapts so that a launch takes about kLaunchMs.
constexpr int64_t kFirstBudget = int64_t{1} << 14;
constexpr int64_t kMaxBudget = int64_t{1} << 34;
constexpr double kLaunchMs = 20.0;

class OpenclDriver final : public Driver {
 public:
  ~OpenclDriver() override { Close(); }
  const char* name() const override { return "opencl"; }
  bool executes_programs() const override { return true; }
  const HwConfig& config() const override { return config_; }

  Status Open(const DriverOptions& options) override;
  Status Allocate(uint64_t bytes, uint64_t align, uint64_t* addr) override {
    LOOM_RETURN_IF_ERROR(CheckOpen());
    return heap_.Allocate(bytes, align, addr);
  }
  Status Free(uint64_t addr) override {
    LOOM_RETURN_IF_ERROR(CheckOpen());
    return heap_.Free(addr);
  }
  Status CopyIn(uint64_t dst, const void* src, uint64_t bytes) override;
  Status CopyOut(void* dst, uint64_t src, uint64_t bytes) override;
  Status Submit(uint64_t insn_addr, uint32_t insn_count) override;
  Status Wait(uint32_t timeout_ms) override;
  Status ReadCounters(DeviceCounters* out) override {
    LOOM_RETURN_IF_ERROR(CheckOpen());
    *out = counters_;
    return Status::Ok();
  }
  void Close() override;

 private:
  Status CheckOpen() const {
    return queue_ != nullptr ? Status::Ok() : FailedPrecondition("opencl device is not open");
  }
  Status CheckRange(uint64_t addr, uint64_t bytes) const {
    LOOM_RETURN_IF_ERROR(CheckOpen());
    if (!heap_.Contains(addr, bytes)) {
      return OutOfRange("opencl: device range [" + std::to_string(addr) + ", +" +
                        std::to_string(bytes) + ") is not inside an allocation");
    }
    return Status::Ok();
  }
  Status NewBuffer(size_t bytes, cl_mem* out);
  // Zero-filled, as fsim's DRAM and buffers start.
  Status Zero(cl_mem buffer, size_t bytes);
  // The decoded-program buffers, grown to hold `n` instructions.
  Status Reserve(uint32_t n);
  // One launch with `budget`, then the state read back.
  Status Launch(int64_t budget, opencl::RunState* st);
  Status Report(const opencl::RunState& st, uint64_t insn_addr, uint32_t n, const std::string& why);

  HwConfig config_;
  isa::Layout layout_;
  opencl::SelectedDevice dev_;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;
  cl_kernel kernel_ = nullptr;
  // dram, uop, inp, wgt, acc, out, prog, order, state: the kernel's arguments in order.
  enum { kDram, kUop, kInp, kWgt, kAcc, kOut, kProg, kOrder, kState, kNumBuffers };
  cl_mem buffers_[kNumBuffers] = {};
  uint64_t dram_bytes_ = 0;
  uint32_t capacity_ = 0;  // instructions the prog/order buffers hold
  DeviceHeap heap_;
  uint32_t wall_timeout_ms_ = 0;
  int64_t budget_ = kFirstBudget;
  bool pending_ = false;
  uint64_t insn_addr_ = 0;
  uint32_t insn_count_ = 0;
  DeviceCounters counters_;
};

Status OpenclDriver::NewBuffer(size_t bytes, cl_mem* out) {
  cl_int err = CL_SUCCESS;
  *out = clCreateBuffer(context_, CL_MEM_READ_WRITE, std::max<size_t>(bytes, 64), nullptr, &err);
  if (err != CL_SUCCESS) {
    return ClError(
        "clCreateBuffer of " + std::to_string(bytes) + " bytes on '" + dev_.device_name + "'", err);
  }
  return Status::Ok();
}

Status OpenclDriver::Zero(cl_mem buffer, size_t bytes) {
  const cl_uchar zero = 0;
  cl_int err = clEnqueueFillBuffer(queue_, buffer, &zero, 1, 0, std::max<size_t>(bytes, 64), 0,
                                   nullptr, nullptr);
  if (err == CL_SUCCESS) err = clFinish(queue_);
  return err == CL_SUCCESS ? Status::Ok() : ClError("clEnqueueFillBuffer", err);
}

Status OpenclDriver::Open(const DriverOptions& options) {
  if (queue_ != nullptr) return FailedPrecondition("opencl device is already open");
  LOOM_RETURN_IF_ERROR(options.config.Validate());
  LOOM_RETURN_IF_ERROR(isa::Layout::Create(options.config, &layout_));
  opencl::DeviceArgs args;
  LOOM_RETURN_IF_ERROR(opencl::ParseDeviceArgs(options.device_args, &args));
  LOOM_RETURN_IF_ERROR(opencl::SelectDevice(args, &dev_));
  config_ = options.config;
  cl_int err = CL_SUCCESS;
  context_ = clCreateContext(nullptr, 1, &dev_.device, nullptr, nullptr, &err);
  if (err != CL_SUCCESS) return ClError("clCreateContext for '" + dev_.device_name + "'", err);
  cl_command_queue queue = clCreateCommandQueue(context_, dev_.device, 0, &err);
  if (err != CL_SUCCESS) {
    Close();
    return ClError("clCreateCommandQueue", err);
  }
  queue_ = queue;
  opencl::ProgramOrigin origin;
  Status s =
      opencl::BuildProgram(context_, dev_, config_, args.binary, args.cache, &program_, &origin);
  if (s.ok()) {
    kernel_ = clCreateKernel(program_, "loom_run", &err);
    if (err != CL_SUCCESS) s = ClError("clCreateKernel(loom_run)", err);
  }
  dram_bytes_ = std::max<uint64_t>((options.memory_bytes + 4095) / 4096 * 4096, 4096);
  const uint32_t lanes = config_.batch * config_.block_out;
  const size_t sizes[kNumBuffers] = {
      dram_bytes_,
      size_t{layout_.uop_depth} * 3 * 4,
      // Past the buffer, the depthwise GEMM's window of block_in / 2 elements (vta.cl).
      size_t{layout_.inp_depth + config_.block_in / 2} * config_.inp_elem_bytes(),
      size_t{layout_.wgt_depth} * config_.wgt_elem_bytes(),
      // Past the buffer, REQUANT's parameter buffer: kRqParamDepth biases, then as many
      // multipliers.
      size_t{layout_.acc_depth + 2 * isa::kRqParamDepth} * lanes * 4,
      size_t{layout_.acc_depth} * lanes,
      0,
      0,
      S_WORDS * 8,
  };
  for (int b = 0; b < kNumBuffers && s.ok(); ++b) {
    s = NewBuffer(sizes[b], &buffers_[b]);
    if (s.ok()) s = Zero(buffers_[b], sizes[b]);
  }
  if (s.ok()) {
    // The first launch is where some platforms (PoCL) finish compiling the kernel; do it here, on
    // a finished state, so Wait's time limits measure execution only.
    opencl::RunState st;
    st.s[S_PHASE] = PHASE_DONE;
    err = clEnqueueWriteBuffer(queue_, buffers_[kState], CL_TRUE, 0, sizeof st.s, st.s, 0, nullptr,
                               nullptr);
    s = err == CL_SUCCESS ? Launch(1, &st) : ClError("clEnqueueWriteBuffer(state)", err);
  }
  if (!s.ok()) {
    Close();
    return s;
  }
  heap_.Reset(kDramBase, dram_bytes_);
  wall_timeout_ms_ = options.wall_timeout_ms;
  budget_ = kFirstBudget;
  counters_ = DeviceCounters{};
  return Status::Ok();
}

void OpenclDriver::Close() {
  if (queue_ != nullptr) clFinish(queue_);
  for (cl_mem& b : buffers_) {
    if (b != nullptr) clReleaseMemObject(b);
    b = nullptr;
  }
  if (kernel_ != nullptr) clReleaseKernel(kernel_);
  if (program_ != nullptr) clReleaseProgram(program_);
  if (queue_ != nullptr) clReleaseCommandQueue(queue_);
  if (context_ != nullptr) clReleaseContext(context_);
  kernel_ = nullptr;
  program_ = nullptr;
  queue_ = nullptr;
  context_ = nullptr;
  capacity_ = 0;
  pending_ = false;
  counters_ = DeviceCounters{};
}

Status OpenclDriver::CopyIn(uint64_t dst, const void* src, uint64_t bytes) {
  LOOM_RETURN_IF_ERROR(CheckRange(dst, bytes));
  if (bytes == 0) return Status::Ok();
  const cl_int err = clEnqueueWriteBuffer(queue_, buffers_[kDram], CL_TRUE, dst - kDramBase, bytes,
                                          src, 0, nullptr, nullptr);
  return err == CL_SUCCESS ? Status::Ok() : ClError("clEnqueueWriteBuffer (CopyIn)", err);
}

Status OpenclDriver::CopyOut(void* dst, uint64_t src, uint64_t bytes) {
  LOOM_RETURN_IF_ERROR(CheckRange(src, bytes));
  if (bytes == 0) return Status::Ok();
  const cl_int err = clEnqueueReadBuffer(queue_, buffers_[kDram], CL_TRUE, src - kDramBase, bytes,
                                         dst, 0, nullptr, nullptr);
  return err == CL_SUCCESS ? Status::Ok() : ClError("clEnqueueReadBuffer (CopyOut)", err);
}

Status OpenclDriver::Submit(uint64_t insn_addr, uint32_t insn_count) {
  LOOM_RETURN_IF_ERROR(CheckOpen());
  if (pending_) return FailedPrecondition("opencl: a submission is already in flight");
  if (insn_addr % HwConfig::kInsnBytes != 0 || insn_count == 0 ||
      !heap_.Contains(insn_addr, uint64_t{insn_count} * HwConfig::kInsnBytes)) {
    return InvalidArgument("opencl: instruction stream at " + std::to_string(insn_addr) + " (" +
                           std::to_string(insn_count) +
                           " instructions) is not aligned or not inside an allocation");
  }
  insn_addr_ = insn_addr;
  insn_count_ = insn_count;
  pending_ = true;
  return Status::Ok();
}

Status OpenclDriver::Reserve(uint32_t n) {
  if (n <= capacity_) return Status::Ok();
  for (int b : {kProg, kOrder}) {
    if (buffers_[b] != nullptr) clReleaseMemObject(buffers_[b]);
    buffers_[b] = nullptr;
  }
  capacity_ = 0;
  LOOM_RETURN_IF_ERROR(NewBuffer(size_t{n} * P_WORDS * 4, &buffers_[kProg]));
  LOOM_RETURN_IF_ERROR(NewBuffer(size_t{n} * 4, &buffers_[kOrder]));
  capacity_ = n;
  return Status::Ok();
}

Status OpenclDriver::Launch(int64_t budget, opencl::RunState* st) {
  const cl_ulong base = kDramBase, bytes = dram_bytes_, addr = insn_addr_;
  const cl_uint n = insn_count_;
  const cl_long b = budget;
  cl_int err = CL_SUCCESS;
  cl_uint arg = 0;
  auto set = [&](size_t size, const void* value) {
    if (err == CL_SUCCESS) err = clSetKernelArg(kernel_, arg, size, value);
    ++arg;
  };
  set(sizeof(cl_mem), &buffers_[kDram]);
  set(sizeof base, &base);
  set(sizeof bytes, &bytes);
  for (int k = kUop; k <= kState; ++k) {
    // Before the first submission the program buffers do not exist; the state says "done".
    cl_mem m = buffers_[k] != nullptr ? buffers_[k] : buffers_[kState];
    set(sizeof(cl_mem), &m);
  }
  set(sizeof addr, &addr);
  set(sizeof n, &n);
  set(sizeof b, &b);
  if (err != CL_SUCCESS) return ClError("clSetKernelArg " + std::to_string(arg - 1), err);
  const size_t one = 1;
  err = clEnqueueNDRangeKernel(queue_, kernel_, 1, nullptr, &one, &one, 0, nullptr, nullptr);
  if (err != CL_SUCCESS) return ClError("clEnqueueNDRangeKernel(loom_run)", err);
  err = clEnqueueReadBuffer(queue_, buffers_[kState], CL_TRUE, 0, sizeof st->s, st->s, 0, nullptr,
                            nullptr);
  return err == CL_SUCCESS ? Status::Ok() : ClError("clEnqueueReadBuffer(state)", err);
}

Status OpenclDriver::Report(const opencl::RunState& st, uint64_t insn_addr, uint32_t n,
                            const std::string& why) {
  std::vector<uint8_t> bytes(size_t{n} * HwConfig::kInsnBytes);
  LOOM_RETURN_IF_ERROR(CopyOut(bytes.data(), insn_addr, bytes.size()));
  const opencl::StreamReport report(config_, layout_, std::move(bytes), kDramBase, dram_bytes_);
  return why.empty() ? report.Outcome(st) : report.Stopped(why, st);
}

Status OpenclDriver::Wait(uint32_t timeout_ms) {
  LOOM_RETURN_IF_ERROR(CheckOpen());
  if (!pending_) return FailedPrecondition("opencl: nothing submitted");
  pending_ = false;
  counters_ = DeviceCounters{};
  LOOM_RETURN_IF_ERROR(Reserve(insn_count_));
  opencl::RunState st;
  cl_int err = clEnqueueWriteBuffer(queue_, buffers_[kState], CL_TRUE, 0, sizeof st.s, st.s, 0,
                                    nullptr, nullptr);
  if (err != CL_SUCCESS) return ClError("clEnqueueWriteBuffer(state)", err);
  // The device's time is the host's: both limits are wall-clock time here.
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  for (;;) {
    const Clock::time_point t0 = Clock::now();
    LOOM_RETURN_IF_ERROR(Launch(budget_, &st));
    const Clock::time_point t1 = Clock::now();
    if (st.s[S_PHASE] == PHASE_DONE || st.s[S_PHASE] == PHASE_ERROR) break;
    const double took = std::chrono::duration<double, std::milli>(t1 - t0).count();
    const double elapsed = std::chrono::duration<double, std::milli>(t1 - start).count();
    if (elapsed >= timeout_ms) {
      return Report(st, insn_addr_, insn_count_,
                    "no FINISH within the device-time limit of " + std::to_string(timeout_ms) +
                        " ms (the opencl device's time is the host's)");
    }
    if (wall_timeout_ms_ != 0 && elapsed >= wall_timeout_ms_) {
      return Report(
          st, insn_addr_, insn_count_,
          "no FINISH within the wall-clock limit of " + std::to_string(wall_timeout_ms_) + " ms");
    }
    if (took < kLaunchMs / 2) budget_ = std::min(budget_ * 2, kMaxBudget);
    if (took > kLaunchMs * 2) budget_ = std::max(budget_ / 2, kFirstBudget);
  }
  const bool clean = st.s[S_PHASE] == PHASE_DONE && st.s[S_TOKENS + 0] == 0 &&
                     st.s[S_TOKENS + 1] == 0 && st.s[S_TOKENS + 2] == 0 && st.s[S_TOKENS + 3] == 0;
  if (!clean) return Report(st, insn_addr_, insn_count_, "");
  DeviceCounters c;
  c.valid = true;
  c.timed = false;
  for (int m = 0; m < isa::kNumModules; ++m) {
    c.module_insns[m] = st.s[S_INSNS + m];
    c.insns += st.s[S_INSNS + m];
  }
  c.macs = st.s[S_MACS];
  c.bytes_loaded = st.s[S_BYTES_LOADED];
  c.bytes_stored = st.s[S_BYTES_STORED];
  counters_ = c;
  return Status::Ok();
}

}  // namespace

std::unique_ptr<Driver> CreateOpenclDriver() { return std::make_unique<OpenclDriver>(); }

std::string DescribeOpenclDevices() { return opencl::DescribeDevices(); }

}  // namespace loom::runtime
