// partition: places every node on the accelerator or the CPU (BYOC-style), setting the node
// attribute target = "accel" | "cpu". The per-op predicates live in one table (partition.cc,
// kRules) evaluated against the HwConfig; an op without a row runs on the CPU:
//   q.conv2d    groups 1 or depthwise; kernel <= 15; each pad < its kernel and <= 15; stride <= 15
//   q.add       always
//   q.max_pool  when every pad is 0, or its input is known non-negative (the producer's
//               clip_lo >= 0), because the accelerator pads with 0 where the kernel skips padding
//   everything else (q.avg_pool, q.concat, q.quantize, q.dequantize, q.relayout, float ops): cpu
// Also computes each node's MACs and the offload ratio by node count and by MACs.
//
// Requires: a verified (packed) quantized graph and a config that packing accepted.
#ifndef LOOM_COMPILER_PARTITION_PARTITION_H_
#define LOOM_COMPILER_PARTITION_PARTITION_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/ir/graph.h"
#include "runtime/core/hw_config.h"
#include "runtime/core/status.h"

namespace loom::partition {

struct NodePlacement {
  std::string name;    // node label
  std::string op;
  std::string target;  // "accel" | "cpu"
  std::string reason;  // why cpu (empty for accel)
  int64_t macs = 0;
};

struct PartitionReport {
  std::vector<NodePlacement> nodes;
  int64_t accel_nodes = 0, total_nodes = 0;
  int64_t accel_macs = 0, total_macs = 0;
  double node_ratio() const { return total_nodes ? double(accel_nodes) / total_nodes : 0.0; }
  double mac_ratio() const { return total_macs ? double(accel_macs) / total_macs : 0.0; }
};

// Multiply-accumulates of one node (convolutions, dense, pooling windows, adds; 0 for data
// movement).
int64_t NodeMacs(const ir::Graph& g, const ir::Node& n);

Status PartitionGraph(ir::Graph& g, const HwConfig& config, PartitionReport* report);

nlohmann::json ReportToJson(const PartitionReport& r);
void PrintReport(const PartitionReport& r, std::ostream& os);

// Adds this library's passes (partition) to the pass registry (compiler/passes/pass.h).
void RegisterPartitionPasses();

}  // namespace loom::partition

#endif  // LOOM_COMPILER_PARTITION_PARTITION_H_
