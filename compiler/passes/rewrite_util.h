// Small queries the rewriting passes share.
#ifndef LOOM_COMPILER_PASSES_REWRITE_UTIL_H_
#define LOOM_COMPILER_PASSES_REWRITE_UTIL_H_

#include "compiler/ir/graph.h"

namespace loom::passes {

// The one node reading `v`, if exactly one node input slot reads it and it is not a graph output
// (so the value may disappear into a fused node); nullptr otherwise.
inline ir::Node* SoleUser(const ir::Graph& g, ir::ValueId v) {
  if (g.IsGraphOutput(v)) return nullptr;
  const std::vector<ir::Use> uses = g.Uses(v);
  return uses.size() == 1 ? uses[0].node : nullptr;
}

// Input i's constant data, or nullptr when the input is absent or not a constant.
inline const ir::Tensor* ConstantInput(const ir::Graph& g, const ir::Node& n, size_t i) {
  const ir::ValueId id = n.input(i);
  if (id == ir::kNoValue || !g.value(id).is_constant()) return nullptr;
  return &*g.value(id).constant;
}

inline bool HasFusedActivation(const ir::Node& n) { return n.FindAttr("activation") != nullptr; }

}  // namespace loom::passes

#endif  // LOOM_COMPILER_PASSES_REWRITE_UTIL_H_
