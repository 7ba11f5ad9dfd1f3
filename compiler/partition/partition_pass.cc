// The `partition` pass (pass registry): PartitionGraph for the config named by `config`.
#include "compiler/partition/partition.h"
#include "compiler/passes/pass.h"
#include "runtime/config/config_file.h"

namespace loom::passes {

Status Partition(ir::Graph& g, const PassOptions& options) {
  auto it = options.find("config");
  HwConfig config;
  LOOM_RETURN_IF_ERROR(LoadHwConfig(it == options.end() ? "1x16x16" : it->second, &config));
  partition::PartitionReport report;
  return partition::PartitionGraph(g, config, &report);
}

}  // namespace loom::passes
