// The `graph-pack` pass (pass registry): PackGraph for the config named by the `config` option.
#include "compiler/pack/pack.h"
#include "compiler/passes/pass.h"
#include "runtime/config/config_file.h"

namespace loom::pack {
namespace {

Status GraphPack(ir::Graph& g, const passes::PassOptions& options) {
  auto it = options.find("config");
  HwConfig config;
  LOOM_RETURN_IF_ERROR(LoadHwConfig(it == options.end() ? "1x16x16" : it->second, &config));
  return PackGraph(g, config);
}

}  // namespace

void RegisterPackPasses() {
  passes::RegisterPass({"graph-pack", "mark int8 activations of q.* ops blocked for the HwConfig",
                        "config=1x16x16: HwConfig name or path", GraphPack});
}

}  // namespace loom::pack
