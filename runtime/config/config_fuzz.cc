// Fuzz target for the config and board parsers: any byte string must come back as a Status, never
// as a crash, a hang or an escaped exception. A config that parses must also survive the JSON round
// trip unchanged, since tools rewrite configs with HwConfigToJson.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "runtime/config/config_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);

  loom::HwConfig config;
  if (loom::ParseHwConfig(text, "fuzz.json", &config).ok()) {
    loom::HwConfig again;
    const std::string json = loom::HwConfigToJson(config);
    if (!loom::ParseHwConfig(json, "roundtrip.json", &again).ok() ||
        loom::HwConfigToJson(again) != json) {
      std::abort();
    }
  }

  loom::Board board;
  (void)loom::ParseBoard(text, "fuzz.json", &board);
  return 0;
}
