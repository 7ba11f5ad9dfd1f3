#include "runtime/config/config_file.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <utility>

#include "runtime/config/strict_json.h"

namespace loom {
namespace {

namespace fs = std::filesystem;
using strict_json::Fields;
using strict_json::Join;

// A config file is a few hundred bytes; the cap only keeps a wrong path (a disk image, /dev/zero)
// from being read into memory.
constexpr std::uintmax_t kMaxFileBytes = 1 << 20;

// The uint32 fields of a config file, in file order (name first, clock_mhz last). One table serves
// parsing, the unknown-field check and HwConfigToJson, so they cannot disagree.
struct U32Field {
  const char* name;
  uint32_t HwConfig::*member;
};
// clang-format off
constexpr U32Field kConfigU32Fields[] = {
    {"batch", &HwConfig::batch}, {"block_in", &HwConfig::block_in},
    {"block_out", &HwConfig::block_out}, {"inp_bits", &HwConfig::inp_bits},
    {"wgt_bits", &HwConfig::wgt_bits}, {"acc_bits", &HwConfig::acc_bits},
    {"out_bits", &HwConfig::out_bits}, {"uop_buffer_bytes", &HwConfig::uop_buffer_bytes},
    {"inp_buffer_bytes", &HwConfig::inp_buffer_bytes},
    {"wgt_buffer_bytes", &HwConfig::wgt_buffer_bytes},
    {"acc_buffer_bytes", &HwConfig::acc_buffer_bytes},
    {"token_queue_depth", &HwConfig::token_queue_depth},
    {"cmd_queue_depth", &HwConfig::cmd_queue_depth}, {"axi_data_bits", &HwConfig::axi_data_bits},
    {"dma_burst_latency", &HwConfig::dma_burst_latency},
    {"dma_max_burst_beats", &HwConfig::dma_max_burst_beats},
};
// clang-format on

// nlohmann throws on allocation failure and on misuse; neither may leave this file as an exception.
template <typename F>
Status Guarded(const std::string& source, F&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    return Internal(source + ": unexpected error: " + e.what());
  } catch (...) {
    return Internal(source + ": unexpected error");
  }
}

Status ParseHwConfigImpl(std::string_view text, const std::string& source, HwConfig* out) {
  strict_json::Json json;
  LOOM_RETURN_IF_ERROR(strict_json::ParseObject(text, source, &json));
  Fields fields(json, source);
  std::vector<std::string> known = {"name"};
  for (const auto& f : kConfigU32Fields) known.push_back(f.name);
  known.push_back("clock_mhz");
  LOOM_RETURN_IF_ERROR(fields.CheckKnown(known, "a hardware config"));

  HwConfig config;
  LOOM_RETURN_IF_ERROR(fields.Name("name", &config.name));
  for (const auto& f : kConfigU32Fields) {
    LOOM_RETURN_IF_ERROR(fields.U32(f.name, &(config.*f.member)));
  }
  LOOM_RETURN_IF_ERROR(fields.Number("clock_mhz", &config.clock_mhz));
  LOOM_RETURN_IF_ERROR(config.Validate().WithContext(source));
  *out = std::move(config);
  return Status::Ok();
}

Status CheckOneOf(const Fields& fields, const char* field, const std::string& value,
                  const std::vector<std::string>& allowed, const std::string& context = "") {
  if (std::find(allowed.begin(), allowed.end(), value) != allowed.end()) return Status::Ok();
  return fields.Error(field, "is \"" + value + "\", must be one of " + Join(allowed) + context);
}

// The PS ports a Zynq accelerator's AXI master can use for DRAM. Coherent ports snoop the CPU
// caches (ACP on Zynq-7000; HPC0/HPC1 through the CCI on ZynqMP); the HP ports go straight to the
// DDR controller, so the driver flushes and invalidates around each run.
struct DmaPort {
  const char* family;
  const char* name;
  bool coherent;
};
constexpr DmaPort kZynqDmaPorts[] = {
    {"zynq7", "HP0", false},  {"zynq7", "HP1", false},  {"zynq7", "HP2", false},
    {"zynq7", "HP3", false},  {"zynq7", "ACP", true},   {"zynqmp", "HP0", false},
    {"zynqmp", "HP1", false}, {"zynqmp", "HP2", false}, {"zynqmp", "HP3", false},
    {"zynqmp", "HPC0", true}, {"zynqmp", "HPC1", true},
};

// The PS master ports that can carry the register window, with the low (32-bit) aperture each
// decodes in the PS address map.
struct ControlPort {
  const char* family;
  const char* name;
  uint64_t base;
  uint64_t bytes;
};
constexpr ControlPort kControlPorts[] = {
    {"zynq7", "GP0", 0x40000000, 0x40000000},       {"zynq7", "GP1", 0x80000000, 0x40000000},
    {"zynqmp", "HPM0_FPD", 0xA0000000, 0x10000000}, {"zynqmp", "HPM1_FPD", 0xB0000000, 0x10000000},
    {"zynqmp", "HPM0_LPD", 0x80000000, 0x20000000},
};

// PL-to-PS interrupt lines as GIC SPI numbers: each range is 8 consecutive lines.
struct IrqRange {
  const char* family;
  uint32_t first_spi;
  uint32_t first_line;
};
constexpr IrqRange kIrqRanges[] = {
    {"zynq7", 29, 0}, {"zynq7", 52, 8}, {"zynqmp", 89, 0}, {"zynqmp", 104, 8}};
constexpr uint32_t kIrqRangeLines = 8;

// Fields that only some families carry, and which.
struct FamilyField {
  const char* field;
  std::vector<std::string> families;
};
const std::vector<FamilyField>& FamilyFields() {
  static const std::vector<FamilyField> fields = {
      {"dma_port", {"zynq7", "zynqmp", "alveo"}},
      {"coherence", {"zynq7", "zynqmp", "alveo"}},
      {"control_port", {"zynq7", "zynqmp"}},
      {"irq", {"zynq7", "zynqmp"}},
      {"dma_region_bytes", {"zynq7", "zynqmp"}},
      {"vivado_board_part", {"zynq7", "zynqmp"}},
      {"kernel_name", {"alveo"}},
      {"vitis_platform", {"alveo"}},
  };
  return fields;
}

bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

// "vendor:board:part0:version": the pieces end up in generated Tcl, so only name characters.
bool IsBoardPart(const std::string& s) {
  int pieces = 1;
  bool piece_empty = true;
  for (char c : s) {
    if (c == ':') {
      if (piece_empty) return false;
      ++pieces;
      piece_empty = true;
    } else if (IsNameChar(c)) {
      piece_empty = false;
    } else {
      return false;
    }
  }
  return pieces == 4 && !piece_empty;
}

// "DDR[0]" or "HBM[12]": the memory tag v++ connects a kernel port to.
bool IsMemoryBank(const std::string& s) {
  for (const char* kind : {"DDR[", "HBM["}) {
    const std::string prefix = kind;
    if (s.size() < prefix.size() + 2 || s.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = s.substr(prefix.size(), s.size() - prefix.size() - 1);
    return s.back() == ']' && !digits.empty() && digits.size() <= 2 &&
           std::all_of(digits.begin(), digits.end(),
                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  }
  return false;
}

// A Verilog module and XRT kernel name.
bool IsIdentifier(const std::string& s) {
  return !s.empty() && !std::isdigit(static_cast<unsigned char>(s[0])) &&
         std::all_of(s.begin(), s.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
         });
}

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%llX", static_cast<unsigned long long>(v));
  return buf;
}

Status ParseZynqFields(const Fields& fields, Board* b) {
  std::vector<std::string> ports;
  const DmaPort* port = nullptr;
  for (const auto& p : kZynqDmaPorts) {
    if (b->family != p.family) continue;
    ports.push_back(p.name);
    if (b->dma_port == p.name) port = &p;
  }
  if (port == nullptr) {
    return CheckOneOf(fields, "dma_port", b->dma_port, ports, " for family " + b->family);
  }
  const char* implied = port->coherent ? "coherent" : "noncoherent";
  if (b->coherence != implied) {
    return fields.Error(
        "coherence", "is \"" + b->coherence + "\", but dma_port " + b->dma_port +
                         (port->coherent ? " snoops the CPU caches" : " bypasses the CPU caches") +
                         "; it must be \"" + implied + "\"");
  }

  std::vector<std::string> controls;
  const ControlPort* control = nullptr;
  for (const auto& c : kControlPorts) {
    if (b->family != c.family) continue;
    controls.push_back(c.name);
    if (b->control_port == c.name) control = &c;
  }
  if (control == nullptr) {
    return CheckOneOf(fields, "control_port", b->control_port, controls,
                      " for family " + b->family);
  }
  if (b->register_base % kRegisterWindowBytes != 0 || b->register_base < control->base ||
      b->register_base - control->base > control->bytes - kRegisterWindowBytes) {
    return fields.Error("register_base", "is " + Hex(b->register_base) +
                                             ", must be a 4 KiB-aligned address in " +
                                             b->control_port + "'s window " + Hex(control->base) +
                                             "-" + Hex(control->base + control->bytes - 1));
  }

  uint32_t line = 0;
  if (!PlInterruptLine(b->family, b->irq, &line).ok()) {
    std::string ranges;
    for (const auto& r : kIrqRanges) {
      if (b->family != r.family) continue;
      ranges += (ranges.empty() ? "" : " or ") + std::to_string(r.first_spi) + "-" +
                std::to_string(r.first_spi + kIrqRangeLines - 1);
    }
    return fields.Error("irq", "is " + std::to_string(b->irq) +
                                   ", not a PL-to-PS interrupt of family " + b->family +
                                   " (GIC SPI " + ranges + ")");
  }

  if (b->dma_region_bytes == 0 || b->dma_region_bytes % 4096 != 0) {
    return fields.Error("dma_region_bytes", "is " + Hex(b->dma_region_bytes) +
                                                ", must be a non-zero multiple of 4 KiB");
  }
  if (b->dma_region_bytes > b->dram_bytes) {
    return fields.Error("dma_region_bytes", "is " + Hex(b->dma_region_bytes) +
                                                ", larger than dram_bytes " + Hex(b->dram_bytes));
  }
  if (!IsBoardPart(b->vivado_board_part)) {
    return fields.Error("vivado_board_part",
                        "is \"" + b->vivado_board_part +
                            "\", must be a Vivado board part vendor:board:part0:version");
  }
  return Status::Ok();
}

Status ParseAlveoFields(const Fields& fields, const Board& b) {
  if (!IsMemoryBank(b.dma_port)) {
    return fields.Error("dma_port",
                        "is \"" + b.dma_port + "\", must name the memory bank, e.g. \"DDR[0]\"");
  }
  if (b.coherence != "noncoherent") {
    return fields.Error("coherence", "is \"" + b.coherence +
                                         "\", must be \"noncoherent\" for an Alveo card (its "
                                         "DDR is reached through explicit buffer syncs)");
  }
  if (!IsIdentifier(b.kernel_name)) {
    return fields.Error("kernel_name", "is \"" + b.kernel_name +
                                           "\", must be an identifier [A-Za-z_][A-Za-z0-9_]*");
  }
  return Status::Ok();
}

Status ParseBoardImpl(std::string_view text, const std::string& source, Board* out) {
  strict_json::Json json;
  LOOM_RETURN_IF_ERROR(strict_json::ParseObject(text, source, &json));
  Fields fields(json, source);
  std::vector<std::string> known = {"name",      "description", "family",   "fpga_part",
                                    "clock_mhz", "config",      "driver",   "register_base",
                                    "dram_base", "dram_bytes",  "resources"};
  for (const auto& f : FamilyFields()) known.push_back(f.field);
  LOOM_RETURN_IF_ERROR(fields.CheckKnown(known, "a board"));

  Board b;
  LOOM_RETURN_IF_ERROR(fields.Name("name", &b.name));
  LOOM_RETURN_IF_ERROR(fields.String("description", &b.description));
  // The family decides which fields the file must carry, so it is checked first.
  LOOM_RETURN_IF_ERROR(fields.String("family", &b.family));
  LOOM_RETURN_IF_ERROR(CheckOneOf(fields, "family", b.family, {"sim", "zynq7", "zynqmp", "alveo"}));
  for (const auto& f : FamilyFields()) {
    const bool applies =
        std::find(f.families.begin(), f.families.end(), b.family) != f.families.end();
    if (applies && !fields.Has(f.field)) {
      return InvalidArgument(source + ": missing field '" + f.field + "' (family " + b.family +
                             " needs it)");
    }
    if (!applies && fields.Has(f.field)) {
      return fields.Error(
          f.field, "does not apply to family " + b.family + " (only to " + Join(f.families) + ")");
    }
  }
  LOOM_RETURN_IF_ERROR(fields.Name("fpga_part", &b.fpga_part));
  LOOM_RETURN_IF_ERROR(fields.Number("clock_mhz", &b.clock_mhz));
  LOOM_RETURN_IF_ERROR(fields.Name("config", &b.config));
  LOOM_RETURN_IF_ERROR(fields.String("driver", &b.driver));
  LOOM_RETURN_IF_ERROR(fields.Hex64("register_base", &b.register_base));
  LOOM_RETURN_IF_ERROR(fields.Hex64("dram_base", &b.dram_base));
  LOOM_RETURN_IF_ERROR(fields.Hex64("dram_bytes", &b.dram_bytes));
  const strict_json::Json* res = nullptr;
  LOOM_RETURN_IF_ERROR(fields.Object("resources", &res));
  Fields rf(*res, source, "resources.");
  LOOM_RETURN_IF_ERROR(rf.CheckKnown({"lut", "ff", "dsp", "bram36", "uram"}, "resources"));
  BoardResources& r = b.resources;
  for (auto [field, value] : {std::pair{"lut", &r.lut},
                              {"ff", &r.ff},
                              {"dsp", &r.dsp},
                              {"bram36", &r.bram36},
                              {"uram", &r.uram}}) {
    LOOM_RETURN_IF_ERROR(rf.U32(field, value));
  }
  const bool hardware = b.family != "sim";
  if (hardware) {
    LOOM_RETURN_IF_ERROR(fields.String("dma_port", &b.dma_port));
    LOOM_RETURN_IF_ERROR(fields.String("coherence", &b.coherence));
    LOOM_RETURN_IF_ERROR(CheckOneOf(fields, "coherence", b.coherence, {"coherent", "noncoherent"}));
  }
  if (b.is_zynq()) {
    LOOM_RETURN_IF_ERROR(fields.String("control_port", &b.control_port));
    LOOM_RETURN_IF_ERROR(fields.U32("irq", &b.irq));
    LOOM_RETURN_IF_ERROR(fields.Hex64("dma_region_bytes", &b.dma_region_bytes));
    LOOM_RETURN_IF_ERROR(fields.String("vivado_board_part", &b.vivado_board_part));
  }
  if (b.family == "alveo") {
    LOOM_RETURN_IF_ERROR(fields.Name("kernel_name", &b.kernel_name));
    LOOM_RETURN_IF_ERROR(fields.Name("vitis_platform", &b.vitis_platform));
  }

  // The family decides which driver can reach the accelerator and whether there is a real part.
  if (!hardware) {
    LOOM_RETURN_IF_ERROR(
        CheckOneOf(fields, "driver", b.driver, {"fsim", "tsim", "cpu"}, " for a sim board"));
    if (b.fpga_part != "none") return fields.Error("fpga_part", "must be \"none\" for a sim board");
  } else {
    const char* driver = b.family == "alveo" ? "xrt" : "zynq";
    LOOM_RETURN_IF_ERROR(
        CheckOneOf(fields, "driver", b.driver, {driver}, " for family " + b.family));
    if (b.fpga_part.empty() || b.fpga_part == "none") {
      return fields.Error("fpga_part", "must name the FPGA part (e.g. xc7z020clg400-1)");
    }
    if (b.resources.lut == 0) return rf.Error("lut", "must be the part's LUT count, not 0");
  }
  if (!(b.clock_mhz > 0.0 && b.clock_mhz <= 2000.0)) {
    return fields.Error("clock_mhz",
                        "is " + std::to_string(b.clock_mhz) + ", must be in (0, 2000]");
  }
  if (b.driver == "zynq" && b.register_base == 0) {
    return fields.Error("register_base",
                        "must be the accelerator's AXI-Lite address on a Zynq board");
  }
  if (b.dram_bytes == 0) return fields.Error("dram_bytes", "must not be 0");
  if (b.dram_base > std::numeric_limits<uint64_t>::max() - (b.dram_bytes - 1)) {
    return fields.Error("dram_bytes", "runs past the end of the 64-bit address space");
  }
  if (b.is_zynq()) LOOM_RETURN_IF_ERROR(ParseZynqFields(fields, &b));
  if (b.family == "alveo") LOOM_RETURN_IF_ERROR(ParseAlveoFields(fields, b));
  *out = std::move(b);
  return Status::Ok();
}

// Where to look for NAME.json: the environment's directories first, so a user can shadow a
// shipped file without editing the source tree.
struct SearchPath {
  const char* what;     // "hardware config"
  const char* env;      // "LOOM_CONFIG_PATH"
  const char* builtin;  // compiled-in directory
};
constexpr SearchPath kConfigSearch = {"hardware config", "LOOM_CONFIG_PATH", LOOM_CONFIG_DIR};
constexpr SearchPath kBoardSearch = {"board", "LOOM_BOARD_PATH", LOOM_BOARD_DIR};

std::vector<std::string> Directories(const SearchPath& sp) {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv(sp.env)) {
    std::stringstream ss(env);
    for (std::string dir; std::getline(ss, dir, ':');) {
      if (!dir.empty()) dirs.push_back(dir);
    }
  }
  dirs.push_back(sp.builtin);
  return dirs;
}

