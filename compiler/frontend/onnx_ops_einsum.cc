// Einsum's mapper (reduction family, issue 12): the equation is parsed here, once, into numeric
// labels, so neither the IR's shape function nor the runtime's kernel parses text. Every dim of
// every operand gets a label id (letters in order of first use, then one id per ellipsis dim);
// the implicit output (no "->") is the ellipsis dims, then the letters used exactly once in
// alphabetical order, as NumPy and ONNX define it.
#include <algorithm>
#include <cctype>
#include <map>

#include "compiler/frontend/onnx_internal.h"

namespace loom::frontend {
namespace {

constexpr int kMaxLabels = 16;  // runtime/kernels/kernels_reduce.h kMaxEinsumLabels

struct Term {
  std::string letters_before, letters_after;  // around the ellipsis (all letters when none)
  bool ellipsis = false;
};

Status ParseTerm(const ImportContext& ctx, const onnx::NodeProto& n, const std::string& text,
                 Term* t) {
  const size_t dots = text.find("...");
  t->ellipsis = dots != std::string::npos;
  t->letters_before = t->ellipsis ? text.substr(0, dots) : text;
  t->letters_after = t->ellipsis ? text.substr(dots + 3) : "";
  for (const std::string* part : {&t->letters_before, &t->letters_after}) {
    for (char c : *part) {
      if (!std::isalpha(static_cast<unsigned char>(c))) {
        return ctx.Invalid(n, "equation term '" + text + "' holds '" + std::string(1, c) +
                                  "'; terms are letters and at most one '...'");
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Status MapEinsum(ImportContext& ctx, const onnx::NodeProto& n, int) {
  std::string eq;
  for (char c : AttrString(n, "equation", "")) {
    if (c != ' ') eq.push_back(c);
  }
  if (eq.empty()) return ctx.Invalid(n, "needs the string attribute 'equation'");
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<Term> terms;
  for (size_t pos = 0;;) {
    const size_t comma = lhs.find(',', pos);
    terms.emplace_back();
    LOOM_RETURN_IF_ERROR(ParseTerm(ctx, n, lhs.substr(pos, comma - pos), &terms.back()));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  if (n.input_size() > 8) {
    return ctx.Unsupported(
        n, "Loom's Einsum kernel takes at most 8 operands, got " + std::to_string(n.input_size()));
  }
  if (static_cast<int>(terms.size()) != n.input_size()) {
    return ctx.Invalid(n, "equation '" + eq + "' has " + std::to_string(terms.size()) +
                              " terms for " + std::to_string(n.input_size()) + " inputs");
  }
  // Ellipsis ranks, right-aligned across operands as NumPy broadcasts them.
  std::vector<ir::ValueId> ins;
  std::vector<int64_t> ell_rank(terms.size(), 0);
  int64_t max_ell = 0;
  for (size_t k = 0; k < terms.size(); ++k) {
    ir::ValueId v;
    LOOM_RETURN_IF_ERROR(ctx.Input(n, static_cast<int>(k), &v));
    ins.push_back(v);
    const int64_t rank = static_cast<int64_t>(ctx.graph().value(v).shape.size());
    const int64_t letters =
        static_cast<int64_t>(terms[k].letters_before.size() + terms[k].letters_after.size());
    ell_rank[k] = rank - letters;
    if (ell_rank[k] < 0 || (!terms[k].ellipsis && ell_rank[k] != 0)) {
      return ctx.Invalid(n, "equation term " + std::to_string(k) + " names " +
                                std::to_string(letters) + " dims of a rank-" +
                                std::to_string(rank) + " input");
    }
    max_ell = std::max(max_ell, ell_rank[k]);
  }
  std::map<char, int64_t> ids;
  std::map<char, int> uses;
  int64_t next = max_ell;  // ids 0..max_ell-1 are the ellipsis dims
  auto id_of = [&](char c) {
    if (!ids.count(c)) ids[c] = next++;
    ++uses[c];
    return ids[c];
  };
  std::vector<int64_t> labels;
  bool any_ellipsis = false;
  for (size_t k = 0; k < terms.size(); ++k) {
    for (char c : terms[k].letters_before) labels.push_back(id_of(c));
    for (int64_t e = max_ell - ell_rank[k]; e < max_ell; ++e) labels.push_back(e);
    for (char c : terms[k].letters_after) labels.push_back(id_of(c));
    any_ellipsis = any_ellipsis || terms[k].ellipsis;
  }
  if (next > kMaxLabels) {
    return ctx.Unsupported(n, "equation '" + eq + "' uses " + std::to_string(next) +
                                  " labels; Loom's kernel takes up to " +
                                  std::to_string(kMaxLabels));
  }
  std::vector<int64_t> out;
  if (arrow == std::string::npos) {
    // The implicit output is defined over the spec's lower-case subscripts only (libonnx 1.12's
    // shape inference indexes a 26-entry table by letter and overruns it on any other).
    for (const auto& [c, count] : uses) {
      if (!std::islower(static_cast<unsigned char>(c))) {
        return ctx.Invalid(n, "equation '" + eq + "' uses the upper-case subscript '" +
                                  std::string(1, c) +
                                  "' without '->'; an implicit output takes lower-case letters "
                                  "only, so spell the output out");
      }
    }
    for (int64_t e = 0; e < max_ell; ++e) out.push_back(e);
    for (const auto& [c, count] : uses) {  // std::map: alphabetical (upper case first)
      if (count == 1) out.push_back(ids[c]);
    }
  } else {
    Term t;
    LOOM_RETURN_IF_ERROR(ParseTerm(ctx, n, eq.substr(arrow + 2), &t));
    if (t.ellipsis && !any_ellipsis) return ctx.Invalid(n, "the output has '...', no input does");
    std::string seen;
    auto add = [&](char c) {
      if (!ids.count(c)) return ctx.Invalid(n, std::string("output label '") + c + "' is unused");
      if (seen.find(c) != std::string::npos) {
        return ctx.Invalid(n, std::string("output label '") + c + "' repeats");
      }
      seen.push_back(c);
      out.push_back(ids[c]);
      return Status::Ok();
    };
    for (char c : t.letters_before) LOOM_RETURN_IF_ERROR(add(c));
    if (t.ellipsis) {
      for (int64_t e = 0; e < max_ell; ++e) out.push_back(e);
    }
    for (char c : t.letters_after) LOOM_RETURN_IF_ERROR(add(c));
  }
  ir::AttributeMap attrs;
  attrs["labels"] = ir::Attribute::Ints(labels);
  attrs["out_labels"] = ir::Attribute::Ints(out);
  return ctx.Emit(n, "Einsum", ins, std::move(attrs));
}

}  // namespace loom::frontend
