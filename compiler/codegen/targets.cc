#include "compiler/codegen/targets.h"

#include <sstream>

#include "runtime/exec/native_ops.h"

namespace loom::codegen {

namespace {

// The CPUs each target accepts, with the features the runtime must find before it runs their
// code. Only CPUs whose features the runtime can check are listed: code for an unchecked
// feature would crash on a CPU without it instead of falling back.
struct CpuRow {
  const char* target;
  const char* cpu;
  const char* llvm_features;
  std::vector<std::string> features;
};

const std::vector<CpuRow>& Cpus() {
  static const std::vector<CpuRow> rows = {
      // The first row of each target is its baseline.
      {"x86_64", "x86-64-v3", "", {"avx2", "fma", "bmi2"}},
      {"x86_64", "x86-64", "", {}},
      {"x86_64", "x86-64-v2", "", {"sse4.2", "popcnt"}},
      {"x86_64",
       "x86-64-v4",
       "",
       {"avx2", "fma", "bmi2", "avx512f", "avx512bw", "avx512dq", "avx512vl"}},
      // x86-64-v4 with VNNI: the first CPU with vpdpbusd (the AVX-512 VNNI row kernels).
      {"x86_64",
       "cascadelake",
       "",
       {"avx2", "fma", "bmi2", "avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512vnni"}},
      {"aarch64", "cortex-a53", "", {}},
      {"aarch64", "generic", "", {}},
      {"aarch64", "cortex-a72", "", {}},
      {"armv7", "cortex-a9", "+neon", {"neon"}},
      {"armv7", "cortex-a7", "+neon", {"neon"}},
  };
  return rows;
}

const char* Triple(const std::string& target) {
  if (target == "x86_64") return "x86_64-unknown-linux-gnu";
  if (target == "aarch64") return "aarch64-unknown-linux-gnu";
  if (target == "armv7") return "armv7a-unknown-linux-gnueabihf";
  return nullptr;
}

std::string Accepted() {
  std::string s;
  for (const CpuRow& r : Cpus()) s += std::string(s.empty() ? "" : ", ") + r.target + ":" + r.cpu;
  return s;
}

}  // namespace

std::string HostTargetName() {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#elif defined(__arm__)
  return "armv7";
#else
  return "";
#endif
}

Status ParseCpuTargets(const std::string& list, std::vector<CpuTarget>* out) {
  out->clear();
  if (list == "none") return Status::Ok();
  std::stringstream ss(list);
  std::string entry;
  while (std::getline(ss, entry, ',')) {
    std::string name = entry, cpu;
    if (const size_t colon = entry.find(':'); colon != std::string::npos) {
      name = entry.substr(0, colon);
      cpu = entry.substr(colon + 1);
    }
    if (name == "host") {
      name = HostTargetName();
      if (name.empty()) return InvalidArgument("--cpu-targets: this host has no native target");
    }
    if (Triple(name) == nullptr) {
      return InvalidArgument(
          "--cpu-targets: '{}' is not a target (x86_64, aarch64, armv7, host "
          "or none)",
          entry);
    }
    const CpuRow* row = nullptr;
    for (const CpuRow& r : Cpus()) {
      if (r.target == name && (cpu.empty() || cpu == r.cpu)) {
        row = &r;
        break;
      }
    }
    // "host" alone is this machine's CPU, like -march=native: the row with the most features
    // whose features it has (the runtime's own check), so the code runs the widest kernels here.
    // A CPU without them falls back to the portable kernels with a notice.
    if (entry == "host" && row != nullptr) {
      for (const CpuRow& r : Cpus()) {
        if (r.target != name || r.features.size() <= row->features.size()) continue;
        bool all = true;
        for (const std::string& f : r.features) all = all && runtime::CpuHasFeature(f);
        if (all) row = &r;
      }
    }
    if (row == nullptr) {
      return InvalidArgument("--cpu-targets: CPU '{}' of '{}' is not supported (accepted: {})", cpu,
                             entry, Accepted());
    }
    for (const CpuTarget& t : *out) {
      if (t.name == name) {
        return InvalidArgument("--cpu-targets: target '{}' is listed twice", name);
      }
    }
    out->push_back({name, Triple(name), row->cpu, row->llvm_features, row->features});
  }
  if (out->empty()) return InvalidArgument("--cpu-targets: the list is empty (use 'none')");
  return Status::Ok();
}

}  // namespace loom::codegen