std::vector<std::string> ListNames(const SearchPath& sp) {
  std::set<std::string> names;
  for (const auto& dir : Directories(sp)) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() == ".json" && it->is_regular_file(ec)) {
        names.insert(it->path().stem().string());
      }
    }
  }
  return {names.begin(), names.end()};
}

// Finds NAME.json on the search path.
Status Find(const SearchPath& sp, const std::string& name, std::string* path) {
  if (name.empty()) return InvalidArgument(std::string("empty ") + sp.what + " name");
  for (const auto& dir : Directories(sp)) {
    std::error_code ec;
    fs::path candidate = fs::path(dir) / (name + ".json");
    if (fs::is_regular_file(candidate, ec)) {
      *path = candidate.string();
      return Status::Ok();
    }
  }
  const std::vector<std::string> available = ListNames(sp);
  return NotFound(std::string("no ") + sp.what + " named '" + name + "' (searched " +
                  Join(Directories(sp)) + "; set " + sp.env + " to add directories); available: " +
                  (available.empty() ? "none" : Join(available)));
}

Status ReadFile(const std::string& path, std::string* out) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return NotFound(path + ": no such file");
  std::uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > kMaxFileBytes) {
    return InvalidArgument(path + ": " + std::to_string(size) + " bytes, too large for this file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound(path + ": cannot open");
  std::stringstream buffer;
  buffer << in.rdbuf();
  *out = buffer.str();
  return Status::Ok();
}

// Loads a config or board by name or path. By name, the file must call itself by that name, so
// the name recorded in a package always finds the same file.
template <typename T>
Status LoadNamed(const SearchPath& sp, const std::string& name_or_path,
                 Status (*parse)(std::string_view, const std::string&, T*), T* out) {
  return Guarded(name_or_path, [&]() -> Status {
    const bool by_path = name_or_path.find('/') != std::string::npos ||
                         (name_or_path.size() >= 5 &&
                          name_or_path.compare(name_or_path.size() - 5, 5, ".json") == 0);
    std::string path = name_or_path, text;
    if (!by_path) LOOM_RETURN_IF_ERROR(Find(sp, name_or_path, &path));
    LOOM_RETURN_IF_ERROR(ReadFile(path, &text));
    T value;
    LOOM_RETURN_IF_ERROR(parse(text, path, &value));
    if (!by_path && value.name != name_or_path) {
      return InvalidArgument(path + ": field 'name' is \"" + value.name +
                             "\" but the file was loaded as '" + name_or_path +
                             "'; the name must match the file name");
    }
    *out = std::move(value);
    return Status::Ok();
  });
}

}  // namespace

