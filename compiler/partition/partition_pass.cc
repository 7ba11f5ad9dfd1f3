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
  PartitionOptions po;
  if (auto c = options.find("cost"); c != options.end()) {
    if (c->second != "0" && c->second != "1") {
      return InvalidArgument("cost must be 0 or 1, not '" + c->second + "'");
    }
    po.segment_cost = c->second == "1";
  }
  PartitionReport report;
  return PartitionGraph(g, config, po, &report);
}

}  // namespace

void RegisterPartitionPasses() {
  passes::RegisterPass(
      {"partition", "place each node on the accelerator or the CPU (node attr target)",
       "config=1x16x16: HwConfig name or path; cost=0: 1 moves accelerator segments that do "
       "not pay for their launch and transfers to the CPU",
       Partition});
}

}  // namespace loom::partition
