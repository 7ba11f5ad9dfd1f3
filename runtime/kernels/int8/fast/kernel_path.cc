// Which micro-kernels this CPU runs: run-time detection on x86-64 (cpuid through
// __builtin_cpu_supports, which also checks that the OS saves the vector state) and on aarch64
// Linux (getauxval), compile-time elsewhere (armv7 builds with -mfpu=neon; bare metal has no
// auxiliary vector).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "runtime/kernels/int8/fast/fast.h"
#include "runtime/kernels/int8/fast/tiles.h"

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_ASIMDDP
#define HWCAP_ASIMDDP (1 << 20)
#endif
#endif

namespace loom::kernels::q::fast {
namespace {

struct Named {
  KernelPath path;
  const char* name;
};
constexpr Named kNames[] = {
    {KernelPath::kReference, "reference"}, {KernelPath::kPortable, "portable"},
    {KernelPath::kAvx2, "avx2"},           {KernelPath::kAvx512Vnni, "avx512vnni"},
    {KernelPath::kNeon, "neon"},           {KernelPath::kNeonDot, "neondot"},
};

bool CpuHas(KernelPath path) {
  switch (path) {
    case KernelPath::kReference:
    case KernelPath::kPortable:
      return true;
#if defined(__x86_64__) || defined(__i386__)
    case KernelPath::kAvx2:
      return __builtin_cpu_supports("avx2");
    case KernelPath::kAvx512Vnni:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512f") &&
             __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("avx512vnni");
#endif
#if defined(__ARM_NEON)
    case KernelPath::kNeon:
      return true;
#endif
#if defined(__aarch64__)
    case KernelPath::kNeonDot:
#if defined(__linux__)
      return (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) != 0;
#elif defined(__ARM_FEATURE_DOTPROD)
      return true;
#else
      return false;
#endif
#endif
    default:
      return false;
  }
}

const TileKernels* Table(KernelPath path) {
  switch (path) {
    case KernelPath::kReference:
      return nullptr;
    case KernelPath::kPortable:
      return PortableTiles();
    case KernelPath::kAvx2:
      return Avx2Tiles();
    case KernelPath::kAvx512Vnni:
      return Avx512VnniTiles();
    case KernelPath::kNeon:
      return NeonTiles();
    case KernelPath::kNeonDot:
      return NeonDotTiles();
  }
  return nullptr;
}

}  // namespace

const char* PathName(KernelPath path) {
  for (const Named& n : kNames)
    if (n.path == path) return n.name;
  return "unknown";
}

bool PathSupported(KernelPath path) {
  static const bool supported[] = {
      true,
      Table(KernelPath::kPortable) != nullptr,
      Table(KernelPath::kAvx2) != nullptr && CpuHas(KernelPath::kAvx2),
      Table(KernelPath::kAvx512Vnni) != nullptr && CpuHas(KernelPath::kAvx512Vnni),
      Table(KernelPath::kNeon) != nullptr && CpuHas(KernelPath::kNeon),
      Table(KernelPath::kNeonDot) != nullptr && CpuHas(KernelPath::kNeonDot),
  };
  const auto i = static_cast<size_t>(path);
  return i < sizeof(supported) / sizeof(supported[0]) && supported[i];
}

KernelPath BestPath() {
  for (KernelPath p :
       {KernelPath::kAvx512Vnni, KernelPath::kAvx2, KernelPath::kNeonDot, KernelPath::kNeon}) {
    if (PathSupported(p)) return p;
  }
  return KernelPath::kPortable;
}

Status ParsePath(const char* name, KernelPath* path) {
  const std::string n = name == nullptr ? "" : name;
  if (n == "auto" || n.empty()) {
    *path = BestPath();
    return Status::Ok();
  }
  for (const Named& k : kNames) {
    if (n != k.name) continue;
    if (!PathSupported(k.path)) {
      return Unimplemented("cpu kernels '" + n + "' cannot run here (this CPU or build lacks " +
                           "them); the best this CPU runs is '" + PathName(BestPath()) + "'");
    }
    *path = k.path;
    return Status::Ok();
  }
  std::string names;
  for (const Named& k : kNames) names += std::string(names.empty() ? "" : ", ") + k.name;
  return InvalidArgument("unknown cpu kernels '" + n + "': expected auto, " + names);
}

const TileKernels* TilesFor(KernelPath path, uint32_t block) {
  // Each path falls back to the next slower one of its family for a block it does not take.
  for (KernelPath p = path;;) {
    const TileKernels* t = PathSupported(p) ? Table(p) : nullptr;
    if (t != nullptr && t->supports(block)) return t;
    switch (p) {
      case KernelPath::kAvx512Vnni:
        p = KernelPath::kAvx2;
        break;
      case KernelPath::kNeonDot:
        p = KernelPath::kNeon;
        break;
      case KernelPath::kPortable:
      case KernelPath::kReference:
        return PortableTiles();
      default:
        p = KernelPath::kPortable;
        break;
    }
  }
}

KernelPath DefaultPath() {
  const char* env = std::getenv("LOOM_CPU_KERNELS");
  if (env == nullptr || *env == '\0') return BestPath();
  KernelPath p = KernelPath::kPortable;
  const Status s = ParsePath(env, &p);
  if (s.ok()) return p;
  std::fprintf(stderr, "loom: LOOM_CPU_KERNELS: %s; using '%s'\n", s.message().c_str(),
               PathName(BestPath()));
  return BestPath();
}

}  // namespace loom::kernels::q::fast
