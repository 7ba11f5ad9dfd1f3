// Fuzz target for the C API (runtime/include/loom_runtime.h). The input is a program of calls on
// one handle: open a genuine package (fuzz_packages.h) from memory, whole or truncated, on cpu or
// fsim; set inputs with fuzzed names, dtypes, shapes and byte counts; run; read outputs, shapes,
// tensor infos, stats and the trace; reset stats; close and go on with the NULL handle — in any
// order. Nothing may crash, leak or hang, and every call must return a known status; a failing
// one must leave a message in loom_last_error. A violation is printed and the target aborts.
//
// The harness keeps the contract the header puts on callers, and only that: every pointer it
// passes points to at least as many bytes (or shape entries) as the call is told, and it never
// passes a handle after closing it.
//
// Input: capi_fuzz.h; at most kMaxCalls calls are made.
#include "runtime/api/capi_fuzz.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/api/fuzz_packages.h"
#include "runtime/core/checked_math.h"
#include "runtime/include/loom_runtime.h"
#include "runtime/include/loom_runtime_host.h"

namespace {

constexpr int kMaxCalls = 48;
// The largest input buffer the harness passes: a few stacked images of the embedded packages, so
// that a stacked run costs milliseconds, not seconds.
constexpr uint64_t kMaxInputBytes = 8192;
constexpr uint64_t kMaxOutputBytes = 1 << 20;

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "capi_fuzz: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t U8() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint16_t U16() { return static_cast<uint16_t>(U8() | U8() << 8); }
  bool done() const { return pos_ >= size_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// A status a call returned must be one the header names, and a failure must come with a message.
void Check(loom_status s, const loom_runtime* rt, const char* call) {
  if (static_cast<int>(s) < LOOM_OK || static_cast<int>(s) > LOOM_DEADLINE_EXCEEDED) {
    Fail(std::string(call) + " returned unknown status " + std::to_string(static_cast<int>(s)));
  }
  if (s != LOOM_OK && loom_last_error(rt)[0] == '\0') {
    Fail(std::string(call) + " failed with " + loom_status_name(s) + " and no message");
  }
}

struct Harness {
  const loom::fuzz::EmbeddedPackage* package = nullptr;
  loom_runtime* rt = nullptr;
  std::vector<std::string> input_names, output_names;

  // One of the model's names, an empty or unknown one, or NULL.
  static const char* Name(uint8_t sel, const std::vector<std::string>& names) {
    switch (sel % 8) {
      case loom::fuzz::kCapiNameNull:
        return nullptr;
      case loom::fuzz::kCapiNameEmpty:
        return "";
      case loom::fuzz::kCapiNameUnknown:
        return "no such tensor";
      default:
        return names.empty() ? "input" : names[(sel % 8 - 3) % names.size()].c_str();
    }
  }

  // Both dtypes. Values outside the enum would be undefined behaviour in this C++ harness (a C
  // caller may pass them; a C harness would be needed to do the same).
  static loom_dtype Dtype(uint8_t sel) { return sel & 1 ? LOOM_INT8 : LOOM_FLOAT32; }

  void Names() {
    input_names.clear();
    output_names.clear();
    loom_tensor_info info;
    for (size_t i = 0; i < loom_num_inputs(rt); ++i) {
      if (loom_input_info(rt, i, &info) != LOOM_OK) Fail("loom_input_info fails in range");
      input_names.push_back(info.name);
    }
    for (size_t i = 0; i < loom_num_outputs(rt); ++i) {
      if (loom_output_info(rt, i, &info) != LOOM_OK) Fail("loom_output_info fails in range");
      output_names.push_back(info.name);
    }
  }

  void Open(Reader& in) {
    const uint8_t flags = in.U8();
    const uint8_t config = in.U8();
    const uint16_t cut = in.U16();
    loom_close(rt);
    rt = nullptr;
    static const char* const kDevices[] = {"cpu", "fsim", nullptr, "no such device"};
    static const char* const kConfigs[] = {nullptr, "1x8x8", "1x16x16", "", "no such config"};
    loom_options options{};  // zeroed: later fields keep their defaults
    options.device = kDevices[flags & 3];
    options.config = kConfigs[config % 5];
    options.trace = (flags >> 2) & 1;
    // A truncated image: the loader must refuse it.
    const size_t size = (flags >> 3) & 1 ? cut % package->size : package->size;
    loom_runtime* out = nullptr;
    const loom_status s =
        loom_open_memory(package->data, size, (flags >> 4) & 1 ? nullptr : &options, &out);
    Check(s, nullptr, "loom_open_memory");
    if (s == LOOM_OK) {
      if (out == nullptr) Fail("loom_open_memory succeeded without a handle");
      rt = out;
      Names();
    }
  }

  void SetInput(Reader& in) {
    const char* name = Name(in.U8(), input_names);
    const loom_dtype dtype = Dtype(in.U8());
    const size_t rank = in.U8() % 10;  // up to two beyond LOOM_MAX_RANK
    loom_tensor_info info{};
    if (rt) (void)loom_input_info(rt, 0, &info);
    std::vector<int64_t> shape(rank);
    for (size_t i = 0; i < rank; ++i) {
      const int64_t model = i < info.rank ? info.shape[i] : 1;
      const uint8_t sel = in.U8();
      switch (sel % 10) {
        case 0:
          shape[i] = 0;
          break;
        case 1:
          shape[i] = -1;
          break;
        case 2:
          shape[i] = INT64_MAX;
          break;
        case 3:
          shape[i] = INT64_MIN;
          break;
        case 4:
          shape[i] = int64_t{1} << 32;
          break;
        case 5:
          shape[i] = model * (1 + sel / 10 % 4);
          break;  // stacked
        case 6:
          shape[i] = sel / 10 + 1;
          break;
        default:
          shape[i] = model;
          break;
      }
    }
    // The byte count: what the shape needs, one less, none, or any.
    uint64_t need = 0;
    const uint64_t elem = dtype == LOOM_INT8 ? 1 : 4;
    if (!loom::CheckedElementCount(shape.data(), rank, &need) ||
        !loom::CheckedMul(need, elem, &need)) {
      need = kMaxInputBytes + 1;
    }
    const uint16_t bsel = in.U16();
    uint64_t bytes = 0;
    switch (bsel % 4) {
      case 0:
        bytes = need;
        break;
      case 1:
        bytes = need > 0 ? need - 1 : 1;
        break;
      case 2:
        bytes = 0;
        break;
      case 3:
        bytes = bsel / 4;
        break;
    }
    if (bytes > kMaxInputBytes) bytes = bsel % kMaxInputBytes;
    const uint8_t fill = in.U8();
    std::vector<uint8_t> data(bytes);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(fill + i * 41);
    const void* ptr = bytes == 0 && (fill & 1) ? nullptr : data.data();
    Check(loom_set_input(rt, name, dtype, rank ? shape.data() : nullptr, rank, ptr, bytes), rt,
          "loom_set_input");
  }

  void Run(Reader& in) {
    const int int8_outputs = in.U8() % 3;  // 0, 1, or another non-zero value
    const loom_status s = int8_outputs == 0 ? loom_run(rt) : loom_run_ex(rt, int8_outputs);
    Check(s, rt, "loom_run");
    if (s != LOOM_OK) return;
    // Every output of a successful run can be read back.
    for (const std::string& name : output_names) {
      int64_t shape[LOOM_MAX_RANK];
      size_t rank = 0;
      const loom_status o = loom_output_shape(rt, name.c_str(), shape, &rank);
      if (o != LOOM_OK) Fail("output '" + name + "' of a successful run: " + loom_last_error(rt));
    }
  }

  void GetOutput(Reader& in) {
    const char* name = Name(in.U8(), output_names);
    const loom_dtype dtype = Dtype(in.U8());
    const uint16_t bsel = in.U16();
    uint64_t bytes = bsel;
    int64_t shape[LOOM_MAX_RANK];
    size_t rank = 0;
    if (bsel % 2 == 0 && rt && loom_output_shape(rt, name, shape, &rank) == LOOM_OK) {
      uint64_t n = 0;
      if (loom::CheckedElementCount(shape, rank, &n) &&
          loom::CheckedMul(n, uint64_t{dtype == LOOM_INT8 ? 1u : 4u}, &n)) {
        switch (bsel / 2 % 3) {
          case 0:
            bytes = n;
            break;
          case 1:
            bytes = n + 1;
            break;
          default:
            bytes = n > 0 ? n - 1 : 0;
            break;
        }
      }
    }
    if (bytes > kMaxOutputBytes) bytes = 0;
    std::vector<uint8_t> data(bytes);
    Check(loom_get_output(rt, name, dtype, bytes ? data.data() : nullptr, bytes), rt,
          "loom_get_output");
  }

  void OutputShape(Reader& in) {
    const char* name = Name(in.U8(), output_names);
    int64_t shape[LOOM_MAX_RANK];
    size_t rank = 0;
    Check(loom_output_shape(rt, name, shape, &rank), rt, "loom_output_shape");
    if (rank > LOOM_MAX_RANK) Fail("loom_output_shape reports rank " + std::to_string(rank));
  }

  void Info(Reader& in) {
    const uint8_t which = in.U8();
    const size_t index = in.U8();
    loom_tensor_info info;
    if (which & 1) {
      Check(loom_output_info(rt, index, &info), rt, "loom_output_info");
    } else {
      Check(loom_input_info(rt, index, &info), rt, "loom_input_info");
    }
  }

  void Step(Reader& in) {
    using namespace loom::fuzz;
    switch (static_cast<CapiCall>(in.U8() % kCapiNumCalls)) {
      case kCapiOpen:
        Open(in);
        break;
      case kCapiSetInput:
        SetInput(in);
        break;
      case kCapiRun:
        Run(in);
        break;
      case kCapiGetOutput:
        GetOutput(in);
        break;
      case kCapiOutputShape:
        OutputShape(in);
        break;
      case kCapiInfo:
        Info(in);
        break;
      case kCapiStats: {
        loom_stats stats;
        Check(loom_get_stats(rt, &stats), rt, "loom_get_stats");
        break;
      }
      case kCapiResetStats:
        loom_reset_stats(rt);
        break;
      case kCapiTrace: {
        const char* json = nullptr;
        const loom_status s = loom_trace_json(rt, &json);
        Check(s, rt, "loom_trace_json");
        if (s == LOOM_OK && json == nullptr) Fail("loom_trace_json succeeded without a string");
        break;
      }
      case kCapiClose:
        loom_close(rt);
        rt = nullptr;
        input_names.clear();
        output_names.clear();
        break;
      case kCapiStatusName:
        // Any value the enum can hold (0..15), named or not.
        if (loom_status_name(static_cast<loom_status>(in.U8() % 16)) == nullptr) {
          Fail("loom_status_name returned NULL");
        }
        break;
      case kCapiNumCalls:
        break;
    }
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // fsim is a host-runtime device (the board runtime has none).
  static const bool registered = loom_register_host_runtime() == LOOM_OK;
  if (!registered) std::abort();
  Reader in(data, size);
  Harness h;
  h.package = &loom::fuzz::kPackages[in.U8() % loom::fuzz::kNumPackages];
  for (int i = 0; i < kMaxCalls && !in.done(); ++i) h.Step(in);
  loom_close(h.rt);
  return 0;
}
