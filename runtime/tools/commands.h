// The `run` and `inspect` commands, as a library so both the deployable `loom-run` and the host
// tool `loom` register the same flags:
//
//   CLI::App app{"loom"};
//   loom::runtime::AddRunCommand(app);
//   loom::runtime::AddInspectCommand(app);
//
// A command that fails prints "error: <message>" on stderr and exits through CLI::RuntimeError
// with the Status code (1..9) as exit code.
#ifndef LOOM_RUNTIME_TOOLS_COMMANDS_H_
#define LOOM_RUNTIME_TOOLS_COMMANDS_H_

#include <string>

#include <CLI/CLI.hpp>

#include "runtime/core/status.h"
#include "runtime/package/package.h"

namespace loom::runtime {

// `run PACKAGE --device D --input [NAME=]FILE.npy ... --output [NAME=]OUT.npy ... [--stats F]
// [--trace F] [--int8-output] [--config C] [--timeout-ms N] [--wall-timeout-ms N] [--waves F]
// [--max-device-memory SIZE]`.
CLI::App* AddRunCommand(CLI::App& parent);
// `profile PACKAGE [--device fsim|tsim] [--input [NAME=]FILE.npy ...] [--trace F] [--json F]
// [--max-device-memory SIZE]`:
// one inference, a per-layer table (runtime/tools/profile.h).
CLI::App* AddProfileCommand(CLI::App& parent);
// `inspect PACKAGE [--disasm] [--json]`.
CLI::App* AddInspectCommand(CLI::App& parent);
// `devices`: the devices this runtime has, one a line with what each is (DescribeDevices), and
// the remote device's form where the runtime has it.
CLI::App* AddDevicesCommand(CLI::App& parent);
#ifdef LOOM_HAVE_REMOTE
// `serve --listen HOST:PORT [--device D] ...`: the remote device's server (runtime/tools/serve.cc).
CLI::App* AddServeCommand(CLI::App& parent);
#endif

struct InspectOptions {
  bool disasm = false;
  bool json = false;
};
// The summary `inspect` prints: config, provenance, arena, inputs/outputs, segments with op and
// MAC counts, the offload ratio by ops and by MACs, and with disasm every program's instructions.
std::string InspectPackage(const Package& package, const InspectOptions& options);

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_TOOLS_COMMANDS_H_
