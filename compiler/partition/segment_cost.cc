// Segment boundaries by cost (BYOC-style, after TVM's partitioning with a cost model): the
// per-op rules say where a node *can* run; this decides whether each accelerator segment is worth
// launching. A segment pays a fixed launch (submit, interrupt, cache maintenance) and the transfer
// of its boundary tensors; it gains the difference between the CPU's and the accelerator's
// compute time. A segment that loses (a lone small add between CPU ops, a tiny conv) is moved to
// the CPU, whose int8 kernels compute exactly the same bytes (DESIGN.md contract 5), so the
// choice changes time, never results. Large segments are kept whole.
#include <cstdio>
#include <set>

#include "compiler/ir/op_registry.h"
#include "compiler/partition/partition.h"

namespace loom::partition {
namespace {

// Bytes of a value as the runtime moves it (int8 activations are one byte per element; the
// blocked padding is ignored: this is an estimate).
double ValueBytes(const ir::Graph& g, ir::ValueId v) {
  return static_cast<double>(ir::NumElementsUnchecked(g.value(v).shape)) *
         static_cast<double>(DTypeSize(g.value(v).dtype));
}

struct Run {
  std::vector<ir::Node*> nodes;
  std::vector<size_t> report_index;  // into PartitionReport::nodes
};

}  // namespace

SegmentEstimate EstimateSegment(const ir::Graph& g, const std::vector<const ir::Node*>& nodes,
                                const HwConfig& c, const SegmentCostModel& m) {
  SegmentEstimate e;
  std::set<ir::ValueId> inside;
  for (const ir::Node* n : nodes) {
    e.macs += NodeMacs(g, *n);
    inside.insert(n->outputs.begin(), n->outputs.end());
  }
  const std::set<const ir::Node*> members(nodes.begin(), nodes.end());
  std::set<ir::ValueId> used_outside(g.outputs().begin(), g.outputs().end());
  for (const ir::Node* n : g.nodes()) {
    if (!members.count(n)) used_outside.insert(n->inputs.begin(), n->inputs.end());
  }
  std::set<ir::ValueId> counted;
  for (const ir::Node* n : nodes) {
    for (ir::ValueId v : n->inputs) {  // activations produced before the segment
      if (v == ir::kNoValue || inside.count(v) || g.value(v).is_constant()) continue;
      if (counted.insert(v).second) e.boundary_bytes += ValueBytes(g, v);
    }
    for (ir::ValueId v : n->outputs) {  // read after the segment, or a model output
      if (v == ir::kNoValue || !used_outside.count(v)) continue;
      if (counted.insert(v).second) e.boundary_bytes += ValueBytes(g, v);
    }
  }
  const double hz = c.clock_mhz * 1e6;
  const double compute_s =
      static_cast<double>(e.macs) / static_cast<double>(c.macs_per_cycle()) / hz;
  const double transfer_s = e.boundary_bytes / static_cast<double>(c.axi_bytes()) / hz;
  e.accel_us = m.launch_us + (compute_s + transfer_s) * 1e6;
  e.cpu_us = static_cast<double>(e.macs) / (m.cpu_gmacs * 1e3);
  return e;
}

void ChooseSegmentsByCost(ir::Graph& g, const HwConfig& c, const SegmentCostModel& m,
                          PartitionReport* report) {
  // Segments are maximal runs of consecutive nodes with one target, as the lowering forms them.
  std::vector<Run> runs;
  bool in_run = false;
  size_t index = 0;
  for (ir::Node* n : g.nodes()) {
    const bool accel = n->GetString(ir::kTargetAttr, "") == "accel";
    if (accel && !in_run) runs.emplace_back();
    if (accel) {
      runs.back().nodes.push_back(n);
      runs.back().report_index.push_back(index);
    }
    in_run = accel;
    ++index;
  }
  for (const Run& r : runs) {
    const std::vector<const ir::Node*> nodes(r.nodes.begin(), r.nodes.end());
    const SegmentEstimate e = EstimateSegment(g, nodes, c, m);
    if (e.accel_us < e.cpu_us) continue;
    char why[200];
    std::snprintf(why, sizeof why,
                  "segment of %zu node(s) too small: %lld MACs, ~%.1f us on the accelerator "
                  "(launch + %.0f bytes in/out) vs ~%.1f us on the CPU",
                  r.nodes.size(), static_cast<long long>(e.macs), e.accel_us, e.boundary_bytes,
                  e.cpu_us);
    for (size_t i = 0; i < r.nodes.size(); ++i) {
      r.nodes[i]->SetAttr(ir::kTargetAttr, ir::Attribute::String("cpu"));
      NodePlacement& p = report->nodes[r.report_index[i]];
      p.target = "cpu";
      p.reason = why;
      report->accel_nodes -= 1;
      report->accel_macs -= p.macs;
    }
  }
}

}  // namespace loom::partition
