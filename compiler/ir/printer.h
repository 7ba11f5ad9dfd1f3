// The stable text form of a graph: one line per value definition, deterministic everywhere
// (attributes sorted by name, constants listed in order of first use, floats printed with 9
// significant digits so they read back bit-exact). Constants print as their type plus a short
// content hash, and their elements too when there are at most kInlineElements of them. The
// grammar is in docs/compiler.md; parser.h reads it back.
//
//   graph @tiny(%x: f32[1,3,8,8]) {
//     %w: f32[8,3,3,3] = const #1a2b3c4d
//     %b: f32[8] = const #3c4d5e6f [0.5, ...]
//     %y: f32[1,8,8,8] = Conv(%x, %w, %b) {dilations = [1, 1], group = 1, ...} @conv0
//     return %y
//   }
#ifndef LOOM_COMPILER_IR_PRINTER_H_
#define LOOM_COMPILER_IR_PRINTER_H_

#include <ostream>
#include <string>

#include "compiler/ir/graph.h"

namespace loom::ir {

constexpr int64_t kInlineElements = 8;

struct PrintOptions {
  // Constants with at most this many elements also print their data; -1 prints all of them
  // (a form the parser reads back completely, for round trips and debugging).
  int64_t inline_elements = kInlineElements;
};

std::string PrintGraph(const Graph& g, const PrintOptions& options = {});
void PrintGraph(const Graph& g, std::ostream& os, const PrintOptions& options = {});
// One node's line, without indentation; for messages and debugging.
std::string PrintNode(const Graph& g, const Node& n);

// Shared with the parser: how names, floats and types are spelled.
std::string FormatName(const std::string& name);  // bare, or quoted with escapes
// Always reads back as a float, bit-exactly: 9 significant digits, "inf", "nan", or
// "nan(0x7fc00001)" for a NaN whose bits are not the canonical quiet NaN.
std::string FormatFloat(float v);
std::string FormatValueType(const Value& v);  // f32[1,3] plus optional quant(...)

}  // namespace loom::ir

#endif  // LOOM_COMPILER_IR_PRINTER_H_
