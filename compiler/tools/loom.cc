// loom: the host tool. `compile` is the compiler (loom_commands.h); `run` and `inspect` are the
// runtime's own commands (runtime/tools/commands.h), the same ones the deployable loom-run has.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "compiler/tools/loom_commands.h"
#include "runtime/api/host_runtime.h"
#include "runtime/tools/commands.h"

namespace {

// Every subcommand, in help order.
constexpr loom::tools::AddCommandFn kCommands[] = {
    loom::tools::AddCompileCommand,
    loom::tools::AddTuneCommand,
};

}  // namespace

int main(int argc, char** argv) {
  // The host tool runs packages on the simulators and reads configs by name.
  if (const loom::Status s = loom::runtime::RegisterHostRuntime(); !s.ok()) {
    std::fprintf(stderr, "error: %s\n", s.ToString().c_str());
    return static_cast<int>(s.code());
  }
  CLI::App app{"Loom: compile ONNX models for the Loom int8 accelerator, inspect and run packages."};
  app.require_subcommand(1);
  int exit_code = 0;
  for (loom::tools::AddCommandFn add : kCommands) add(app, &exit_code);
  loom::runtime::AddRunCommand(app);
  loom::runtime::AddProfileCommand(app);
  loom::runtime::AddInspectCommand(app);
  CLI11_PARSE(app, argc, argv);
  return exit_code;
}
