// The package writer: a plain C++ model of a package (PackageSpec) serialized to the on-disk
// format of docs/package.md (32-byte header + FlatBuffer, runtime/schema/loom_package.fbs). The
// compiler's lowering fills a PackageSpec; tests build small ones by hand.
//
// By default the written bytes are loaded back with the runtime's loader, so a package the
// runtime would refuse is a compiler error here, naming the problem, never a file on disk.
#ifndef LOOM_COMPILER_PACKAGE_WRITER_H_
#define LOOM_COMPILER_PACKAGE_WRITER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "runtime/core/hw_config.h"
#include "runtime/core/isa.h"
#include "runtime/core/status.h"
#include "runtime/package/link.h"
#include "runtime/schema/loom_package_generated.h"

namespace loom::package {

using pkg::SegmentKind;
using pkg::Storage;
using pkg::TensorLayout;
using runtime::Region;

struct TensorSpec {
  std::string name;
  pkg::DType dtype = pkg::DType::Int8;
  TensorLayout layout = TensorLayout::Plain;
  std::vector<uint32_t> shape;  // logical
  Storage storage = Storage::Arena;
  uint64_t offset = 0;  // bytes from the start of the arena or the constants
  uint64_t size = 0;    // bytes, padding included; 0: computed from shape, dtype and layout
  float scale = 1.0f;   // int8: real = (q - zero_point) * scale
  int32_t zero_point = 0;
};

// Operator parameters, as in the schema (and runtime/kernels/int8/qops.h).
struct Window {
  uint32_t kh = 1, kw = 1, stride_h = 1, stride_w = 1;
  uint32_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
};
struct Requant {
  int32_t pre_shift = 0, post_shift = 0, clip_lo = -128, clip_hi = 127;
};
struct Conv2dParams {
  Window window;
  bool depthwise = false;
  Requant requant;
  int32_t pad_value = 0;  // the input's zero point
  uint32_t groups = 1;    // qops.h Conv2dParams::groups
};
struct AddParams { int32_t mult_a = 1, mult_b = 1, shift = 0, clip_lo = -128, clip_hi = 127; };
struct MulParams {
  int32_t b_mult = 1, b_offset = 0, b_lo = -128, b_hi = 127, mult = 1;
  Requant requant;
  int32_t a_offset = 0, out_offset = 0;  // minus a's zero point; the output's
};
struct ResizeParams {
  uint32_t factor_h = 2, factor_w = 2;
};
struct ZeroInsertParams {
  uint32_t stride_h = 2, stride_w = 2;
};
struct MaxPoolParams { Window window; };
struct AvgPoolParams {
  Window window;
  bool count_include_pad = false;
  Requant requant;
  int32_t x_offset = 0, out_offset = 0;  // minus the input's zero point; the output's
};
struct ConcatParams { std::vector<int32_t> mults, shifts; };
struct QuantizeParams {};
struct DequantizeParams {};
struct RelayoutParams {};
// Numbers, or (package 1.7) one string in `text`; never both. The constructors keep the
// {name, ints, floats} brace form working without naming `text`.
struct FloatAttr {
  FloatAttr() = default;
  FloatAttr(std::string n, std::vector<int64_t> i, std::vector<float> f)
      : name(std::move(n)), ints(std::move(i)), floats(std::move(f)) {}
  static FloatAttr Text(std::string n, std::string value) {
    FloatAttr a;
    a.name = std::move(n);
    a.text = std::move(value);
    return a;
  }
  std::string name;
  std::vector<int64_t> ints;
  std::vector<float> floats;
  std::optional<std::string> text;
};
struct FloatOpParams { std::string op; std::vector<FloatAttr> attrs; };
using OpParams = std::variant<Conv2dParams, AddParams, MaxPoolParams, AvgPoolParams, ConcatParams,
                              QuantizeParams, DequantizeParams, RelayoutParams, FloatOpParams,
                              MulParams, ResizeParams, ZeroInsertParams>;

struct OpSpec {
  std::string name;
  OpParams params;
  std::vector<int32_t> inputs;  // tensor indices; -1 for an omitted optional input
  std::vector<int32_t> outputs;
  uint64_t macs = 0;
  // Accelerator segments: the op's instructions [insn_begin, insn_end) in the program; 0, 0: none.
  uint32_t insn_begin = 0, insn_end = 0;
};

// An accelerator program with region-relative DRAM addresses (compiler/tensorize AccelCode).
// Give the instructions either decoded (`insns`, encoded here with the config's layout) or as
// raw little-endian words (`insn_bytes`, written as is; for tests of the loader). Same for
// micro-ops (`uops` or `uop_words`).
struct ProgramSpec {
  std::vector<isa::Insn> insns;
  std::vector<uint8_t> insn_bytes;
  std::vector<Region> regions;  // one per instruction
  std::vector<isa::Uop> uops;
  std::vector<uint32_t> uop_words;
};

struct SegmentSpec {
  std::string name;
  SegmentKind kind = SegmentKind::Cpu;
  std::vector<OpSpec> ops;
  bool has_program = false;  // accelerator segments
  ProgramSpec program;
  uint64_t macs = 0;  // 0: the sum of the ops' macs
};

struct BindingSpec {
  std::string name;
  int32_t tensor = -1;
  std::vector<uint32_t> shape;  // the shape the user sees
};

struct ProvenanceSpec {
  std::string model_name;
  uint64_t model_fnv1a = 0;
  std::string compiler_version;
  std::string command_line;
};

// Native code for one target (schema NativeCode; compiler/codegen writes it).
struct NativeSymbolSpec {
  uint32_t segment = 0, op = 0;
  std::string name;
};
struct NativeCodeSpec {
  std::string target;  // "x86_64" | "aarch64" | "armv7"
  std::string cpu;
  std::vector<std::string> features;
  std::vector<uint8_t> object;  // ELF relocatable object
  std::vector<NativeSymbolSpec> symbols;
  uint64_t workspace_bytes = 0;  // the most any function's `workspace` must hold
};

struct PackageSpec {
  HwConfig config;
  std::string board;
  std::vector<uint8_t> constants;  // pre-packed; tensors with Storage::Constant point into it
  uint64_t arena_bytes = 0;
  std::vector<TensorSpec> tensors;
  std::vector<SegmentSpec> segments;
  std::vector<BindingSpec> inputs, outputs;
  ProvenanceSpec provenance;
  std::vector<NativeCodeSpec> native;
  // Overrides for tests of the loader: 0 means the config's CompatibilityHash / this writer's
  // schema version.
  uint64_t config_hash = 0;
  uint16_t version_major = 0;
};

struct WriteOptions {
  bool verify = true;  // load the result with the runtime's loader and return its error
};

// FNV-1a 64 of a file's bytes (for ProvenanceSpec::model_fnv1a).
Status HashFile(const std::string& path, uint64_t* fnv1a);

// The complete file image: header + FlatBuffer.
Status SerializePackage(const PackageSpec& spec, std::vector<uint8_t>* out,
                        const WriteOptions& options = {});
// Serializes and writes atomically (a temporary file in the same folder, then rename).
Status WritePackage(const PackageSpec& spec, const std::string& path,
                    const WriteOptions& options = {});

}  // namespace loom::package

#endif  // LOOM_COMPILER_PACKAGE_WRITER_H_
