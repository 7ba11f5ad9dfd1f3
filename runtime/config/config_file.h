// Reading hardware configs (vta_hw/configs/*.json) and board definitions (boards/*.json).
//
// The files are the single source of the HwConfig that the compiler, the simulators, the runtime
// and the RTL package generator all share, so parsing is strict: an unknown, missing, duplicated
// or mistyped field is an error naming the file and the field, never a silent default. Every
// function here returns a Status; no exception escapes (nlohmann's are caught inside).
//
// Lookup by name: a value containing '/' or ending in ".json" is a path; anything else is a name,
// searched as NAME.json in the colon-separated directories of LOOM_CONFIG_PATH (LOOM_BOARD_PATH for
// boards), then in the source tree's vta_hw/configs (boards) compiled into the library.
#ifndef LOOM_RUNTIME_CONFIG_CONFIG_FILE_H_
#define LOOM_RUNTIME_CONFIG_CONFIG_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/hw_config.h"
#include "runtime/core/status.h"

namespace loom {

// Parses one config file's text. `source` names the text in error messages (usually its path).
// Checks field names and types, then HwConfig::Validate(). On error *out is left unchanged.
Status ParseHwConfig(std::string_view json_text, const std::string& source, HwConfig* out);

// Loads a config by name or path (see above). When loaded by name, the file's "name" field must
// equal the file stem, so a package's recorded config name always finds the same file.
Status LoadHwConfig(const std::string& name_or_path, HwConfig* out);

// Pretty JSON with the fields in file order; ParseHwConfig(HwConfigToJson(c)) yields c again.
std::string HwConfigToJson(const HwConfig& config);

// The FPGA's capacity, for utilisation reports and for refusing a config that cannot fit.
struct BoardResources {
  uint32_t lut = 0;
  uint32_t ff = 0;
  uint32_t dsp = 0;
  uint32_t bram36 = 0;
  uint32_t uram = 0;
};

// A board definition: where the accelerator lives and which config and driver it uses.
struct Board {
  std::string name;            // equals the file stem, e.g. "pynq-z1"
  std::string description;     // one line for humans
  std::string family;          // "sim" | "zynq7" | "zynqmp" | "alveo"
  std::string fpga_part;       // Vivado part name, "none" for sim
  double clock_mhz = 0.0;      // accelerator clock on this board; overrides the config's clock
  std::string config;          // name of a HwConfig (LoadHwConfig)
  std::string driver;          // runtime driver: "fsim", "tsim" or "cpu" (sim), "zynq", "xrt"
  uint64_t register_base = 0;  // AXI-Lite base of the accelerator; 0 where XRT maps it
  uint64_t dram_base = 0;      // physical DRAM window the accelerator's AXI master may use
  uint64_t dram_bytes = 0;
  BoardResources resources;
};

// Same strictness as ParseHwConfig; also checks that family, driver and part agree.
Status ParseBoard(std::string_view json_text, const std::string& source, Board* out);
// Loads a board by name (LOOM_BOARD_PATH, then boards/) or path.
Status LoadBoard(const std::string& name_or_path, Board* out);
// Loads the board's config and sets its clock to the board's, then validates the result.
Status LoadBoardConfig(const Board& board, HwConfig* out);

// Names of every config / board found on the search path, sorted, without duplicates.
std::vector<std::string> ListHwConfigs();
std::vector<std::string> ListBoards();

}  // namespace loom

#endif  // LOOM_RUNTIME_CONFIG_CONFIG_FILE_H_
