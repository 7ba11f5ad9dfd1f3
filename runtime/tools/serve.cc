// `loom-run serve`: the remote device's server as a command (runtime/remote/server.h,
// docs/remote.md). SIGINT and SIGTERM stop it cleanly: the queued clients are told, the client
// being served finishes its current request, and the command returns 0.
#include <csignal>
#include <cstdio>
#include <fstream>
#include <memory>

#include "runtime/drivers/driver.h"
#include "runtime/remote/server.h"
#include "runtime/tools/commands.h"

namespace loom::runtime {
namespace {

struct ServeArgs {
  std::string listen = "0.0.0.0:9091";
  std::string device = DefaultDeviceName();
  std::string port_file;
  int read_timeout_ms = 30000;
  int idle_timeout_ms = 600000;
  size_t max_queue = 8;
  uint64_t cache_bytes = 512ull << 20;
  bool quiet = false;
};

remote::Server* g_server = nullptr;

extern "C" void OnStopSignal(int) {
  if (g_server != nullptr) g_server->Stop();
}

[[noreturn]] void Fail(const Status& s) {
  std::fprintf(stderr, "error: %s\n", s.ToString().c_str());
  throw CLI::RuntimeError(static_cast<int>(s.code()));
}

void Serve(const ServeArgs& a) {
  remote::ServeOptions o;
  if (Status s = remote::ParseHostPort(a.listen, &o.host, &o.port); !s.ok()) {
    Fail(s.WithContext("--listen"));
  }
  o.device = a.device;
  o.read_timeout_ms = a.read_timeout_ms;
  o.idle_timeout_ms = a.idle_timeout_ms;
  o.max_queue = a.max_queue;
  o.cache_bytes = a.cache_bytes;
  o.log = !a.quiet;
  std::unique_ptr<remote::Server> server;
  if (Status s = remote::Server::Create(o, &server); !s.ok()) Fail(s);
  if (!a.port_file.empty()) {
    // Written once the socket listens, so a script that waits for the file can connect at once.
    std::ofstream f(a.port_file + ".tmp");
    f << server->port() << "\n";
    f.close();
    if (!f || std::rename((a.port_file + ".tmp").c_str(), a.port_file.c_str()) != 0) {
      Fail(NotFound("cannot write --port-file " + a.port_file));
    }
  }
  g_server = server.get();
  struct sigaction sa {};
  sa.sa_handler = OnStopSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  const Status s = server->Serve();
  g_server = nullptr;
  if (!s.ok()) Fail(s);
}

}  // namespace

CLI::App* AddServeCommand(CLI::App& parent) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* cmd = parent.add_subcommand(
      "serve", "Serve this machine's device to remote://HOST:PORT[/DEVICE] sessions");
  cmd->add_option("--listen", args->listen, "HOST:PORT to listen on; port 0 picks a free one")
      ->capture_default_str();
  cmd->add_option(
         "--device", args->device,
         "Default device for clients that name none: NAME[:ARGS]; devices: " + DriverNames())
      ->capture_default_str();
  cmd->add_option("--port-file", args->port_file, "Write the bound port to this file");
  cmd->add_option("--read-timeout-ms", args->read_timeout_ms,
                  "A started message, a HELLO and every reply must complete within this")
      ->capture_default_str();
  cmd->add_option("--idle-timeout-ms", args->idle_timeout_ms,
                  "Drop a client silent this long between requests")
      ->capture_default_str();
  cmd->add_option("--max-queue", args->max_queue,
                  "Clients that may wait behind the one being served; more are told busy")
      ->capture_default_str();
  cmd->add_option("--cache-size", args->cache_bytes, "Bytes of packages kept by hash")
      ->transform(CLI::AsSizeValue(false))
      ->capture_default_str();
  cmd->add_flag("-q,--quiet", args->quiet, "No log lines on stderr");
  cmd->callback([args] { Serve(*args); });
  return cmd;
}

}  // namespace loom::runtime
