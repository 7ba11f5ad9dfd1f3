// The C API over the executor (runtime/include/loom_runtime.h).
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "runtime/api/session.h"
#include "runtime/core/checked_math.h"
#include "runtime/include/loom_runtime.h"

using loom::DType;
using loom::Status;
using loom::runtime::HostTensor;

struct loom_runtime {
  std::unique_ptr<loom::runtime::Executor> exec;
  std::vector<HostTensor> inputs;
  std::vector<HostTensor> outputs;
  std::string error;
  std::string trace;
};

namespace {

static_assert(LOOM_MAX_RANK == loom::runtime::kMaxRank, "the loader bounds every binding's rank");

thread_local std::string g_error;

loom_status Fail(loom_runtime* rt, const Status& s) {
  (rt ? rt->error : g_error) = s.message();
  return static_cast<loom_status>(s.code());
}
loom_status Fail(loom_runtime* rt, loom_status code, const std::string& msg) {
  (rt ? rt->error : g_error) = msg;
  return code;
}

// loom_dtype is the C API's own stable ABI; this table is its one mapping to loom::DType.
struct CDTypePair {
  loom_dtype c;
  DType type;
};
constexpr CDTypePair kCDTypes[] = {
    {LOOM_FLOAT32, DType::kF32}, {LOOM_INT8, DType::kI8},     {LOOM_UINT8, DType::kU8},
    {LOOM_INT16, DType::kI16},   {LOOM_INT32, DType::kI32},   {LOOM_INT64, DType::kI64},
    {LOOM_BOOL, DType::kBool},   {LOOM_FLOAT16, DType::kF16}, {LOOM_FLOAT64, DType::kF64},
    {LOOM_UINT16, DType::kU16},  {LOOM_UINT32, DType::kU32},  {LOOM_UINT64, DType::kU64},
};
bool FromCDType(loom_dtype dtype, DType* out) {
  for (const CDTypePair& p : kCDTypes) {
    if (p.c == dtype) {
      *out = p.type;
      return true;
    }
  }
  return false;  // any other int a C caller passed
}
// Every loom::DType a package holds has a C value (the loader refuses the rest).
loom_dtype ToCDType(DType dtype) {
  for (const CDTypePair& p : kCDTypes) {
    if (p.type == dtype) return p.c;
  }
  return LOOM_FLOAT32;
}

void Info(const loom::runtime::Package& p, const loom::pkg::Binding* b, loom_tensor_info* info) {
  const loom::pkg::Tensor* t = p.root().tensors()->Get(static_cast<flatbuffers::uoffset_t>(b->tensor()));
  *info = loom_tensor_info{};
  info->name = b->name()->c_str();
  info->dtype = ToCDType(loom::runtime::FromPkgDType(t->dtype()));
  info->rank = b->shape()->size();  // at most LOOM_MAX_RANK: the loader refuses more
  for (size_t i = 0; i < info->rank; ++i) info->shape[i] = b->shape()->Get(static_cast<flatbuffers::uoffset_t>(i));
  info->scale = t->scale();
}

loom::runtime::LoadOptions LoadOptionsOf(const loom_options* options) {
  loom::runtime::LoadOptions o;
  if (options && options->max_device_memory) o.max_device_memory = options->max_device_memory;
  return o;
}

HostTensor* FindOutput(loom_runtime* rt, const char* name) {
  for (HostTensor& o : rt->outputs) {
    if (name && o.name == name) return &o;
  }
  return nullptr;
}

}  // namespace

