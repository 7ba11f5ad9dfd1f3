// Subcommands of the host tool `loom`. Each lives in its own file and adds itself to the app with
// an Add*Command function listed in kCommands (loom.cc); `run` and `inspect` come from the
// runtime (runtime/tools/commands.h).
#ifndef LOOM_COMPILER_TOOLS_LOOM_COMMANDS_H_
#define LOOM_COMPILER_TOOLS_LOOM_COMMANDS_H_

#include <CLI/CLI.hpp>

namespace loom::tools {

// Registers the subcommand and its callback; the callback sets *exit_code.
using AddCommandFn = void (*)(CLI::App& app, int* exit_code);

void AddCompileCommand(CLI::App& app, int* exit_code);  // compile_command.cc
void AddTuneCommand(CLI::App& app, int* exit_code);     // tune_command.cc

}  // namespace loom::tools

#endif  // LOOM_COMPILER_TOOLS_LOOM_COMMANDS_H_
