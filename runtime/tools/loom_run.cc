// loom-run: the deployable runtime's command line (docs/runtime.md).
//   loom-run OUT.loom --device fsim --input x.npy --output y.npy [--stats s.json] [--trace t.json]
//   loom-run profile OUT.loom [--device fsim|tsim] [--json p.json] [--trace t.json]
//   loom-run inspect OUT.loom [--disasm] [--json]
#include <cstring>
#include <string>
#include <vector>

#include "runtime/tools/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"loom-run: run a Loom package on cpu, fsim or tsim"};
  app.require_subcommand(1);
  loom::runtime::AddRunCommand(app);
  loom::runtime::AddProfileCommand(app);
  loom::runtime::AddInspectCommand(app);
  // `loom-run PACKAGE ...` means `loom-run run PACKAGE ...`.
  std::vector<char*> args(argv, argv + argc);
  static char run[] = "run";
  if (argc > 1 && std::strcmp(argv[1], "run") != 0 && std::strcmp(argv[1], "inspect") != 0 &&
      std::strcmp(argv[1], "profile") != 0 &&
      argv[1][0] != '-') {
    args.insert(args.begin() + 1, run);
  }
  CLI11_PARSE(app, static_cast<int>(args.size()), args.data());
  return 0;
}
