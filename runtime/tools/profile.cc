#include "runtime/tools/profile.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "runtime/core/checked_math.h"
#include "runtime/package/link.h"

namespace loom::runtime {
namespace {

using nlohmann::json;
using fbu = flatbuffers::uoffset_t;

std::string OpKind(const pkg::Op* op) {
  std::string n = pkg::EnumNameOpParams(op->params_type());
  if (const pkg::Conv2d* c = op->params_as_Conv2d()) {
    if (c->depthwise()) n += "(dw)";
    if (c->groups() != 1) n += "(g" + std::to_string(c->groups()) + ")";
  }
  if (op->params_type() == pkg::OpParams::FloatOp) n += ":" + op->params_as_FloatOp()->op()->str();
  return n;
}

double Utilization(uint64_t macs, uint64_t cycles, const HwConfig& c) {
  return cycles ? static_cast<double>(macs) / (static_cast<double>(cycles) * c.macs_per_cycle()) : 0.0;
}

// MACs and DRAM bytes of one instruction, counted as the devices count them (fsim's Stats).
void CountInsn(const HwConfig& c, const isa::Insn& insn, LayerProfile* l) {
  const uint64_t moved = uint64_t{insn.y_size} * insn.x_size * isa::ElemBytes(c, insn.buffer);
  switch (insn.opcode) {
    case isa::Opcode::kLoad: l->bytes_loaded += moved; break;
    case isa::Opcode::kStore: l->bytes_stored += moved; break;
    case isa::Opcode::kGemm:
      if (!insn.reset) {
        l->macs += uint64_t{insn.loop_out} * insn.loop_in * (insn.uop_end - insn.uop_bgn) *
                   c.macs_per_cycle();
      }
      break;
    default: break;
  }
}

// Bytes of the op's tensors, read (inputs) or written (outputs): each once, as laid out.
uint64_t TensorBytes(const Package& p, const flatbuffers::Vector<int32_t>* indices) {
  uint64_t bytes = 0;
  for (int32_t i : *indices) {
    if (i < 0) continue;  // omitted optional input; the loader checked the others' range
    bytes += p.root().tensors()->Get(static_cast<fbu>(i))->size();
  }
  return bytes;
}

// "12.3M"-style numbers for the table; the JSON has exact values.
std::string Human(uint64_t v) {
  char b[32];
  if (v >= 10'000'000'000ull) std::snprintf(b, sizeof b, "%.1fG", v / 1e9);
  else if (v >= 10'000'000) std::snprintf(b, sizeof b, "%.1fM", v / 1e6);
  else if (v >= 100'000) std::snprintf(b, sizeof b, "%.1fk", v / 1e3);
  else std::snprintf(b, sizeof b, "%" PRIu64, v);
  return b;
}

// The bound with a "d" when DRAM traffic, not MACs, sets it.
std::string BoundText(const RooflineBound& b) {
  return Human(b.cycles()) + (b.dram_bound() ? "d" : "");
}

std::string RatioText(const RooflineBound& b, uint64_t cycles) {
  if (b.cycles() == 0) return "-";
  char t[32];
  std::snprintf(t, sizeof t, "%.2f", b.Ratio(cycles));
  return t;
}

}  // namespace

uint64_t StallCycles::total() const {
  return compute_on_load + load_on_compute + store_on_compute + compute_on_store + queue_full +
         dram_port + fetch;
}

void StallCycles::Add(const InsnTiming& t) {
  // Each queue has one popping module, so the queue names the cause.
  compute_on_load += t.stall_pop[static_cast<int>(isa::Queue::kLoadToCompute)];
  load_on_compute += t.stall_pop[static_cast<int>(isa::Queue::kComputeToLoad)];
  store_on_compute += t.stall_pop[static_cast<int>(isa::Queue::kComputeToStore)];
  compute_on_store += t.stall_pop[static_cast<int>(isa::Queue::kStoreToCompute)];
  for (uint64_t v : t.stall_push) queue_full += v;
  dram_port += t.stall_port;
  fetch += t.stall_fetch + t.stall_finish;
}

Status ZeroInputs(const Package& package, std::vector<HostTensor>* out) {
  out->clear();
  for (const pkg::Binding* b : *package.root().inputs()) {
    HostTensor t;
    t.name = b->name()->str();
    t.type = DType::kF32;
    uint64_t bytes = DTypeSize(DType::kF32);
    for (uint32_t d : *b->shape()) {
      t.shape.push_back(d);
      if (!CheckedMul(bytes, uint64_t{d}, &bytes)) {
        return OutOfRange("input '" + t.name + "': its size overflows 64 bits");
      }
    }
    t.data.assign(bytes, 0);
    out->push_back(std::move(t));
  }
  return Status::Ok();
}

Status ProfileInference(Executor& exec, const std::vector<HostTensor>& inputs, ProfileReport* out) {
  *out = ProfileReport{};
  exec.ResetProfile();
  std::vector<HostTensor> outputs;
  LOOM_RETURN_IF_ERROR(exec.Run(inputs, RunOptions{}, &outputs));
  const Package& p = exec.package();
  const HwConfig& c = p.config();
  out->device = exec.driver().name();
  out->config = c;
  out->timed = true;
  bool any_device = false;
  for (size_t s = 0; s < p.num_segments(); ++s) {
    const pkg::Segment* seg = p.root().segments()->Get(static_cast<fbu>(s));
    const SegmentProfile& sp = exec.profile().segments[s];
    SegmentSummary ss;
    ss.name = sp.name;
    ss.accel = sp.accel;
    ss.on_device = sp.on_device;
    ss.cycles = sp.cycles;
    ss.macs = sp.macs;
    ss.bytes_loaded = sp.bytes_loaded;
    ss.bytes_stored = sp.bytes_stored;
    ss.wall_ms = static_cast<double>(sp.wall_ns) / 1e6;
    ss.gemm_utilization = sp.gemm_utilization(c);
    const Program* prog = sp.on_device ? p.program(s) : nullptr;
    const std::vector<InsnTiming>& tl = exec.timeline(s);
    ss.timed = prog != nullptr && !tl.empty() && tl.size() == prog->insns.size();
    any_device = any_device || sp.on_device;
    if (sp.on_device && !ss.timed) out->timed = false;
    uint64_t prev_end = 0;  // where the previous layer's instructions ended
    for (fbu oi = 0; oi < seg->ops()->size(); ++oi) {
      const pkg::Op* op = seg->ops()->Get(oi);
      LayerProfile l;
      if (oi < sp.op_wall_ns.size() && sp.runs > 0) {
        l.host_ms = static_cast<double>(sp.op_wall_ns[oi]) / 1e6 / static_cast<double>(sp.runs);
      }
      l.name = op->name() ? op->name()->str() : "";
      l.op = OpKind(op);
      l.segment = s;
      l.accel = sp.accel;
      l.insn_begin = op->insn_begin();
      l.insn_end = op->insn_end();
      l.model_macs = op->macs();
      if (l.accel) {
        l.min_bytes_read = TensorBytes(p, op->inputs());
        l.min_bytes_written = TensorBytes(p, op->outputs());
        l.bound = Roofline(c, l.model_macs, l.min_bytes_read, l.min_bytes_written);
      }
      // An op fused into the previous one: fold it into that row (its instructions are there).
      LayerProfile* prev = out->layers.empty() ? nullptr : &out->layers.back();
      if (l.accel && l.insn_end == l.insn_begin && prev != nullptr && prev->segment == s &&
          prev->insn_end > prev->insn_begin && prev->insn_end == l.insn_begin) {
        if (sp.on_device) out->bound_cycles -= prev->bound.cycles();
        prev->fused.push_back(l.name);
        if (l.host_ms >= 0) prev->host_ms = std::max(prev->host_ms, 0.0) + l.host_ms;
        prev->name += "+" + l.name;
        prev->op += "+" + l.op;
        prev->model_macs += l.model_macs;
        // The pair reads what both read but the intermediate, and writes only the add's output.
        prev->min_bytes_read +=
            l.min_bytes_read - std::min(l.min_bytes_read, prev->min_bytes_written);
        prev->min_bytes_written = l.min_bytes_written;
        prev->bound = Roofline(c, prev->model_macs, prev->min_bytes_read, prev->min_bytes_written);
        if (prev->timed) prev->real_utilization = Utilization(prev->model_macs, prev->cycles, c);
        if (sp.on_device) {
          out->device_model_macs += l.model_macs;
          out->bound_cycles += prev->bound.cycles();
        }
        continue;
      }
      const bool ranged = prog != nullptr && l.insn_end > l.insn_begin;
      if (!ranged) {
        l.macs = op->macs();
      } else {
        uint64_t last_end = 0;
        for (uint32_t i = l.insn_begin; i < l.insn_end; ++i) {
          CountInsn(c, prog->insns[i], &l);
          if (!ss.timed) continue;
          const InsnTiming& t = tl[i];
          l.stalls.Add(t);
          l.busy[static_cast<int>(t.module)] += t.end - t.begin;
          last_end = std::max(last_end, t.end);
        }
        if (ss.timed) {
          l.timed = true;
          const uint64_t end = std::max(prev_end, last_end);
          l.cycles = end - prev_end;
          prev_end = end;
          l.gemm_utilization = Utilization(l.macs, l.cycles, c);
          l.real_utilization = Utilization(l.model_macs, l.cycles, c);
        }
      }
      if (sp.on_device && l.accel) {
        out->device_model_macs += l.model_macs;
        out->bound_cycles += l.bound.cycles();
      }
      out->layers.push_back(std::move(l));
    }
    if (ss.timed) ss.untimed_tail = ss.cycles > prev_end ? ss.cycles - prev_end : 0;
    out->cycles += ss.cycles;
    out->macs += ss.macs;
    out->device_macs += sp.device_macs;
    out->segments.push_back(std::move(ss));
  }
  if (!any_device) out->timed = false;
  return Status::Ok();
}

std::string FormatProfile(const ProfileReport& r) {
  const HwConfig& c = r.config;
  std::string o;
  char line[512];
  size_t w = 5;
  for (const LayerProfile& l : r.layers) w = std::max(w, l.name.size());
  w = std::min<size_t>(w, 40);
  auto name = [&](const std::string& n) {
    return n.size() <= w ? n : ".." + n.substr(n.size() - (w - 2));
  };
  std::snprintf(line, sizeof line,
                "%-*s %-15s %4s %9s %6s %9s %6s %6s %9s %6s %9s %9s %8s | stalls: %8s %8s %8s "
                "%8s %8s\n",
                static_cast<int>(w), "layer", "op", "seg", "cycles", "%", "MACs", "util", "real",
                "bound", "x bnd", "loaded", "stored", "host ms", "c<-load", "l<-comp", "s<-comp",
                "c<-store", "other");
  o += line;
  for (const LayerProfile& l : r.layers) {
    const std::string seg = std::to_string(l.segment) + (l.accel ? "a" : "c");
    char host[32] = "-";
    if (l.host_ms >= 0) std::snprintf(host, sizeof host, "%.3f", l.host_ms);
    if (l.timed) {
      const StallCycles& st = l.stalls;
      const uint64_t other = st.queue_full + st.dram_port + st.fetch;
      std::snprintf(line, sizeof line,
                    "%-*s %-15s %4s %9s %5.1f%% %9s %5.1f%% %5.1f%% %9s %6s %9s %9s %8s | "
                    "stalls: %8s %8s %8s %8s %8s\n",
                    static_cast<int>(w), name(l.name).c_str(), l.op.c_str(), seg.c_str(),
                    Human(l.cycles).c_str(), r.cycles ? 100.0 * l.cycles / r.cycles : 0.0,
                    Human(l.macs).c_str(), 100 * l.gemm_utilization, 100 * l.real_utilization,
                    BoundText(l.bound).c_str(), RatioText(l.bound, l.cycles).c_str(),
                    Human(l.bytes_loaded).c_str(), Human(l.bytes_stored).c_str(), host,
                    Human(st.compute_on_load).c_str(), Human(st.load_on_compute).c_str(),
                    Human(st.store_on_compute).c_str(), Human(st.compute_on_store).c_str(),
                    Human(other).c_str());
    } else {
      std::snprintf(line, sizeof line, "%-*s %-15s %4s %9s %6s %9s %6s %6s %9s %6s %9s %9s %8s |\n",
                    static_cast<int>(w), name(l.name).c_str(), l.op.c_str(), seg.c_str(), "-", "",
                    Human(l.macs).c_str(), "", "", l.accel ? BoundText(l.bound).c_str() : "-", "",
                    l.accel ? Human(l.bytes_loaded).c_str() : "-",
                    l.accel ? Human(l.bytes_stored).c_str() : "-", host);
    }
    o += line;
  }
  o += "\nsegment        ran on  cycles     MACs      util   loaded    stored    wall ms  tail cycles\n";
  for (const SegmentSummary& s : r.segments) {
    std::snprintf(line, sizeof line, "%-14s %-7s %-10s %-9s %5.1f%% %-9s %-9s %8.2f  %s\n",
                  s.name.c_str(), s.on_device ? r.device.c_str() : "host", Human(s.cycles).c_str(),
                  Human(s.macs).c_str(), 100 * s.gemm_utilization, Human(s.bytes_loaded).c_str(),
                  Human(s.bytes_stored).c_str(), s.wall_ms,
                  s.timed ? std::to_string(s.untimed_tail).c_str() : "-");
    o += line;
  }
  std::snprintf(line, sizeof line,
                "total: %" PRIu64 " cycles (%.3f ms at %.0f MHz), %" PRIu64
                " MACs, GEMM utilization %.1f%% of %" PRIu64 " MACs/cycle\n",
                r.cycles, static_cast<double>(r.cycles) / (c.clock_mhz * 1000.0), c.clock_mhz,
                r.macs, 100 * Utilization(r.device_macs, r.cycles, c),
                static_cast<uint64_t>(c.macs_per_cycle()));
  o += line;
  if (r.bound_cycles > 0) {
    std::snprintf(line, sizeof line,
                  "on the device: real-MAC utilization %.1f%% (the model's %" PRIu64
                  " MACs, no channel padding); roofline bound %" PRIu64
                  " cycles, cycles / bound %.2f\n",
                  100 * Utilization(r.device_model_macs, r.cycles, c), r.device_model_macs,
                  r.bound_cycles, static_cast<double>(r.cycles) / r.bound_cycles);
    o += line;
  }
  if (!r.timed) {
    o += "note: the " + r.device +
         " device records no per-instruction timeline; layer cycles and stalls are not attributed "
         "(segment counters only)\n";
  }
  o += "real = the model's own MACs / (cycles x peak); bound = roofline bound in cycles, "
       "max(real MACs / peak, compulsory DRAM bytes / rate), \"d\" when DRAM bounds; x bnd = "
       "cycles / bound\n";
  o += "host ms = an op's mean wall time per inference where the host ran it (cpu segments, and "
       "every op on the cpu device)\n";
  o += "stalls: c<-load = compute waiting on load tokens, l<-comp = load waiting on compute, "
       "s<-comp = store waiting on compute, c<-store = compute waiting on store; other = full "
       "queue, DRAM port, fetch\n";
  return o;
}

std::string ProfileToJson(const ProfileReport& r) {
  const HwConfig& c = r.config;
  json j{{"device", r.device},
         {"config", c.name},
         {"clock_mhz", c.clock_mhz},
         {"peak_macs_per_cycle", c.macs_per_cycle()},
         {"axi_bytes_per_cycle", c.axi_bytes()},
         {"timed", r.timed},
         {"cycles", r.cycles},
         {"macs", r.macs},
         {"gemm_utilization", Utilization(r.device_macs, r.cycles, c)},
         {"real_mac_utilization", Utilization(r.device_model_macs, r.cycles, c)},
         {"dram_bytes_per_cycle", DramBytesPerCycle(c)},
         {"dram_write_bytes_per_cycle", DramWriteBytesPerCycle(c)},
         {"bound_cycles", r.bound_cycles},
         {"segments", json::array()},
         {"layers", json::array()}};
  for (const SegmentSummary& s : r.segments) {
    j["segments"].push_back({{"name", s.name},
                             {"kind", s.accel ? "accel" : "cpu"},
                             {"ran_on", s.on_device ? "device" : "host"},
                             {"timed", s.timed},
                             {"cycles", s.cycles},
                             {"macs", s.macs},
                             {"gemm_utilization", s.gemm_utilization},
                             {"bytes_loaded", s.bytes_loaded},
                             {"bytes_stored", s.bytes_stored},
                             {"wall_ms", s.wall_ms},
                             {"tail_cycles", s.untimed_tail}});
  }
  for (const LayerProfile& l : r.layers) {
    json e{{"name", l.name},
           {"op", l.op},
           {"segment", l.segment},
           {"accel", l.accel},
           {"insn_begin", l.insn_begin},
           {"insn_end", l.insn_end},
           {"timed", l.timed},
           {"macs", l.macs},
           {"model_macs", l.model_macs},
           {"bytes_loaded", l.bytes_loaded},
           {"bytes_stored", l.bytes_stored}};
    if (!l.fused.empty()) e["fused"] = l.fused;
    if (l.host_ms >= 0) e["host_ms"] = l.host_ms;
    if (l.accel) {
      e["roofline"] = {{"cycles", l.bound.cycles()},
                       {"compute_cycles", l.bound.compute_cycles},
                       {"dram_cycles", l.bound.dram_cycles},
                       {"min_bytes_read", l.min_bytes_read},
                       {"min_bytes_written", l.min_bytes_written}};
    }
    if (l.timed) {
      e["cycles"] = l.cycles;
      e["gemm_utilization"] = l.gemm_utilization;
      e["real_utilization"] = l.real_utilization;
      if (l.accel) e["cycles_over_bound"] = l.bound.Ratio(l.cycles);
      e["busy"] = {{"load", l.busy[0]}, {"compute", l.busy[1]}, {"store", l.busy[2]}};
      e["stalls"] = {{"compute_on_load", l.stalls.compute_on_load},
                     {"load_on_compute", l.stalls.load_on_compute},
                     {"store_on_compute", l.stalls.store_on_compute},
                     {"compute_on_store", l.stalls.compute_on_store},
                     {"queue_full", l.stalls.queue_full},
                     {"dram_port", l.stalls.dram_port},
                     {"fetch", l.stalls.fetch},
                     {"total", l.stalls.total()}};
    }
    j["layers"].push_back(std::move(e));
  }
  return j.dump(2) + "\n";
}

}  // namespace loom::runtime
