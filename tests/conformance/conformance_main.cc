// loom-conformance: runs the ONNX backend test cases shipped by libonnx-testdata, either through
// import -> passes -> reference interpreter (--path float) or through the whole compiler to a
// package run on the cpu and fsim devices (--path int8), and compares with the shipped outputs
// (case_runner.h says how).
//
// Prints one line per case that did not pass, the pass/fail/unsupported counts, writes a JSON
// summary, and — given --expected — fails (exit 1) if any listed case no longer passes, or if the
// refused cases differ from the unsupported list beside it (expectations.h). Newly passing cases
// are reported so the list can be extended; --write-expected rewrites both lists. Exits 77 (ctest's
// skip code) when the test data is not installed.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "compiler/passes/pass_manager.h"
#include "tests/conformance/case_runner.h"
#include "tests/conformance/expectations.h"

namespace fs = std::filesystem;
using loom::conformance::CaseResult;
using loom::conformance::Outcome;

int main(int argc, char** argv) {
  CLI::App app{"Run the ONNX backend test cases through Loom's compiler and runtime."};
  std::string data_dir, json_path, expected_path, write_expected, filter, path = "float";
  loom::conformance::RunnerOptions options;
  std::vector<std::string> suites = {"node", "pytorch-converted"};
  std::string pipeline = "default";
  bool verbose = false;
  app.add_option("--data-dir", data_dir, "libonnx-testdata data folder (holds node/, ...)")
      ->required();
  app.add_option("--suites", suites, "sub-folders to run")->delimiter(',');
  app.add_option("--path", path,
                 "float: reference interpreter; int8: quantized package on cpu and fsim")
      ->check(CLI::IsMember({"float", "int8"}));
  app.add_option("--passes", pipeline, "float path: pass pipeline, or 'default' or 'none'");
  app.add_option("--config", options.config, "int8 path: accelerator configuration")
      ->capture_default_str();
  app.add_option("--min-sqnr", options.min_sqnr_db,
                 "int8 path: SQNR (dB) every output must reach against the fp32 one")
      ->capture_default_str();
  app.add_option("--json", json_path, "write a JSON summary here");
  app.add_option("--expected", expected_path, "cases that must pass (one per line)");
  app.add_option("--write-expected", write_expected,
                 "write the passing cases here, the refused ones with reasons beside it");
  app.add_option("--filter", filter, "only cases whose name contains this text");
  app.add_flag("-v,--verbose", verbose, "print every case");
  CLI11_PARSE(app, argc, argv);

  if (!fs::is_directory(data_dir)) {
    std::printf("skipped: ONNX test data not found at '%s' (install libonnx-testdata)\n",
                data_dir.c_str());
    return 77;
  }
  options.path = path == "int8" ? loom::conformance::Path::kInt8 : loom::conformance::Path::kFloat;
  if (pipeline == "default") {
    options.passes = loom::passes::DefaultPipeline();
  } else if (pipeline != "none") {
    options.passes = {pipeline};
  }
  std::vector<loom::passes::PassInvocation> parsed;
  if (auto s = loom::passes::ParsePipeline(options.passes, &parsed); !s.ok()) {
    std::fprintf(stderr, "loom-conformance: %s\n", s.ToString().c_str());
    return 2;
  }

  std::vector<CaseResult> results;
  const auto start = std::chrono::steady_clock::now();
  for (const std::string& suite : suites) {
    const fs::path root = fs::path(data_dir) / suite;
    if (!fs::is_directory(root)) {
      std::fprintf(stderr, "loom-conformance: no suite folder %s\n", root.c_str());
      return 2;
    }
    std::vector<fs::path> cases;
    for (const auto& e : fs::directory_iterator(root)) {
      if (fs::exists(e.path() / "model.onnx")) cases.push_back(e.path());
    }
    std::sort(cases.begin(), cases.end());
    for (const fs::path& c : cases) {
      const std::string name = suite + "/" + c.filename().string();
      if (name.find(filter) == std::string::npos) continue;
      results.push_back(loom::conformance::RunCase(c.string(), name, options));
      const CaseResult& r = results.back();
      if (verbose || r.outcome == Outcome::kFailed) {
        std::printf("%-11s %s%s%s\n", OutcomeName(r.outcome), r.name.c_str(),
                    r.detail.empty() ? "" : ": ", r.detail.c_str());
        std::fflush(stdout);
      }
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::map<Outcome, int> counts;
  for (const CaseResult& r : results) ++counts[r.outcome];
  std::printf("\n%zu cases in %.1f s: %d passed, %d failed, %d unsupported\n", results.size(),
              seconds, counts[Outcome::kPassed], counts[Outcome::kFailed],
              counts[Outcome::kUnsupported]);
  if (options.path == loom::conformance::Path::kInt8) {
    // The SQNR picture of the int8 path: how many passing cases used the accelerator, and the
    // worst of them.
    int accel = 0;
    double worst = INFINITY;
    std::string worst_name;
    for (const CaseResult& r : results) {
      if (r.outcome != Outcome::kPassed || !r.accelerated) continue;
      ++accel;
      if (r.sqnr_db < worst) {
        worst = r.sqnr_db;
        worst_name = r.name;
      }
    }
    std::printf("int8 path: %d passing cases ran operators on the accelerator (%s)", accel,
                options.config.c_str());
    if (!worst_name.empty()) std::printf("; lowest SQNR %.1f dB (%s)", worst, worst_name.c_str());
    std::printf("\n");
  }

  if (!json_path.empty()) {
    nlohmann::json j;
    j["passed"] = counts[Outcome::kPassed];
    j["failed"] = counts[Outcome::kFailed];
    j["unsupported"] = counts[Outcome::kUnsupported];
    j["seconds"] = seconds;
    j["path"] = path;
    if (options.path == loom::conformance::Path::kInt8) {
      j["config"] = options.config;
      j["min_sqnr_db"] = options.min_sqnr_db;
    } else {
      j["pipeline"] = options.passes;
    }
    for (const CaseResult& r : results) {
      nlohmann::json c{{"name", r.name},
                       {"outcome", OutcomeName(r.outcome)},
                       {"detail", r.detail},
                       {"data_sets", r.data_sets}};
      if (options.path == loom::conformance::Path::kInt8) {
        // JSON has no infinity: an exact result is null.
        c["sqnr_db"] = std::isinf(r.sqnr_db) ? nlohmann::json() : nlohmann::json(r.sqnr_db);
        c["accelerated"] = r.accelerated;
      } else {
        c["max_abs_error"] = r.max_abs_error;
      }
      j["cases"].push_back(std::move(c));
    }
    std::ofstream(json_path) << j.dump(2) << "\n";
  }
  if (!write_expected.empty() &&
      !loom::conformance::WriteExpectations(write_expected, path, results)) {
    std::fprintf(stderr, "loom-conformance: cannot write %s or %s\n", write_expected.c_str(),
                 loom::conformance::UnsupportedListPath(write_expected).c_str());
    return 2;
  }

  int status = 0;
  if (!expected_path.empty()) {
    bool ok = false;
    const std::set<std::string> expected = loom::conformance::ReadCaseList(expected_path, &ok);
    if (!ok) {
      std::fprintf(stderr, "loom-conformance: cannot read %s\n", expected_path.c_str());
      return 2;
    }
    std::map<std::string, const CaseResult*> by_name;
    for (const CaseResult& r : results) by_name[r.name] = &r;
    int regressions = 0, fresh = 0;
    for (const std::string& name : expected) {
      auto it = by_name.find(name);
      if (it == by_name.end()) {
        if (filter.empty()) {
          std::printf("REGRESSION  %s: listed as passing but not found\n", name.c_str());
          ++regressions;
        }
      } else if (it->second->outcome != Outcome::kPassed) {
        std::printf("REGRESSION  %s: %s: %s\n", name.c_str(), OutcomeName(it->second->outcome),
                    it->second->detail.c_str());
        ++regressions;
      }
    }
    for (const CaseResult& r : results) {
      if (r.outcome == Outcome::kPassed && !expected.count(r.name)) {
        std::printf("new pass    %s (add it to %s)\n", r.name.c_str(), expected_path.c_str());
        ++fresh;
      }
    }
    std::printf("%d listed cases regressed, %d new passes\n", regressions, fresh);
    if (regressions > 0) status = 1;
    // Every refused case is listed with its reason (when the list exists), so a refusal that
    // appears, disappears or turns into a failure is noticed.
    const std::string unsupported_path = loom::conformance::UnsupportedListPath(expected_path);
    if (fs::exists(unsupported_path)) {
      const std::set<std::string> unsupported =
          loom::conformance::ReadCaseList(unsupported_path, &ok);
      const int changed = loom::conformance::CheckUnsupported(unsupported, results, !filter.empty(),
                                                              unsupported_path);
      std::printf("%d unsupported cases differ from %s\n", changed, unsupported_path.c_str());
      if (changed > 0) status = 1;
    }
    // A case either passes or is refused with a reason (unsupported): a wrong result, or a
    // package that does not load, is a bug even where no list mentions the case.
    if (counts[Outcome::kFailed] > 0) {
      std::printf("%d cases failed (run with -v to see them); none may\n",
                  counts[Outcome::kFailed]);
      status = 1;
    }
  }
  return status;
}
