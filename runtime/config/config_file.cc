#include "runtime/config/config_file.h"

#include <algorithm>
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

Status ParseBoardImpl(std::string_view text, const std::string& source, Board* out) {
  strict_json::Json json;
  LOOM_RETURN_IF_ERROR(strict_json::ParseObject(text, source, &json));
  Fields fields(json, source);
  LOOM_RETURN_IF_ERROR(
      fields.CheckKnown({"name", "description", "family", "fpga_part", "clock_mhz", "config",
                         "driver", "register_base", "dram_base", "dram_bytes", "resources"},
                        "a board"));

  Board b;
  LOOM_RETURN_IF_ERROR(fields.Name("name", &b.name));
  LOOM_RETURN_IF_ERROR(fields.String("description", &b.description));
  LOOM_RETURN_IF_ERROR(fields.String("family", &b.family));
  LOOM_RETURN_IF_ERROR(fields.String("fpga_part", &b.fpga_part));
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

  // The family decides which driver can reach the accelerator and whether there is a real part.
  LOOM_RETURN_IF_ERROR(CheckOneOf(fields, "family", b.family, {"sim", "zynq7", "zynqmp", "alveo"}));
  const bool sim = b.family == "sim";
  if (sim) {
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

std::vector<std::string> ListHwConfigs() { return ListNames(kConfigSearch); }
std::vector<std::string> ListBoards() { return ListNames(kBoardSearch); }

}  // namespace loom
