// The `graph-pack` pass (pass registry): PackGraph for the config named by the `config` option.
#include "compiler/pack/pack.h"
#include "compiler/passes/pass.h"
#include "runtime/config/config_file.h"

namespace loom::passes {

Status GraphPack(ir::Graph& g, const PassOptions& options) {
  auto it = options.find("config");
  HwConfig config;
  LOOM_RETURN_IF_ERROR(LoadHwConfig(it == options.end() ? "1x16x16" : it->second, &config));
  return pack::PackGraph(g, config);
}

}  // namespace loom::passes
