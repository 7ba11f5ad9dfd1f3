#include <cinttypes>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "runtime/tools/commands.h"

namespace loom::runtime {
namespace {

using nlohmann::json;
using fbu = flatbuffers::uoffset_t;

std::string Str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

json Shape(const flatbuffers::Vector<uint32_t>* v) {
  json a = json::array();
  if (v) {
    for (uint32_t d : *v) a.push_back(d);
  }
  return a;
}

json Binding(const pkg::Package& r, const pkg::Binding* b) {
  const pkg::Tensor* t = r.tensors()->Get(static_cast<fbu>(b->tensor()));
  return json{{"name", b->name()->str()},
              {"shape", Shape(b->shape())},
              {"dtype", DTypeName(t->dtype())},
              {"layout", pkg::EnumNameTensorLayout(t->layout())},
              {"scale", t->scale()},
              {"zero_point", t->zero_point()},
              {"tensor", t->name()->str()}};
}

std::string OpName(const pkg::Op* op) {
  std::string n = pkg::EnumNameOpParams(op->params_type());
  if (op->params_type() == pkg::OpParams::FloatOp) n += ":" + op->params_as_FloatOp()->op()->str();
  return n;
}

json Describe(const Package& p, const InspectOptions& o) {
  const pkg::Package& r = p.root();
  json j;
  j["version"] = std::to_string(r.version_major()) + "." + std::to_string(r.version_minor());
  j["config"] = {{"name", p.config().name}, {"hash", p.config().HashHex()},
                 {"batch", p.config().batch}, {"block_in", p.config().block_in},
                 {"block_out", p.config().block_out}, {"clock_mhz", p.config().clock_mhz}};
  j["board"] = Str(r.board());
  if (r.provenance()) {
    char hash[32];
    std::snprintf(hash, sizeof(hash), "%016" PRIx64, r.provenance()->model_fnv1a());
    j["provenance"] = {{"model", Str(r.provenance()->model_name())},
                       {"model_fnv1a", hash},
                       {"compiler_version", Str(r.provenance()->compiler_version())},
                       {"command_line", Str(r.provenance()->command_line())}};
  }
  j["arena_bytes"] = p.arena_bytes();
  j["constants_bytes"] = p.constants_bytes();
  j["payload_bytes"] = p.payload_bytes();
  j["tensors"] = r.tensors()->size();
  j["inputs"] = json::array();
  for (const pkg::Binding* b : *r.inputs()) j["inputs"].push_back(Binding(r, b));
  j["outputs"] = json::array();
  for (const pkg::Binding* b : *r.outputs()) j["outputs"].push_back(Binding(r, b));
  uint64_t ops = 0, accel_ops = 0, macs = 0, accel_macs = 0;
  j["segments"] = json::array();
  for (fbu s = 0; s < r.segments()->size(); ++s) {
    const pkg::Segment* seg = r.segments()->Get(s);
    const bool accel = seg->kind() == pkg::SegmentKind::Accel;
    json js{{"index", s}, {"name", Str(seg->name())}, {"kind", accel ? "accel" : "cpu"},
            {"ops", json::array()}, {"macs", seg->macs()}};
    for (const pkg::Op* op : *seg->ops()) js["ops"].push_back({{"name", Str(op->name())}, {"type", OpName(op)}, {"macs", op->macs()}});
    ops += seg->ops()->size();
    macs += seg->macs();
    if (accel) {
      accel_ops += seg->ops()->size();
      accel_macs += seg->macs();
      const Program* prog = p.program(s);
      js["instructions"] = prog->insns.size();
      js["uops"] = prog->uop_words.size();
      js["gemm_macs"] = prog->gemm_macs;
      if (o.disasm) {
        json text = json::array();
        for (size_t i = 0; i < prog->insns.size(); ++i) {
          std::string line = isa::Disassemble(prog->insns[i]);
          if (prog->regions[i] != Region::kNone) line += "  # dram_base in " + std::string(RegionName(prog->regions[i]));
          text.push_back(line);
        }
        js["disasm"] = text;
        json uops = json::array();
        for (uint32_t w : prog->uop_words) {
          isa::Uop u;
          if (isa::DecodeUop(p.layout(), w, &u).ok()) uops.push_back(isa::DisassembleUop(u));
        }
        js["uop_disasm"] = uops;
      }
    }
    j["segments"].push_back(js);
  }
  j["native"] = json::array();
  if (r.native() != nullptr) {
    for (const pkg::NativeCode* code : *r.native()) {
      json features = json::array();
      if (code->features()) {
        for (const flatbuffers::String* f : *code->features()) features.push_back(f->str());
      }
      json symbols = json::array();
      for (const pkg::NativeSymbol* sym : *code->symbols()) {
        symbols.push_back(
            {{"segment", sym->segment()}, {"op", sym->op()}, {"name", sym->name()->str()}});
      }
      j["native"].push_back({{"target", code->target()->str()},
                             {"cpu", Str(code->cpu())},
                             {"features", features},
                             {"object_bytes", code->object()->size()},
                             {"workspace_bytes", code->workspace_bytes()},
                             {"symbols", symbols}});
    }
  }
  j["offload"] = {{"ops", ops ? static_cast<double>(accel_ops) / ops : 0.0},
                  {"macs", macs ? static_cast<double>(accel_macs) / macs : 0.0},
                  {"accel_ops", accel_ops}, {"total_ops", ops},
                  {"accel_macs", accel_macs}, {"total_macs", macs}};
  return j;
}

std::string ShapeText(const json& s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? "," : "") + std::to_string(s[i].get<uint64_t>());
  return t + "]";
}

}  // namespace

