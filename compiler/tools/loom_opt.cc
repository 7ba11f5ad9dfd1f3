// loom-opt: the compiler's test driver, after LLVM's opt. Reads a model (.onnx, imported) or
// textual IR (anything else, parsed and verified), runs a pass pipeline and prints the IR. The
// golden tests under tests/compiler drive it through FileCheck.
//
//   loom-opt model.onnx -p identity-removal,constant-folding --dump-ir-after=constant-folding
//   loom-opt graph.loomir -p fusion
//   loom-opt --split-input-file cases.loomir -p fusion   (chunks separated by "// -----")
//   loom-opt --list-passes
#include <CLI/CLI.hpp>
#include <iostream>
#include <sstream>

#include "compiler/frontend/onnx_import.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/passes/pass_manager.h"
#include "compiler/pipeline/compile.h"
#include "compiler/tools/input_shape_flag.h"
#include "runtime/io/file.h"

namespace {

using loom::Status;

// Textual IR from stdin, with the same limit as an IR file (stdin may be endless).
Status ReadStdin(std::string* text) {
  text->clear();
  char buf[1 << 16];
  while (std::cin.read(buf, sizeof buf) || std::cin.gcount() > 0) {
    text->append(buf, static_cast<size_t>(std::cin.gcount()));
    if (text->size() > loom::kMaxTextFileBytes) {
      return loom::InvalidArgument("IR text on stdin is larger than the " +
                                   std::to_string(loom::kMaxTextFileBytes) +
                                   " bytes accepted for it");
    }
  }
  if (std::cin.bad()) return loom::DataLoss("IR text on stdin: read error");
  return Status::Ok();
}

Status Process(const std::string& text, bool is_onnx, const loom::frontend::ImportOptions& import,
               const std::vector<std::string>& pipeline,
               const loom::passes::PipelineOptions& options, const loom::ir::PrintOptions& print,
               std::ostream& out) {
  loom::ir::Graph g;
  if (is_onnx) {
    LOOM_RETURN_IF_ERROR(loom::frontend::ImportOnnxBytes(text.data(), text.size(), import, &g));
  } else {
    LOOM_RETURN_IF_ERROR(loom::ir::ParseGraph(text, &g));
  }
  LOOM_RETURN_IF_ERROR(loom::passes::RunPipeline(pipeline, &g, options));
  loom::ir::PrintGraph(g, out, print);
  return Status::Ok();
}

}  // namespace

int main(int argc, char** argv) {
  loom::pipeline::RegisterAllPasses();
  CLI::App app{"Run Loom graph passes on an ONNX model or textual IR and print the IR."};
  std::string input;
  std::vector<std::string> pipeline, dump_after, input_shapes;
  bool split = false, list = false, no_verify_input = false, no_verify_each = false;
  bool all_constants = false;
  app.add_option("input", input, "model.onnx, or textual IR ('-' for stdin)");
  app.add_option("-p,--passes", pipeline,
                 "pass pipeline: a,b{key=value},c ('default' for the "
                 "compiler's default pipeline)");
  app.add_option("--dump-ir-after", dump_after,
                 "print the IR after this pass (or 'all') to stderr");
  app.add_option("--input-shape", input_shapes, "fix an ONNX input's shape: NAME=D0,D1,...");
  app.add_flag("--split-input-file", split, "process each '// -----' chunk separately");
  app.add_flag("--no-verify-input", no_verify_input, "do not verify the graph before the passes");
  app.add_flag("--no-verify-each", no_verify_each, "do not verify after each pass");
  app.add_flag("--print-all-constants", all_constants,
               "print every constant's data (the output then parses back completely)");
  app.add_flag("--list-passes", list, "print the registered passes and exit");
  CLI11_PARSE(app, argc, argv);

  if (list) {
    for (const loom::passes::PassInfo* p : loom::passes::AllPasses()) {
      std::cout << p->name << "\n    " << p->summary << "\n";
      if (*p->options) std::cout << "    options: " << p->options << "\n";
    }
    return 0;
  }
  if (input.empty()) {
    std::cerr << "loom-opt: no input (see --help)\n";
    return 2;
  }
  const bool is_onnx = input.size() > 5 && input.substr(input.size() - 5) == ".onnx";
  std::string text;
  const Status read = input == "-" ? ReadStdin(&text)
                      : is_onnx
                          ? loom::ReadFileText(input, "ONNX model", loom::kMaxModelFileBytes, &text)
                          : loom::ReadFileText(input, "IR text", loom::kMaxTextFileBytes, &text);
  if (!read.ok()) {
    std::cerr << "loom-opt: " << read.ToString() << "\n";
    return 2;
  }

  loom::frontend::ImportOptions import;
  for (const std::string& spec : input_shapes) {
    if (Status s = loom::tools::ParseInputShape(spec, 0, &import.input_shapes); !s.ok()) {
      std::cerr << "loom-opt: " << s.ToString() << "\n";
      return 2;
    }
  }
  for (std::string& p : pipeline) {
    if (p == "default") {
      p.clear();
      for (const std::string& d : loom::passes::DefaultPipeline()) p += (p.empty() ? "" : ",") + d;
    }
  }
  loom::passes::PipelineOptions options;
  options.verify_input = !no_verify_input;
  options.verify_each = !no_verify_each;
  options.dump_after.insert(dump_after.begin(), dump_after.end());

  // Chunks: the whole input, or the pieces between "// -----" lines. Each chunk's output (its IR,
  // or "error: ...") goes to stdout in order, so one FileCheck file can cover many cases.
  std::vector<std::string> chunks;
  if (split && !is_onnx) {
    std::stringstream ss(text);
    std::string line, cur;
    while (std::getline(ss, line)) {
      if (line.rfind("// -----", 0) == 0) {
        chunks.push_back(cur);
        cur.clear();
        // Keep line numbers of later chunks meaningful: count from the chunk start.
        continue;
      }
      cur += line + "\n";
    }
    chunks.push_back(cur);
  } else {
    chunks.push_back(text);
  }
  int failures = 0;
  for (size_t i = 0; i < chunks.size(); ++i) {
    if (i) std::cout << "// -----\n";
    std::ostringstream out;
    loom::ir::PrintOptions print;
    if (all_constants) print.inline_elements = -1;
    Status s = Process(chunks[i], is_onnx, import, pipeline, options, print, out);
    if (s.ok()) {
      std::cout << out.str();
    } else {
      ++failures;
      (split ? std::cout : std::cerr) << "error: " << s.ToString() << "\n";
    }
  }
  return failures ? 1 : 0;
}
