// loom-run: the deployable runtime's command line (docs/runtime.md).
//   loom-run OUT.loom --device fsim --input x.npy --output y.npy [--stats s.json] [--trace t.json]
//   loom-run profile OUT.loom [--device fsim|tsim] [--json p.json] [--trace t.json]
//   loom-run inspect OUT.loom [--disasm] [--json]
//   loom-run devices
// Built twice: loom-run (LOOM_RUN_HOST: the simulators and configs by name) and loom-run-board
// (the runtime a board carries: cpu and the hardware drivers only).
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/tools/commands.h"
#ifdef LOOM_RUN_HOST
#include "runtime/api/host_runtime.h"
#endif

int main(int argc, char** argv) {
#ifdef LOOM_RUN_HOST
  if (const loom::Status s = loom::runtime::RegisterHostRuntime(); !s.ok()) {
    std::fprintf(stderr, "error: %s\n", s.ToString().c_str());
    return static_cast<int>(s.code());
  }
  CLI::App app{"loom-run: run a Loom package on cpu, fsim or tsim"};
#else
  CLI::App app{"loom-run (board build): run a Loom package on this board's devices"};
#endif
  app.require_subcommand(1);
  loom::runtime::AddRunCommand(app);
  loom::runtime::AddProfileCommand(app);
  loom::runtime::AddInspectCommand(app);
  loom::runtime::AddDevicesCommand(app);
  // `loom-run PACKAGE ...` means `loom-run run PACKAGE ...`.
  std::vector<char*> args(argv, argv + argc);
  static char run[] = "run";
  if (argc > 1 && std::strcmp(argv[1], "run") != 0 && std::strcmp(argv[1], "inspect") != 0 &&
      std::strcmp(argv[1], "profile") != 0 && std::strcmp(argv[1], "devices") != 0 &&
      argv[1][0] != '-') {
    args.insert(args.begin() + 1, run);
  }
  CLI11_PARSE(app, static_cast<int>(args.size()), args.data());
  return 0;
}