std::string InspectPackage(const Package& package, const InspectOptions& options) {
  const json j = Describe(package, options);
  if (options.json) return j.dump(2) + "\n";
  std::string out;
  char line[512];
  std::snprintf(line, sizeof(line), "package version %s, config %s (hash %s), board '%s'\n",
                j["version"].get<std::string>().c_str(), package.config().name.c_str(),
                package.config().HashHex().c_str(), j["board"].get<std::string>().c_str());
  out += line;
  if (j.contains("provenance")) {
    out += "model " + j["provenance"]["model"].get<std::string>() + " (fnv1a " +
           j["provenance"]["model_fnv1a"].get<std::string>() + "), compiler " +
           j["provenance"]["compiler_version"].get<std::string>() + "\n";
  }
  std::snprintf(line, sizeof(line), "arena %" PRIu64 " bytes, constants %" PRIu64 " bytes, %zu tensors\n",
                package.arena_bytes(), package.constants_bytes(), static_cast<size_t>(j["tensors"].get<uint64_t>()));
  out += line;
  for (const char* dir : {"inputs", "outputs"}) {
    for (const json& b : j[dir]) {
      out += std::string(dir == std::string("inputs") ? "input  " : "output ") + b["name"].get<std::string>() + " " +
             ShapeText(b["shape"]) + " " + b["dtype"].get<std::string>() + " " + b["layout"].get<std::string>();
      std::snprintf(line, sizeof(line), " scale %g", b["scale"].get<double>());
      out += line;
      const int zero = b["zero_point"].get<int>();
      out += zero != 0 ? " zero point " + std::to_string(zero) + "\n" : "\n";
    }
  }
  out += "segments:\n";
  for (const json& s : j["segments"]) {
    std::snprintf(line, sizeof(line), "  %2" PRIu64 " %-5s %-24s %3zu ops %12" PRIu64 " MACs",
                  s["index"].get<uint64_t>(), s["kind"].get<std::string>().c_str(),
                  s["name"].get<std::string>().c_str(), s["ops"].size(), s["macs"].get<uint64_t>());
    out += line;
    if (s.contains("instructions")) {
      std::snprintf(line, sizeof(line), "  %" PRIu64 " insns %" PRIu64 " uops",
                    s["instructions"].get<uint64_t>(), s["uops"].get<uint64_t>());
      out += line;
    }
    out += "\n    ";
    for (const json& op : s["ops"]) out += op["type"].get<std::string>() + "(" + op["name"].get<std::string>() + ") ";
    out += "\n";
    if (s.contains("disasm")) {
      for (size_t i = 0; i < s["uop_disasm"].size(); ++i) {
        std::snprintf(line, sizeof(line), "    u%-5zu %s\n", i, s["uop_disasm"][i].get<std::string>().c_str());
        out += line;
      }
      for (size_t i = 0; i < s["disasm"].size(); ++i) {
        std::snprintf(line, sizeof(line), "    %-6zu %s\n", i, s["disasm"][i].get<std::string>().c_str());
        out += line;
      }
    }
  }
  const json& off = j["offload"];
  std::snprintf(line, sizeof(line),
                "offload: %" PRIu64 "/%" PRIu64 " ops (%.1f%%), %" PRIu64 "/%" PRIu64 " MACs (%.1f%%) on the accelerator\n",
                off["accel_ops"].get<uint64_t>(), off["total_ops"].get<uint64_t>(), 100 * off["ops"].get<double>(),
                off["accel_macs"].get<uint64_t>(), off["total_macs"].get<uint64_t>(), 100 * off["macs"].get<double>());
  out += line;
  for (const json& n : j["native"]) {
    std::string features;
    for (const json& f : n["features"])
      features += (features.empty() ? "" : ",") + f.get<std::string>();
    std::snprintf(line, sizeof(line),
                  "native code: %s (cpu %s%s%s): %zu op functions, %" PRIu64
                  "-byte object, %" PRIu64 "-byte workspace\n",
                  n["target"].get<std::string>().c_str(), n["cpu"].get<std::string>().c_str(),
                  features.empty() ? "" : ", needs ", features.c_str(), n["symbols"].size(),
                  n["object_bytes"].get<uint64_t>(), n["workspace_bytes"].get<uint64_t>());
    out += line;
  }
  return out;
}

}  // namespace loom::runtime
