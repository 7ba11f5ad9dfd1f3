#include "runtime/exec/native_ops.h"

#include <cstring>
#include <string_view>

#include "runtime/core/format.h"
#include "runtime/native/loader.h"

namespace loom::runtime {

#if defined(__arm__)
// The ARM EABI's run-time helpers that LLVM calls on armv7 (division on cores without a divider,
// such as the Cortex-A9; memory copies): libgcc and the C library define them on Linux and on
// bare metal. Only their addresses are taken.
extern "C" {
void __aeabi_uidiv();
void __aeabi_idiv();
void __aeabi_uidivmod();
void __aeabi_idivmod();
void __aeabi_uldivmod();
void __aeabi_ldivmod();
void __aeabi_memcpy();
void __aeabi_memcpy4();
void __aeabi_memcpy8();
void __aeabi_memmove();
void __aeabi_memmove4();
void __aeabi_memmove8();
void __aeabi_memset();
void __aeabi_memset4();
void __aeabi_memset8();
void __aeabi_memclr();
void __aeabi_memclr4();
void __aeabi_memclr8();
}
#endif

namespace {
using fbu = flatbuffers::uoffset_t;

#define LOOM_IMPORT_(f) \
  { #f, reinterpret_cast < const void*>(&f) }
// What native code may call: memcpy, memmove and memset everywhere (LLVM turns copy loops into
// them), and the EABI helpers on armv7.
const native::Import kImports[] = {
    {"memcpy", reinterpret_cast<const void*>(&std::memcpy)},
    {"memmove", reinterpret_cast<const void*>(&std::memmove)},
    {"memset", reinterpret_cast<const void*>(&std::memset)},
#if defined(__arm__)
    LOOM_IMPORT_(__aeabi_uidiv),
    LOOM_IMPORT_(__aeabi_idiv),
    LOOM_IMPORT_(__aeabi_uidivmod),
    LOOM_IMPORT_(__aeabi_idivmod),
    LOOM_IMPORT_(__aeabi_uldivmod),
    LOOM_IMPORT_(__aeabi_ldivmod),
    LOOM_IMPORT_(__aeabi_memcpy),
    LOOM_IMPORT_(__aeabi_memcpy4),
    LOOM_IMPORT_(__aeabi_memcpy8),
    LOOM_IMPORT_(__aeabi_memmove),
    LOOM_IMPORT_(__aeabi_memmove4),
    LOOM_IMPORT_(__aeabi_memmove8),
    LOOM_IMPORT_(__aeabi_memset),
    LOOM_IMPORT_(__aeabi_memset4),
    LOOM_IMPORT_(__aeabi_memset8),
    LOOM_IMPORT_(__aeabi_memclr),
    LOOM_IMPORT_(__aeabi_memclr4),
    LOOM_IMPORT_(__aeabi_memclr8),
#endif
};
#undef LOOM_IMPORT_

// The first feature of `code` this CPU lacks, or null.
const char* MissingFeature(const pkg::NativeCode& code) {
  if (code.features() == nullptr) return nullptr;
  for (fbu i = 0; i < code.features()->size(); ++i) {
    const flatbuffers::String* f = code.features()->Get(i);
    if (!CpuHasFeature(std::string_view(f->c_str(), f->size()))) return f->c_str();
  }
  return nullptr;
}
}  // namespace

bool CpuHasFeature(std::string_view f) {
  if (f == kWorkspaceFeature) return true;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  // __builtin_cpu_supports takes literals only: one row per name the code generator records.
  struct Row {
    const char* name;
    bool has;
  };
  const Row rows[] = {
      {"sse4.2", __builtin_cpu_supports("sse4.2") != 0},
      {"popcnt", __builtin_cpu_supports("popcnt") != 0},
      {"avx2", __builtin_cpu_supports("avx2") != 0},
      {"fma", __builtin_cpu_supports("fma") != 0},
      {"bmi2", __builtin_cpu_supports("bmi2") != 0},
      {"avx512f", __builtin_cpu_supports("avx512f") != 0},
      {"avx512bw", __builtin_cpu_supports("avx512bw") != 0},
      {"avx512dq", __builtin_cpu_supports("avx512dq") != 0},
      {"avx512vl", __builtin_cpu_supports("avx512vl") != 0},
      {"avx512vnni", __builtin_cpu_supports("avx512vnni") != 0},
  };
  for (const Row& r : rows) {
    if (f == r.name) return r.has;
  }
  return false;
#elif defined(__arm__) || defined(__aarch64__)
#if defined(__ARM_NEON)
  // A build for NEON runs only where NEON is (every Cortex-A9 and A53 board Loom targets).
  return f == "neon";
#else
  (void)f;
  return false;
#endif
#else
  (void)f;
  return false;
#endif
}

NativeOps::~NativeOps() = default;

Status NativeOps::Load(const Package& package, std::unique_ptr<NativeOps>* out,
                       std::string* notice) {
  out->reset();
  notice->clear();
  const pkg::Package& r = package.root();
  if (r.native() == nullptr || r.native()->size() == 0) return Status::Ok();
  const char* host = native::HostTriple();
  const pkg::NativeCode* pick = nullptr;
  std::string others;
  for (fbu i = 0; i < r.native()->size() && pick == nullptr; ++i) {
    const pkg::NativeCode* code = r.native()->Get(i);
    const char* cpu = code->cpu() ? code->cpu()->c_str() : "";
    if (std::string_view(code->target()->c_str(), code->target()->size()) != host) {
      others += Format("{}{} ({})", others.empty() ? "" : ", ", code->target()->c_str(), cpu);
    } else if (const char* missing = MissingFeature(*code)) {
      others += Format("{}{} ({}, needs {})", others.empty() ? "" : ", ", code->target()->c_str(),
                       cpu, missing);
    } else {
      pick = code;
    }
  }
  if (pick == nullptr) {
    *notice = Format(
        "package has native code for {}, none for this CPU ({}): running the "
        "portable kernels",
        others, host);
    return Status::Ok();
  }
  std::unique_ptr<NativeOps> ops(new NativeOps());
  const auto* object = pick->object();
  LOOM_RETURN_IF_ERROR(native::LoadObject(object->data(), object->size(), kImports,
                                          sizeof(kImports) / sizeof(kImports[0]), &ops->module_)
                           .WithContext("package native code for {} ({})", pick->target()->c_str(),
                                        pick->cpu() ? pick->cpu()->c_str() : ""));
  size_t total = 0;
  for (fbu s = 0; s < r.segments()->size(); ++s) {
    ops->op_base_.push_back(total);
    total += r.segments()->Get(s)->ops()->size();
  }
  ops->fns_.assign(total, nullptr);
  for (fbu i = 0; i < pick->symbols()->size(); ++i) {
    const pkg::NativeSymbol* sym = pick->symbols()->Get(i);
    const void* fn = ops->module_->Symbol(sym->name()->c_str());
    if (fn == nullptr) {
      return InvalidArgument(
          "package native code for {}: symbol {} '{}' (segment {}, op {}) is "
          "not defined by its object",
          host, i, sym->name()->c_str(), sym->segment(), sym->op());
    }
    // The loader returns code addresses as data pointers; the object's ABI makes them functions.
    Fn f;
    static_assert(sizeof(f) == sizeof(fn), "function and data pointers differ in size");
    std::memcpy(&f, &fn, sizeof(f));
    ops->fns_[ops->op_base_[sym->segment()] + sym->op()] = f;
  }
  ops->cpu_ = pick->cpu() ? pick->cpu()->c_str() : "";
  ops->num_functions_ = pick->symbols()->size();
  ops->workspace_bytes_ = static_cast<size_t>(pick->workspace_bytes());
  *out = std::move(ops);
  return Status::Ok();
}

}  // namespace loom::runtime
