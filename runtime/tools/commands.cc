#include "runtime/tools/commands.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>

#include <nlohmann/json.hpp>

#include "runtime/api/session.h"
#include "runtime/drivers/driver.h"
#include "runtime/io/npy.h"
#include "runtime/tools/profile.h"

namespace loom::runtime {
namespace {

using nlohmann::json;

[[noreturn]] void Die(const Status& s) {
  std::fprintf(stderr, "error: %s\n", s.ToString().c_str());
  throw CLI::RuntimeError(static_cast<int>(s.code()));
}
void Check(const Status& s) {
  if (!s.ok()) Die(s);
}

// "NAME=FILE" or "FILE".
std::pair<std::string, std::string> SplitNamed(const std::string& arg) {
  const size_t eq = arg.find('=');
  if (eq == std::string::npos) return {"", arg};
  return {arg.substr(0, eq), arg.substr(eq + 1)};
}

Status WriteText(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  if (!f) return NotFound("cannot create " + path);
  f << text;
  return f.good() ? Status::Ok() : DataLoss("cannot write " + path);
}

// An .npy array as the input it names. Arrays go in as their own type (the executor names any
// mismatch with the model), except that float64, NumPy's default, becomes float32 for a float32
// or int8 model input (`model` is that input's type, kUndefined when no input matches).
void ToHostTensor(const std::string& name, const NpyArray& a, DType model, HostTensor* t) {
  t->name = name;
  t->shape = a.shape;
  t->type = a.dtype;
  if (a.dtype != DType::kF64 || (model != DType::kF32 && model != DType::kI8)) {
    t->data = a.bytes;
    return;
  }
  t->type = DType::kF32;
  const size_t n = a.bytes.size() / 8;
  t->data.resize(n * 4);
  for (size_t i = 0; i < n; ++i) {
    double d;
    std::memcpy(&d, a.bytes.data() + i * 8, 8);
    const float f = static_cast<float>(d);
    std::memcpy(t->data.data() + i * 4, &f, 4);
  }
}

// The type of the model input `name`, or of input `position` when the name is empty.
DType ModelInputType(const Package& package, const std::string& name, size_t position) {
  const pkg::Package& r = package.root();
  for (flatbuffers::uoffset_t i = 0; i < r.inputs()->size(); ++i) {
    const pkg::Binding* b = r.inputs()->Get(i);
    if (name.empty() ? i == position : b->name()->string_view() == name) {
      return FromPkgDType(
          r.tensors()->Get(static_cast<flatbuffers::uoffset_t>(b->tensor()))->dtype());
    }
  }
  return DType::kUndefined;
}

json SegmentJson(const SegmentProfile& s, const HwConfig& c) {
  return json{{"name", s.name},
              {"kind", s.accel ? "accel" : "cpu"},
              {"ran_on", s.on_device ? "device" : "host"},
              {"runs", s.runs},
              {"wall_ms", static_cast<double>(s.wall_ns) / 1e6},
              {"cycles", s.cycles},
              {"macs", s.macs},
              {"gemm_utilization", s.gemm_utilization(c)},
              {"bytes_loaded", s.bytes_loaded},
              {"bytes_stored", s.bytes_stored},
              {"insns", s.insns},
              {"busy", {{"load", s.busy[0]}, {"compute", s.busy[1]}, {"store", s.busy[2]}}}};
}

// What `run` and `profile` share: a package opened on a device session, inputs from .npy files,
// and a trace written at the end.
struct SessionArgs {
  std::string package;
  std::string device = DefaultDeviceName();
  std::string config;
  std::vector<std::string> inputs;
  std::string trace;
  uint32_t timeout_ms = 600000;
  uint32_t wall_timeout_ms = kDefaultWallTimeoutMs;
  uint64_t max_device_memory = kDefaultMaxDeviceMemory;
  bool no_native = false;
};

// Sizes as bytes or with a binary unit: 512M, 2G, 4GiB.
void AddMaxDeviceMemory(CLI::App* cmd, uint64_t* bytes) {
  cmd->add_option("--max-device-memory", *bytes,
                  "Refuse a package needing more device memory (arena, constants, programs)")
      ->transform(CLI::AsSizeValue(false))
      ->capture_default_str();
}

// The flags for SessionArgs: PACKAGE, --device, --config, --input, --trace, --timeout-ms,
// --wall-timeout-ms, --max-device-memory. The
// help texts differ per command; the --input option is returned so a command can require it.
CLI::Option* AddSessionOptions(CLI::App* cmd, SessionArgs* a, const std::string& device_help,
                               const std::string& config_help, const std::string& input_help) {
  cmd->add_option("package", a->package, "Package file (.loom)")->required();
  cmd->add_option("--device", a->device, device_help)->capture_default_str();
  cmd->add_option("--config", a->config, config_help);
  CLI::Option* input = cmd->add_option("--input", a->inputs, input_help);
  cmd->add_option("--trace", a->trace, "Write the instruction timeline (Chrome/Perfetto JSON)");
  cmd->add_option("--timeout-ms", a->timeout_ms,
                  "Per-segment limit in device time (cycles at the config's clock)")
      ->capture_default_str();
  cmd->add_option("--wall-timeout-ms", a->wall_timeout_ms,
                  "fsim, tsim: per-segment limit in host time; 0: none")
      ->capture_default_str();
  AddMaxDeviceMemory(cmd, &a->max_device_memory);
  cmd->add_flag("--no-native", a->no_native,
                "Run every CPU op on the portable kernels, not the package's native code");
  return input;
}

// Opens a.package with `so` completed from the flags.
std::unique_ptr<Executor> OpenFromArgs(const SessionArgs& a, SessionOptions so) {
  so.device = a.device;
  so.config = a.config;
  so.trace = !a.trace.empty();
  so.timeout_ms = a.timeout_ms;
  so.wall_timeout_ms = a.wall_timeout_ms;
  so.max_device_memory = a.max_device_memory;
  so.native_code = !a.no_native;
  std::unique_ptr<Executor> exec;
  Check(OpenSessionFile(a.package, so, &exec));
  return exec;
}

std::vector<HostTensor> ReadInputs(const SessionArgs& a, const Package& package) {
  std::vector<HostTensor> inputs;
  for (const std::string& arg : a.inputs) {
    const auto [name, path] = SplitNamed(arg);
    NpyArray array;
    Check(ReadNpy(path, &array));
    HostTensor t;
    ToHostTensor(name, array, ModelInputType(package, name, inputs.size()), &t);
    inputs.push_back(std::move(t));
  }
  return inputs;
}

void WriteTrace(const SessionArgs& a, Executor& exec) {
  if (a.trace.empty()) return;
  std::string text;
  Check(exec.TraceJson(&text));
  Check(WriteText(a.trace, text));
}

struct RunArgs : SessionArgs {
  std::vector<std::string> outputs;
  std::string stats;
  std::string waves;
  bool int8_output = false;
  bool quiet = false;
};

void Run(const RunArgs& a) {
  SessionOptions so;
  so.waves = a.waves;
  std::unique_ptr<Executor> exec = OpenFromArgs(a, so);
  const pkg::Package& r = exec->package().root();

  std::vector<HostTensor> inputs = ReadInputs(a, exec->package());
  RunOptions ro;
  ro.int8_outputs = a.int8_output;
  const auto start = std::chrono::steady_clock::now();
  auto last = start;
  ro.progress = [&](uint64_t done, uint64_t total) {
    if (a.quiet || total < 2) return;
    const auto now = std::chrono::steady_clock::now();
    if (done == total || now - last > std::chrono::milliseconds(500)) {
      last = now;
      const double s = std::chrono::duration<double>(now - start).count();
      std::fprintf(stderr, "\rrun %llu/%llu  %.1f s", static_cast<unsigned long long>(done),
                   static_cast<unsigned long long>(total), s);
      if (done == total) std::fprintf(stderr, "\n");
    }
  };
  std::vector<HostTensor> outputs;
  Check(exec->Run(inputs, ro, &outputs));

  // Outputs: NAME=FILE, or plain FILEs in the model's output order.
  size_t positional = 0;
  for (const std::string& arg : a.outputs) {
    const auto [name, path] = SplitNamed(arg);
    const HostTensor* o = nullptr;
    if (name.empty()) {
      if (positional < outputs.size()) o = &outputs[positional++];
    } else {
      for (const HostTensor& t : outputs) {
        if (t.name == name) o = &t;
      }
    }
    if (o == nullptr) Die(NotFound("no model output for --output " + arg));
    NpyArray array;
    array.dtype = o->type;
    array.shape = o->shape;
    array.bytes = o->data;
    Check(WriteNpy(path, array));
  }
  const HwConfig& c = exec->package().config();
  if (!a.stats.empty()) {
    const Profile& p = exec->profile();
    json j{{"package", a.package}, {"device", a.device}, {"config", c.name},
           {"clock_mhz", c.clock_mhz}, {"inferences", p.inferences}, {"segments", json::array()}};
    for (const SegmentProfile& s : p.segments) j["segments"].push_back(SegmentJson(s, c));
    const SegmentProfile t = p.Total();
    j["total"] = SegmentJson(t, c);
    j["cycles"] = t.cycles;
    j["macs"] = t.macs;
    j["gemm_utilization"] = t.gemm_utilization(c);
    j["bytes_loaded"] = t.bytes_loaded;
    j["bytes_stored"] = t.bytes_stored;
    j["accel_latency_ms_per_inference"] =
        p.inferences ? static_cast<double>(t.cycles) / p.inferences / (c.clock_mhz * 1000.0) : 0.0;
    Check(WriteText(a.stats, j.dump(2) + "\n"));
  }
  WriteTrace(a, *exec);
  if (!a.quiet) {
    const SegmentProfile t = exec->profile().Total();
    std::fprintf(stderr, "%s on %s: %llu inference(s), %zu segment(s), %llu cycles, %llu MACs, gemm utilization %.1f%%\n",
                 a.package.c_str(), a.device.c_str(), static_cast<unsigned long long>(exec->profile().inferences),
                 static_cast<size_t>(r.segments()->size()), static_cast<unsigned long long>(t.cycles),
                 static_cast<unsigned long long>(t.macs), 100 * t.gemm_utilization(c));
  }
}

struct ProfileArgs : SessionArgs {
  std::string json;
};

void RunProfile(const ProfileArgs& a) {
  SessionOptions so;
  so.timeline = true;
  std::unique_ptr<Executor> exec = OpenFromArgs(a, so);
  std::vector<HostTensor> inputs = ReadInputs(a, exec->package());
  if (inputs.empty()) Check(ZeroInputs(exec->package(), &inputs));
  ProfileReport report;
  Check(ProfileInference(*exec, inputs, &report));
  std::fputs(FormatProfile(report).c_str(), stdout);
  if (!a.json.empty()) Check(WriteText(a.json, ProfileToJson(report)));
  WriteTrace(a, *exec);
}

}  // namespace

CLI::App* AddProfileCommand(CLI::App& parent) {
  auto args = std::make_shared<ProfileArgs>();
  CLI::App* cmd = parent.add_subcommand(
      "profile", "Run one inference and print cycles, MACs, utilization, bytes and stalls per layer");
  AddSessionOptions(cmd, args.get(),
                    "Device with an accelerator, NAME[:ARGS]: fsim, tsim (the RTL), zynq[:ARGS], "
                    "remote://HOST:PORT[/DEVICE] (docs/runtime.md)",
                    "Open the device with this HwConfig (name or path)",
                    "[NAME=]FILE.npy; repeatable (default: zeros)");
  cmd->add_option("--json", args->json, "Write the per-layer and per-segment profile as JSON");
  cmd->callback([args] { RunProfile(*args); });
  return cmd;
}

CLI::App* AddRunCommand(CLI::App& parent) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = parent.add_subcommand("run", "Run a package on a device");
  AddSessionOptions(
      cmd, args.get(), "Device: NAME[:ARGS] (docs/runtime.md); devices: " + SessionDeviceNames(),
      "Open the device with this HwConfig (name or path) instead of the package's",
      "[NAME=]FILE.npy in the input's own type (float32 also for an int8 input); repeatable")
      ->required();
  cmd->add_option("--output", args->outputs, "[NAME=]OUT.npy; repeatable (plain files in output order)");
  cmd->add_option("--stats", args->stats, "Write per-segment and total statistics as JSON");
  cmd->add_flag("--int8-output", args->int8_output,
                "Write int8 outputs as computed (no dequantization)");
  cmd->add_option("--waves", args->waves, "tsim: write an FST waveform");
  cmd->add_flag("-q,--quiet", args->quiet, "No progress or summary on stderr");
  cmd->callback([args] { Run(*args); });
  return cmd;
}