Status ParseHwConfig(std::string_view json_text, const std::string& source, HwConfig* out) {
  return Guarded(source, [&] { return ParseHwConfigImpl(json_text, source, out); });
}

Status LoadHwConfig(const std::string& name_or_path, HwConfig* out) {
  return LoadNamed(kConfigSearch, name_or_path, &ParseHwConfigImpl, out);
}

std::string HwConfigToJson(const HwConfig& config) {
  nlohmann::ordered_json json;
  json["name"] = config.name;
  for (const auto& f : kConfigU32Fields) json[f.name] = config.*f.member;
  json["clock_mhz"] = config.clock_mhz;
  return json.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

Status ParseBoard(std::string_view json_text, const std::string& source, Board* out) {
  return Guarded(source, [&] { return ParseBoardImpl(json_text, source, out); });
}

Status LoadBoard(const std::string& name_or_path, Board* out) {
  return LoadNamed(kBoardSearch, name_or_path, &ParseBoardImpl, out);
}

Status LoadBoardConfig(const Board& board, HwConfig* out) {
  HwConfig config;
  LOOM_RETURN_IF_ERROR(LoadHwConfig(board.config, &config).WithContext("board " + board.name));
  config.clock_mhz = board.clock_mhz;
  LOOM_RETURN_IF_ERROR(
      config.Validate().WithContext("board " + board.name + ", config " + config.name));
  *out = std::move(config);
  return Status::Ok();
}

Status PlInterruptLine(const std::string& family, uint32_t irq, uint32_t* line) {
  for (const auto& r : kIrqRanges) {
    if (family == r.family && irq >= r.first_spi && irq - r.first_spi < kIrqRangeLines) {
      *line = r.first_line + (irq - r.first_spi);
      return Status::Ok();
    }
  }
  return InvalidArgument("GIC SPI " + std::to_string(irq) +
                         " is not a PL-to-PS interrupt line of family " + family);
}

std::vector<std::string> ListHwConfigs() { return ListNames(kConfigSearch); }
std::vector<std::string> ListBoards() { return ListNames(kBoardSearch); }

}  // namespace loom
