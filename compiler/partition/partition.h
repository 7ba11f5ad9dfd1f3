// partition: places every node on the accelerator or the CPU (BYOC-style), setting the node
// attribute target = "accel" | "cpu". The per-op predicates live in one table (partition.cc,
// kRules) evaluated against the HwConfig; an op without a row runs on the CPU:
//   q.conv2d    groups 1 or depthwise; kernel <= 15; each pad < its kernel and <= 15; stride <= 15
//   q.add       always
//   q.mul, q.concat, q.resize, q.zero_insert, q.max_pool, q.avg_pool: when their tensorize
//               layer's Check passes (a max pool pads with -128, so any padding is exact; q.mul's
//               and q.avg_pool's zero-point offsets need tensors without padding lanes)
//   everything else (q.quantize, q.dequantize, q.relayout, float ops): cpu, with the
//   reason (a float<->int8 boundary, no int8 kernel, a non-int8 dtype, what keeps a
//   ConvTranspose from zero insertion + conv, ...)
// Optionally (PartitionOptions::segment_cost) a cost model then moves accelerator segments that
// do not pay for their launch and transfers to the CPU (segment_cost.cc).
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

// The cost model of segment boundaries (segment_cost.cc). Times in microseconds; the defaults
// describe a Zynq-7000 board: a launch (doorbell, interrupt, cache flush and invalidate) of
// ~20 us, and the runtime's reference int8 kernels at ~0.5 GMAC/s on a Cortex-A9.
struct SegmentCostModel {
  double launch_us = 20.0;
  double cpu_gmacs = 0.5;
};

struct PartitionOptions {
  // Move accelerator segments whose estimated time there (launch + boundary transfers + compute)
  // is not below the CPU's to the CPU. Off by default: small test models would lose their
  // accelerator coverage (`loom compile --partition-cost`, `partition{cost=1}` turn it on).
  bool segment_cost = false;
  SegmentCostModel cost;
};

struct SegmentEstimate {
  int64_t macs = 0;
  double boundary_bytes = 0;  // activations read from before the segment or read after it
  double accel_us = 0, cpu_us = 0;
};

Status PartitionGraph(ir::Graph& g, const HwConfig& config, PartitionReport* report);
Status PartitionGraph(ir::Graph& g, const HwConfig& config, const PartitionOptions& options,
                      PartitionReport* report);

// The estimate for running `nodes` (consecutive, in graph order) as one accelerator segment.
SegmentEstimate EstimateSegment(const ir::Graph& g, const std::vector<const ir::Node*>& nodes,
                                const HwConfig& c, const SegmentCostModel& m);
// Demotes every accelerator segment of a partitioned graph that does not pay for itself, with
// the estimate as the reason in `report`.
void ChooseSegmentsByCost(ir::Graph& g, const HwConfig& c, const SegmentCostModel& m,
                          PartitionReport* report);

nlohmann::json ReportToJson(const PartitionReport& r);
void PrintReport(const PartitionReport& r, std::ostream& os);

// Adds this library's passes (partition) to the pass registry (compiler/passes/pass.h).
void RegisterPartitionPasses();

}  // namespace loom::partition

#endif  // LOOM_COMPILER_PARTITION_PARTITION_H_
