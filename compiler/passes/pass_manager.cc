#include "compiler/passes/pass_manager.h"

#include <iostream>

#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"

namespace loom::passes {
namespace {

std::string Trim(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t\n");
  if (b == std::string_view::npos) return "";
  const size_t e = s.find_last_not_of(" \t\n");
  return std::string(s.substr(b, e - b + 1));
}

// Whether `key` is one of the keys PassInfo::options documents ("key=default: ...; key2=...").
bool KnowsOption(const PassInfo& p, const std::string& key) {
  const std::string doc = p.options;
  size_t pos = 0;
  while (pos < doc.size()) {
    const size_t eq = doc.find('=', pos);
    if (eq == std::string::npos) break;
    if (Trim(std::string_view(doc).substr(pos, eq - pos)) == key) return true;
    const size_t next = doc.find(';', eq);
    if (next == std::string::npos) break;
    pos = next + 1;
  }
  return false;
}

Status ParseOne(const std::string& item, PassInvocation* out) {
  const size_t brace = item.find('{');
  const std::string name = Trim(item.substr(0, brace));
  out->pass = FindPass(name);
  if (out->pass == nullptr) {
    std::string known;
    for (const PassInfo* p : AllPasses()) known += std::string(known.empty() ? "" : ", ") + p->name;
    return InvalidArgument("unknown pass '" + name + "' (known: " + known + ")");
  }
  out->options.clear();
  if (brace == std::string::npos) return Status::Ok();
  if (item.back() != '}') return InvalidArgument("pass '" + name + "': missing '}'");
  const std::string body = item.substr(brace + 1, item.size() - brace - 2);
  size_t pos = 0;
  while (pos <= body.size()) {
    const size_t comma = body.find(',', pos);
    const std::string kv =
        Trim(body.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    if (!kv.empty()) {
      const size_t eq = kv.find('=');
      if (eq == std::string::npos)
        return InvalidArgument("pass '" + name + "': option '" + kv + "' needs =");
      const std::string key = Trim(kv.substr(0, eq));
      if (!KnowsOption(*out->pass, key)) {
        return InvalidArgument("pass '" + name + "' has no option '" + key + "'");
      }
      out->options[key] = Trim(kv.substr(eq + 1));
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return Status::Ok();
}

}  // namespace

Status ParsePipeline(const std::vector<std::string>& specs, std::vector<PassInvocation>* out) {
  out->clear();
  for (const std::string& spec : specs) {
    // Split on commas outside braces.
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i <= spec.size(); ++i) {
      const char c = i < spec.size() ? spec[i] : ',';
      if (c == '{') ++depth;
      if (c == '}') --depth;
      if (c == ',' && depth == 0) {
        const std::string item = Trim(std::string_view(spec).substr(start, i - start));
        start = i + 1;
        if (item.empty()) continue;
        PassInvocation inv;
        LOOM_RETURN_IF_ERROR(ParseOne(item, &inv));
        out->push_back(std::move(inv));
      }
    }
    if (depth != 0) return InvalidArgument("unbalanced braces in pipeline '" + spec + "'");
  }
  return Status::Ok();
}

const std::vector<std::string>& DefaultPipeline() {
  // Identity removal first so folding and the pattern passes see through Identity/Dropout;
  // batchnorm-folding before fusion so Conv+BN+Relu ends as one Conv; shape inference last as a
  // cross-check of every rewrite; DCE to drop what the rewrites left behind.
  static const std::vector<std::string> pipeline = {"identity-removal",      "constant-folding",
                                                    "batchnorm-folding",     "fusion",
                                                    "dead-code-elimination", "shape-inference"};
  return pipeline;
}

Status RunPipeline(const std::vector<std::string>& specs, ir::Graph* g,
                   const PipelineOptions& options) {
  std::vector<PassInvocation> passes;
  LOOM_RETURN_IF_ERROR(ParsePipeline(specs, &passes));
  return RunPipeline(passes, g, options);
}

Status RunPipeline(const std::vector<PassInvocation>& passes, ir::Graph* g,
                   const PipelineOptions& options) {
  std::ostream& dump = options.dump_stream ? *options.dump_stream : std::cerr;
  if (options.verify_input) {
    Status s = ir::Verify(*g);
    if (!s.ok()) return s.WithContext("input graph fails verification");
  }
  for (const PassInvocation& inv : passes) {
    const std::string name = inv.pass->name;
    LOOM_RETURN_IF_ERROR(inv.pass->run(*g, inv.options).WithContext("pass " + name));
    g->ReleaseErasedNodes();
    if (options.verify_each) {
      Status s = ir::Verify(*g);
      if (!s.ok()) return Internal("verifier failed after pass " + name + ": " + s.message());
    }
    if (options.dump_after.count(name) || options.dump_after.count("all")) {
      dump << "// -----// IR dump after " << name << " //----- //\n";
      ir::PrintGraph(*g, dump);
    }
  }
  return Status::Ok();
}

}  // namespace loom::passes