extern "C" {

const char* loom_status_name(loom_status status) {
  return loom::StatusCodeName(static_cast<loom::StatusCode>(status));
}

const char* loom_last_error(const loom_runtime* rt) { return rt ? rt->error.c_str() : g_error.c_str(); }

loom_status loom_open(const char* package_path, const char* device, loom_runtime** out) {
  loom_options o{};
  o.device = device;
  return loom_open_ex(package_path, &o, out);
}

static loom_status OpenPackage(std::unique_ptr<loom::runtime::Package> package,
                               const loom_options* options, loom_runtime** out) {
  loom::runtime::SessionOptions so;
  if (options && options->device) so.device = options->device;
  if (options && options->config) so.config = options->config;
  so.trace = options && options->trace;
  if (options && options->max_device_memory) so.max_device_memory = options->max_device_memory;
  if (options && options->timeout_ms) so.timeout_ms = options->timeout_ms;
  if (options && options->wall_timeout_ms) so.wall_timeout_ms = options->wall_timeout_ms;
  auto rt = std::make_unique<loom_runtime>();
  if (Status s = loom::runtime::OpenSession(std::move(package), so, &rt->exec); !s.ok()) {
    return Fail(nullptr, s);
  }
  *out = rt.release();
  return LOOM_OK;
}

loom_status loom_open_ex(const char* package_path, const loom_options* options, loom_runtime** out) {
  if (package_path == nullptr || out == nullptr) return Fail(nullptr, LOOM_INVALID_ARGUMENT, "null argument");
  *out = nullptr;
  std::unique_ptr<loom::runtime::Package> package;
  if (Status s = loom::runtime::Package::LoadFile(package_path, &package, LoadOptionsOf(options));
      !s.ok()) {
    return Fail(nullptr, s);
  }
  return OpenPackage(std::move(package), options, out);
}

loom_status loom_open_memory(const void* data, size_t size, const loom_options* options,
                             loom_runtime** out) {
  if (data == nullptr || out == nullptr) return Fail(nullptr, LOOM_INVALID_ARGUMENT, "null argument");
  *out = nullptr;
  std::unique_ptr<loom::runtime::Package> package;
  if (Status s = loom::runtime::Package::LoadMemory(data, size, &package, LoadOptionsOf(options));
      !s.ok()) {
    return Fail(nullptr, s);
  }
  return OpenPackage(std::move(package), options, out);
}

void loom_close(loom_runtime* rt) { delete rt; }

size_t loom_num_inputs(const loom_runtime* rt) {
  return rt ? rt->exec->package().root().inputs()->size() : 0;
}
size_t loom_num_outputs(const loom_runtime* rt) {
  return rt ? rt->exec->package().root().outputs()->size() : 0;
}

loom_status loom_input_info(loom_runtime* rt, size_t index, loom_tensor_info* info) {
  if (!rt || !info) return Fail(rt, LOOM_INVALID_ARGUMENT, "null argument");
  if (index >= loom_num_inputs(rt)) return Fail(rt, LOOM_OUT_OF_RANGE, "input index " + std::to_string(index) + " out of range");
  Info(rt->exec->package(), rt->exec->package().root().inputs()->Get(static_cast<flatbuffers::uoffset_t>(index)), info);
  return LOOM_OK;
}
loom_status loom_output_info(loom_runtime* rt, size_t index, loom_tensor_info* info) {
  if (!rt || !info) return Fail(rt, LOOM_INVALID_ARGUMENT, "null argument");
  if (index >= loom_num_outputs(rt)) return Fail(rt, LOOM_OUT_OF_RANGE, "output index " + std::to_string(index) + " out of range");
  Info(rt->exec->package(), rt->exec->package().root().outputs()->Get(static_cast<flatbuffers::uoffset_t>(index)), info);
  return LOOM_OK;
}

loom_status loom_set_input(loom_runtime* rt, const char* name, loom_dtype dtype,
                           const int64_t* shape, size_t rank, const void* data, size_t bytes) {
  if (!rt || (!shape && rank) || (!data && bytes)) return Fail(rt, LOOM_INVALID_ARGUMENT, "null argument");
  DType type;
  if (!FromCDType(dtype, &type)) {
    return Fail(rt, LOOM_INVALID_ARGUMENT,
                "unknown dtype " + std::to_string(static_cast<int>(dtype)));
  }
  // The shape is the caller's: refuse what no model has before copying anything, so that the byte
  // count below cannot wrap (a wrapped product matched 0 bytes and ended in memcpy).
  const std::string what = std::string("input '") + (name ? name : "") + "'";
  auto shape_text = [&] {
    std::string s = "[";
    for (size_t i = 0; i < rank; ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
  };
  for (size_t i = 0; i < rank; ++i) {
    if (shape[i] < 0) {
      return Fail(
          rt, LOOM_INVALID_ARGUMENT,
          what + ": dimension " + std::to_string(i) + " of shape " + shape_text() + " is negative");
    }
  }
  const uint64_t elem = loom::DTypeSize(type);
  uint64_t need = 0;
  if (!loom::CheckedElementCount(shape, rank, &need) || !loom::CheckedMul(need, elem, &need)) {
    return Fail(rt, LOOM_INVALID_ARGUMENT,
                what + ": shape " + shape_text() +
                    " has too many elements (its byte size overflows 64 bits)");
  }
  if (need != bytes) {
    return Fail(rt, LOOM_INVALID_ARGUMENT,
                what + " holds " + std::to_string(bytes) + " bytes; shape " + shape_text() +
                    " of " + DTypeLongName(type) + " needs " + std::to_string(need));
  }
  HostTensor t;
  t.type = type;
  t.name = name ? name : "";
  t.shape.assign(shape, shape + rank);
  t.data.assign(static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + bytes);
  for (HostTensor& h : rt->inputs) {
    if (h.name == t.name) {
      h = std::move(t);
      return LOOM_OK;
    }
  }
  rt->inputs.push_back(std::move(t));
  return LOOM_OK;
}

loom_status loom_run(loom_runtime* rt) { return loom_run_ex(rt, 0); }

loom_status loom_run_ex(loom_runtime* rt, int int8_outputs) {
  if (!rt) return Fail(rt, LOOM_INVALID_ARGUMENT, "null handle");
  loom::runtime::RunOptions o;
  o.int8_outputs = int8_outputs != 0;
  if (Status s = rt->exec->Run(rt->inputs, o, &rt->outputs); !s.ok()) {
    rt->outputs.clear();
    return Fail(rt, s);
  }
  return LOOM_OK;
}

loom_status loom_output_shape(loom_runtime* rt, const char* name, int64_t* shape, size_t* rank) {
  if (!rt || !shape || !rank) return Fail(rt, LOOM_INVALID_ARGUMENT, "null argument");
  const HostTensor* o = FindOutput(rt, name);
  if (!o) return Fail(rt, LOOM_NOT_FOUND, std::string("no output '") + (name ? name : "") + "' from the last run");
  *rank = o->shape.size();  // a binding's shape: at most LOOM_MAX_RANK
  for (size_t i = 0; i < *rank; ++i) shape[i] = o->shape[i];
  return LOOM_OK;
}

loom_status loom_get_output(loom_runtime* rt, const char* name, loom_dtype dtype, void* data, size_t bytes) {
  if (!rt || (!data && bytes)) return Fail(rt, LOOM_INVALID_ARGUMENT, "null argument");
  const HostTensor* o = FindOutput(rt, name);
  if (!o) return Fail(rt, LOOM_NOT_FOUND, std::string("no output '") + (name ? name : "") + "' from the last run");
  const loom_dtype have = ToCDType(o->type);
  if (have != dtype) {
    return Fail(rt, LOOM_INVALID_ARGUMENT,
                std::string("output '") + name + "' is " + DTypeLongName(o->type) +
                    (o->type == DType::kF32 ? " (int8 outputs need loom_run_ex(rt, 1))" : ""));
  }
  if (bytes != o->data.size()) {
    return Fail(rt, LOOM_INVALID_ARGUMENT, "output '" + std::string(name) + "' has " +
                    std::to_string(o->data.size()) + " bytes, the buffer " + std::to_string(bytes));
  }
  if (bytes) std::memcpy(data, o->data.data(), bytes);
  return LOOM_OK;
}

loom_status loom_get_stats(loom_runtime* rt, loom_stats* stats) {
  if (!rt || !stats) return Fail(rt, LOOM_INVALID_ARGUMENT, "null argument");
  const loom::runtime::Profile& p = rt->exec->profile();
  const loom::runtime::SegmentProfile t = p.Total();
  stats->inferences = p.inferences;
  stats->cycles = t.cycles;
  stats->macs = t.macs;
  stats->bytes_loaded = t.bytes_loaded;
  stats->bytes_stored = t.bytes_stored;
  stats->wall_ns = t.wall_ns;
  stats->gemm_utilization = t.gemm_utilization(rt->exec->package().config());
  return LOOM_OK;
}

void loom_reset_stats(loom_runtime* rt) {
  if (rt) rt->exec->ResetProfile();
}

loom_status loom_trace_json(loom_runtime* rt, const char** json) {
  if (!rt || !json) return Fail(rt, LOOM_INVALID_ARGUMENT, "null argument");
  if (Status s = rt->exec->TraceJson(&rt->trace); !s.ok()) return Fail(rt, s);
  *json = rt->trace.c_str();
  return LOOM_OK;
}

}  // extern "C"