CLI::App* AddInspectCommand(CLI::App& parent) {
  auto path = std::make_shared<std::string>();
  auto options = std::make_shared<InspectOptions>();
  CLI::App* cmd = parent.add_subcommand("inspect", "Summarize a package");
  cmd->add_option("package", *path, "Package file (.loom)")->required();
  cmd->add_flag("--disasm", options->disasm, "Print every accelerator program");
  cmd->add_flag("--json", options->json, "Print JSON");
  auto load = std::make_shared<LoadOptions>();
  AddMaxDeviceMemory(cmd, &load->max_device_memory);
  cmd->callback([path, options, load] {
    std::unique_ptr<Package> package;
    Check(Package::LoadFile(*path, &package, *load));
    std::fputs(InspectPackage(*package, *options).c_str(), stdout);
  });
  return cmd;
}

CLI::App* AddDevicesCommand(CLI::App& parent) {
  CLI::App* cmd = parent.add_subcommand(
      "devices", "List the devices this runtime has, and what each can reach (OpenCL platforms)");
  cmd->callback([] {
    std::fputs(DescribeDevices().c_str(), stdout);
#ifdef LOOM_HAVE_REMOTE
    std::fputs(
        "remote://HOST:PORT[/DEVICE]  a device served by `loom-run serve` (docs/remote.md)\n",
        stdout);
#endif
  });
  return cmd;
}

}  // namespace loom::runtime
