// The conformance expectation files: expected_pass.txt (one case per line, must keep passing)
// and, beside it, expected_unsupported.txt (`case<TAB>reason`, every case Loom refuses, with why).
// Both are written by --write-expected and checked by --expected, so a case that silently changes
// status -- a pass that starts being refused, a refusal that starts passing or failing, a case
// that appears unlisted -- fails the conformance test until the files are regenerated.
#ifndef LOOM_TESTS_CONFORMANCE_EXPECTATIONS_H_
#define LOOM_TESTS_CONFORMANCE_EXPECTATIONS_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "tests/conformance/case_runner.h"

namespace loom::conformance {

// The unsupported list that sits beside a pass list: "expected_pass.txt" ->
// "expected_unsupported.txt", "expected_int8_pass.txt" -> "expected_int8_unsupported.txt"; any
// other name gets ".unsupported" appended.
std::string UnsupportedListPath(const std::string& pass_list);

// The one-line reason an unsupported case is listed with: its group (issue 12's scope: "out of
// scope: training", "... sequences/maps/optionals", "... strings", "... random", else "not yet
// implemented") and the refusal, shortened to one line.
std::string UnsupportedReason(const CaseResult& r);

// Case names of a list file (blank lines and '#' comments skipped; a TAB ends the name).
std::set<std::string> ReadCaseList(const std::string& path, bool* ok);

// Writes the pass list and the unsupported list beside it.
bool WriteExpectations(const std::string& pass_list, const std::string& path_name,
                       const std::vector<CaseResult>& results);

// Compares the unsupported cases with the list: prints each difference, returns their number.
// With `filtered` set, listed cases that did not run are not differences.
int CheckUnsupported(const std::set<std::string>& listed, const std::vector<CaseResult>& results,
                     bool filtered, const std::string& list_path);

}  // namespace loom::conformance

#endif  // LOOM_TESTS_CONFORMANCE_EXPECTATIONS_H_
