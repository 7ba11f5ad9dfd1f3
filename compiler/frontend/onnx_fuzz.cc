// Fuzz target for the ONNX importer (the parser beside it): any byte string must come back as a
// Status, never a crash, hang or sanitizer report. When import succeeds, the properties every
// imported graph must have are checked too: it verifies, the default pass pipeline keeps it
// valid, and its text form parses back to the same text. A violated property aborts, so the
// fuzzer (or the corpus replay under ctest) reports it.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "compiler/frontend/onnx_import.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/passes/pass_manager.h"

namespace {

void Check(bool ok, const char* what, const loom::Status& s) {
  if (ok) return;
  std::fprintf(stderr, "onnx_fuzz: %s: %s\n", what, s.ToString().c_str());
  std::abort();
}

// Graphs with more constant data than this skip the full-text round trip (it prints every
// element), which keeps each input fast.
constexpr int64_t kRoundTripBytes = 1 << 16;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  loom::ir::Graph g;
  if (!loom::frontend::ImportOnnxBytes(data, size, {}, &g).ok()) return 0;
  loom::Status s = loom::ir::Verify(g);
  Check(s.ok(), "imported graph does not verify", s);

  int64_t constant_bytes = 0;
  for (loom::ir::ValueId id = 0; id < g.num_values(); ++id) {
    if (g.IsValid(id) && g.value(id).is_constant()) {
      constant_bytes += static_cast<int64_t>(g.value(id).constant->byte_size());
    }
  }
  if (constant_bytes <= kRoundTripBytes) {
    loom::ir::PrintOptions all;
    all.inline_elements = -1;
    const std::string text = loom::ir::PrintGraph(g, all);
    loom::ir::Graph back;
    s = loom::ir::ParseGraph(text, &back);
    Check(s.ok(), "printed graph does not parse", s);
    Check(loom::ir::PrintGraph(back, all) == text, "text form is not stable", s);
  }

  // Folding executes kernels; keep what a fuzzed model can make it compute small.
  std::vector<std::string> pipeline = loom::passes::DefaultPipeline();
  for (std::string& p : pipeline) {
    if (p == "constant-folding") p = "constant-folding{max-bytes=65536}";
  }
  s = loom::passes::RunPipeline(pipeline, &g);
  // A pass may refuse a graph (e.g. a kernel rejecting folded data), but must never leave an
  // invalid one: the pass manager reports that as an internal error.
  Check(s.code() != loom::StatusCode::kInternal, "pass pipeline broke the graph", s);
  return 0;
}
