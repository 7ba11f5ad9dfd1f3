// What the board-flow generators (vivado_bd.h, alveo_xo.h, dt_overlay.h) produce and consume, and
// the file input/output around them. The generators themselves are pure functions from a board, its
// config and the RTL text to a list of files, so tests can run them without touching the disk;
// loom-hwconfig reads the RTL and writes the files with the functions here.
#ifndef LOOM_VTA_HW_GEN_FLOW_FILES_H_
#define LOOM_VTA_HW_GEN_FLOW_FILES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/status.h"

namespace loom::hwgen {

// One output file; `path` is relative to the output directory ("rtl/loom_top.sv").
struct GeneratedFile {
  std::string path;
  std::string text;
  bool executable = false;  // a script: written with the owner's execute bit
};

// One RTL source, by file name, in compilation order.
struct RtlSource {
  std::string name;
  std::string text;
};

// Reads the RTL the way every other consumer does: the order from rtl_dir/sources.cmake (the list
// CMake, Verilator and the Yosys script use), then each file. Fails naming the file that is missing
// or unreadable, or when the list is empty.
Status ReadRtlSources(const std::string& rtl_dir, std::vector<RtlSource>* out);

// Writes each file under `dir`, creating `dir` and subdirectories. Fails naming the path that could
// not be created or written; a path that escapes `dir` (absolute, or with "..") is refused.
Status WriteGeneratedFiles(const std::string& dir, const std::vector<GeneratedFile>& files);

// Text for a comment in a generated file: control characters (a newline would end the comment in
// Tcl, Verilog or DTS and let the rest run as code) become spaces.
std::string CommentText(const std::string& text);

// "0x43C00000" (upper-case digits, at least `digits` of them).
std::string HexString(uint64_t value, int digits = 1);

// The clock in Hz, rounded to a whole number: "100000000".
std::string HzString(double mhz);

}  // namespace loom::hwgen

#endif  // LOOM_VTA_HW_GEN_FLOW_FILES_H_
