#include "tests/conformance/expectations.h"

#include <cstdio>
#include <fstream>

namespace loom::conformance {
namespace {

bool Contains(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

// Issue 12 names what stays out of scope; everything else refused is work not done yet.
const char* Group(const std::string& d) {
  for (const char* w :
       {"training_mode", "ai.onnx.preview.training", "Gradient", "Adagrad", "Adam", "Momentum"}) {
    if (Contains(d, w)) return "out of scope: training";
  }
  // Matched on what names a sequence, map, optional or string value or operator, not on any
  // mention of the word: "attribute mode of kind string" (Pad) or ReverseSequence are neither.
  for (const char* w :
       {"sequences", "a sequence, map or optional", "SequenceAt", "SequenceConstruct",
        "SequenceEmpty", "SequenceInsert", "SequenceErase", "SequenceLength", "SequenceMap",
        "SplitToSequence", "ConcatFromSequence", "Optional"}) {
    if (Contains(d, w)) return "out of scope: sequences/maps/optionals";
  }
  for (const char* w : {"STRING", "StringNormalizer", "StringConcat", "StringSplit",
                        "RegexFullMatch", "string tensors"}) {
    if (Contains(d, w)) return "out of scope: strings";
  }
  for (const char* w : {"Random", "Bernoulli", "Multinomial"}) {
    if (Contains(d, w)) return "out of scope: random";
  }
  return "not yet implemented";
}

}  // namespace

std::string UnsupportedListPath(const std::string& pass_list) {
  const std::string tail = "_pass.txt";
  if (pass_list.size() >= tail.size() &&
      pass_list.compare(pass_list.size() - tail.size(), tail.size(), tail) == 0) {
    return pass_list.substr(0, pass_list.size() - tail.size()) + "_unsupported.txt";
  }
  return pass_list + ".unsupported";
}

std::string UnsupportedReason(const CaseResult& r) {
  std::string d = r.detail;
  // The model's path is the machine's, not the case's: keep what follows it.
  const size_t model = d.find("model.onnx: ");
  if (model != std::string::npos) d.erase(0, model + 12);
  for (char& c : d) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  if (d.size() > 200) d = d.substr(0, 197) + "...";
  return std::string(Group(r.detail)) + ": " + d;
}

std::set<std::string> ReadCaseList(const std::string& path, bool* ok) {
  std::set<std::string> names;
  std::ifstream in(path);
  *ok = static_cast<bool>(in);
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('\t'));
    line.erase(0, line.find_first_not_of(" \t"));
    line.erase(line.find_last_not_of(" \t\r") + 1);
    if (!line.empty() && line[0] != '#') names.insert(line);
  }
  return names;
}

bool WriteExpectations(const std::string& pass_list, const std::string& path_name,
                       const std::vector<CaseResult>& results) {
  std::ofstream out(pass_list);
  out << "# ONNX backend test cases that must keep passing on the " << path_name
      << " path (docs/compiler.md, section 6).\n"
      << "# Regenerate: loom-conformance --data-dir DIR --path " << path_name
      << " --write-expected FILE\n";
  for (const CaseResult& r : results) {
    if (r.outcome == Outcome::kPassed) out << r.name << "\n";
  }
  std::ofstream un(UnsupportedListPath(pass_list));
  un << "# ONNX backend test cases Loom refuses on the " << path_name
     << " path, each with its reason (case<TAB>group: refusal).\n"
     << "# Written beside the pass list by --write-expected; docs/compiler.md, section 6.\n";
  for (const CaseResult& r : results) {
    if (r.outcome == Outcome::kUnsupported) un << r.name << "\t" << UnsupportedReason(r) << "\n";
  }
  return static_cast<bool>(out) && static_cast<bool>(un);
}

int CheckUnsupported(const std::set<std::string>& listed, const std::vector<CaseResult>& results,
                     bool filtered, const std::string& list_path) {
  int differences = 0;
  std::set<std::string> ran;
  for (const CaseResult& r : results) {
    ran.insert(r.name);
    const bool is_listed = listed.count(r.name) > 0;
    if (r.outcome == Outcome::kUnsupported && !is_listed) {
      std::printf("UNLISTED    %s: unsupported but not in %s (%s)\n", r.name.c_str(),
                  list_path.c_str(), UnsupportedReason(r).c_str());
      ++differences;
    } else if (r.outcome != Outcome::kUnsupported && is_listed) {
      std::printf("CHANGED     %s: listed as unsupported in %s, now %s\n", r.name.c_str(),
                  list_path.c_str(), OutcomeName(r.outcome));
      ++differences;
    }
  }
  for (const std::string& name : listed) {
    if (!filtered && !ran.count(name)) {
      std::printf("MISSING     %s: listed in %s but not found\n", name.c_str(), list_path.c_str());
      ++differences;
    }
  }
  return differences;
}

}  // namespace loom::conformance
