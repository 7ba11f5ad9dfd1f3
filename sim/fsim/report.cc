// Human and machine views of a run: the cycle report, statistics JSON, and the Perfetto timeline.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "sim/fsim/fsim.h"

namespace loom::fsim {

namespace {

using nlohmann::json;

json ModuleJson(const ModuleStats& m) {
  json pop = json::object(), push = json::object();
  for (int q = 0; q < isa::kNumQueues; ++q) {
    pop[isa::QueueName(static_cast<isa::Queue>(q))] = m.stall_pop[q];
    push[isa::QueueName(static_cast<isa::Queue>(q))] = m.stall_push[q];
  }
  return json{{"insns", m.insns},
              {"busy_cycles", m.busy},
              {"stall_cycles",
               {{"fetch", m.stall_fetch},
                {"token_pop", pop},
                {"token_push", push},
                {"dram_port", m.stall_port},
                {"finish_drain", m.stall_finish},
                {"total", m.stalls()}}}};
}

std::string Pct(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * v);
  return buf;
}

}  // namespace

std::string StatsToJson(const Stats& s, const HwConfig& c) {
  json bytes = json::object();
  for (int b = 0; b < 4; ++b) bytes[isa::BufferName(static_cast<isa::Buffer>(b))] = s.bytes_loaded[b];
  json j{{"config", c.name},
         {"clock_mhz", c.clock_mhz},
         {"cycles", s.cycles},
         {"latency_us", static_cast<double>(s.cycles) / c.clock_mhz},
         {"insns", s.insns},
         {"macs", s.macs},
         {"peak_macs_per_cycle", s.peak_macs_per_cycle},
         {"gemm_utilization", s.gemm_utilization()},
         {"alu_lane_ops", s.alu_lanes},
         {"bytes_loaded", s.total_bytes_loaded()},
         {"bytes_loaded_by_buffer", bytes},
         {"bytes_stored", s.bytes_stored},
         {"bytes_fetched", s.bytes_fetched},
         {"modules", json::object()}};
  for (int m = 0; m < isa::kNumModules; ++m) {
    j["modules"][isa::ModuleName(static_cast<isa::Module>(m))] = ModuleJson(s.module[m]);
  }
  return j.dump(2);
}

std::string FormatReport(const Stats& s, const HwConfig& c) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line,
                "cycles %llu (%.2f us at %.0f MHz), %llu instructions\n"
                "GEMM: %llu MACs, utilization %s of %llu MACs/cycle\n"
                "DRAM: %llu bytes loaded (uop %llu, wgt %llu, inp %llu, acc %llu), %llu stored\n",
                static_cast<unsigned long long>(s.cycles),
                static_cast<double>(s.cycles) / c.clock_mhz, c.clock_mhz,
                static_cast<unsigned long long>(s.insns), static_cast<unsigned long long>(s.macs),
                Pct(s.gemm_utilization()).c_str(),
                static_cast<unsigned long long>(s.peak_macs_per_cycle),
                static_cast<unsigned long long>(s.total_bytes_loaded()),
                static_cast<unsigned long long>(s.bytes_loaded[0]),
                static_cast<unsigned long long>(s.bytes_loaded[1]),
                static_cast<unsigned long long>(s.bytes_loaded[2]),
                static_cast<unsigned long long>(s.bytes_loaded[3]),
                static_cast<unsigned long long>(s.bytes_stored));
  out += line;
  out += "module    insns      busy   stalled  (token waits, port, fetch)\n";
  for (int m = 0; m < isa::kNumModules; ++m) {
    const ModuleStats& ms = s.module[m];
    uint64_t pops = 0;
    for (uint64_t v : ms.stall_pop) pops += v;
    for (uint64_t v : ms.stall_push) pops += v;
    std::snprintf(line, sizeof line, "%-8s %6llu %9llu %9llu  (%llu, %llu, %llu)  busy %s\n",
                  isa::ModuleName(static_cast<isa::Module>(m)),
                  static_cast<unsigned long long>(ms.insns),
                  static_cast<unsigned long long>(ms.busy),
                  static_cast<unsigned long long>(ms.stalls()),
                  static_cast<unsigned long long>(pops),
                  static_cast<unsigned long long>(ms.stall_port),
                  static_cast<unsigned long long>(ms.stall_fetch),
                  Pct(s.cycles ? static_cast<double>(ms.busy) / s.cycles : 0.0).c_str());
    out += line;
  }
  return out;
}

std::string TraceToJson(const std::vector<sim::TraceEvent>& trace,
                        const std::vector<isa::Insn>& insns, const HwConfig& c) {
  json events = json::array();
  // Track names: one thread per module.
  for (int m = 0; m < isa::kNumModules; ++m) {
    events.push_back({{"ph", "M"},
                      {"pid", 1},
                      {"tid", m},
                      {"name", "thread_name"},
                      {"args", {{"name", isa::ModuleName(static_cast<isa::Module>(m))}}}});
  }
  events.push_back({{"ph", "M"}, {"pid", 1}, {"name", "process_name"},
                    {"args", {{"name", "loom accelerator (" + c.name + ")"}}}});
  for (const sim::TraceEvent& e : trace) {
    const bool exec = e.kind == sim::TraceEvent::Kind::kExec;
    std::string name = exec && e.insn < insns.size() ? isa::Mnemonic(insns[e.insn])
                                                     : sim::TraceEventKindName(e.kind);
    json args{{"insn", e.insn}, {"begin_cycle", e.begin}, {"end_cycle", e.end}};
    if (exec && e.insn < insns.size()) args["text"] = isa::Disassemble(insns[e.insn]);
    if (e.kind == sim::TraceEvent::Kind::kStallPop || e.kind == sim::TraceEvent::Kind::kStallPush) {
      args["queue"] = isa::QueueName(e.queue);
      name += std::string(" ") + isa::QueueName(e.queue);
    }
    events.push_back({{"ph", "X"},
                      {"pid", 1},
                      {"tid", static_cast<int>(e.module)},
                      {"name", name},
                      {"cat", exec ? "exec" : "stall"},
                      {"ts", static_cast<double>(e.begin) / c.clock_mhz},
                      {"dur", static_cast<double>(e.end - e.begin) / c.clock_mhz},
                      {"args", args}});
  }
  return json{{"traceEvents", events}, {"displayTimeUnit", "ns"}}.dump();
}

}  // namespace loom::fsim
