// The `partition` pass (pass registry): PartitionGraph for the config named by `config`.
#include "compiler/partition/partition.h"
#include "compiler/passes/pass.h"
#include "runtime/config/config_file.h"

namespace loom::partition {
namespace {

Status Partition(ir::Graph& g, const passes::PassOptions& options) {
  auto it = options.find("config");
  HwConfig config;
  LOOM_RETURN_IF_ERROR(LoadHwConfig(it == options.end() ? "1x16x16" : it->second, &config));
  PartitionReport report;
  return PartitionGraph(g, config, &report);
}

}  // namespace

void RegisterPartitionPasses() {
  passes::RegisterPass({"partition",
                        "place each node on the accelerator or the CPU (node attr target)",
                        "config=1x16x16: HwConfig name or path", Partition});
}

}  // namespace loom::partition
