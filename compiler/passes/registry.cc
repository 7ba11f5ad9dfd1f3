// The pass registry, and the rows of this library's own passes. Order is documentation order, not
// execution order; pipelines name passes explicitly (DefaultPipeline() in pass_manager.cc).
#include <cstdio>
#include <cstdlib>
#include <deque>

#include "compiler/passes/pass.h"

namespace loom::passes {
namespace {

struct Registry {
  std::deque<PassInfo> rows;  // a deque: pointers to rows survive later registrations
  std::vector<const PassInfo*> view;
};

void Add(Registry& r, const PassInfo& info) {
  for (const PassInfo* p : r.view) {
    if (std::string_view(p->name) == info.name) {
      std::fprintf(stderr, "loom: internal error: pass '%s' registered twice\n", info.name);
      std::abort();
    }
  }
  r.rows.push_back(info);
  r.view.push_back(&r.rows.back());
}

// This library's own passes, present from the first use of the registry.
void AddCorePasses(Registry& r) {
  Add(r, {"shape-inference", "recompute every node's output dtype and shape with Loom's op table",
          "", ShapeInference});
  Add(r, {"identity-removal",
          "remove Identity, inference Dropout and pools that copy (1x1 window, stride 1, no "
          "padding; global pools over 1x1), rewiring their users",
          "", IdentityRemoval});
  Add(r, {"constant-folding",
          "evaluate nodes whose inputs are all constants with the reference kernels",
          "max-bytes=16777216: largest result (bytes) to fold", ConstantFolding});
  Add(r, {"batchnorm-folding",
          "fold BatchNormalization into a preceding Conv, Gemm, MatMul or MatMul+Add", "",
          BatchNormFolding});
  Add(r, {"fusion", "fuse per-channel bias adds into Conv and Relu/Clip into Conv, Gemm and Add",
          "", Fusion});
  Add(r, {"dead-code-elimination",
          "remove nodes and unused trailing outputs nothing reads; drop dead values", "",
          DeadCodeElimination});
  Add(r, {"first-layer-packing",
          "space-to-depth (and width im2col) a strided Conv whose few input channels waste the "
          "channel block",
          "block=16: the accelerator's channel block (0: off); im2col=1: also move the packed "
          "kernel's columns into the channels where that saves GEMM steps (0: never); fold=1: "
          "also its rows (the host writes the height padding and more bytes; 0 by default)",
          FirstLayerPacking});
}

Registry& TheRegistry() {
  static Registry* r = [] {
    auto* fresh = new Registry();  // never destroyed: passes may be looked up during exit
    AddCorePasses(*fresh);
    return fresh;
  }();
  return *r;
}

}  // namespace

void RegisterPass(const PassInfo& info) { Add(TheRegistry(), info); }

const std::vector<const PassInfo*>& AllPasses() { return TheRegistry().view; }

const PassInfo* FindPass(std::string_view name) {
  for (const PassInfo* p : AllPasses()) {
    if (name == p->name) return p;
  }
  return nullptr;
}

Status IntOption(const PassOptions& options, const std::string& key, int64_t fallback,
                 int64_t* out) {
  auto it = options.find(key);
  if (it == options.end()) {
    *out = fallback;
    return Status::Ok();
  }
  char* end = nullptr;
  const long long v = std::strtoll(it->second.c_str(), &end, 10);
  if (it->second.empty() || *end != '\0') {
    return InvalidArgument("option " + key + "=" + it->second + " is not an integer");
  }
  *out = v;
  return Status::Ok();
}

}  // namespace loom::passes
