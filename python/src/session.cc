// loom._native.Session: a package opened on a device (runtime/api/session.h), its runs, counters,
// per-layer profile (runtime/tools/profile.h) and instruction trace. Runs release the GIL.
#include "runtime/api/session.h"

#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "python/src/native.h"
#include "runtime/tools/profile.h"

namespace loom::python {
namespace {

// (name, dtype, shape, data): how tensors cross the boundary. NumPy conversion is the Python
// side's (loom/_session.py), so the extension needs no NumPy headers.
using WireTensor = std::tuple<std::string, std::string, std::vector<int64_t>, py::bytes>;
using WireInput = std::tuple<std::string, std::string, std::vector<int64_t>, py::buffer>;

// NumPy's dtype names are Loom's long names ("float32", "int8").
bool DTypeFromNumpyName(const std::string& name, DType* out) {
  for (DType t : kAllDTypes) {
    if (name == DTypeLongName(t)) {
      *out = t;
      return true;
    }
  }
  return false;
}

// Copies the inputs out of their buffers (with the GIL held). Shapes and sizes are the
// executor's to check; here only what it cannot see: the dtype's name and the memory layout.
std::vector<runtime::HostTensor> ToHost(const std::vector<WireInput>& in) {
  std::vector<runtime::HostTensor> inputs(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const auto& [name, dtype, shape, buffer] = in[i];
    runtime::HostTensor& t = inputs[i];
    t.name = name;
    t.shape = shape;
    if (!DTypeFromNumpyName(dtype, &t.type)) {
      Raise(InvalidArgument("input '" + name + "': dtype " + dtype + " is not one Loom runs"));
    }
    py::buffer_info info = buffer.request();
    if (!PyBuffer_IsContiguous(info.view(), 'C')) {
      Raise(InvalidArgument("input '" + name + "': the array is not C-contiguous"));
    }
    const size_t bytes = static_cast<size_t>(info.size) * static_cast<size_t>(info.itemsize);
    const auto* p = static_cast<const uint8_t*>(info.ptr);
    t.data.assign(p, p + bytes);
  }
  return inputs;
}

class SessionHandle {
 public:
  SessionHandle(const py::bytes& data, const std::string& device, const std::string& config,
                bool trace, bool timeline, uint32_t timeout_ms, uint32_t wall_timeout_ms)
      : device_(device) {
    char* ptr = nullptr;
    Py_ssize_t size = 0;
    if (PyBytes_AsStringAndSize(data.ptr(), &ptr, &size) != 0) throw py::error_already_set();
    runtime::SessionOptions so;
    so.device = device;
    so.config = config;
    so.trace = trace;
    so.timeline = timeline;
    so.timeout_ms = timeout_ms;
    so.wall_timeout_ms = wall_timeout_ms;
    CallWithoutGil([&]() -> Status {
      std::unique_ptr<runtime::Package> pkg;
      LOOM_RETURN_IF_ERROR(runtime::Package::LoadMemory(ptr, static_cast<size_t>(size), &pkg));
      return runtime::OpenSession(std::move(pkg), so, &exec_);
    });
  }

  // `progress` (callable or None) gets (done, k) after each run of a stacked batch of k.
  std::vector<WireTensor> Run(const std::vector<WireInput>& in, bool int8_outputs,
                              py::object progress) {
    std::vector<runtime::HostTensor> inputs = ToHost(in);
    std::vector<runtime::HostTensor> outputs;
    runtime::RunOptions ro;
    ro.int8_outputs = int8_outputs;
    Callback callback(std::move(progress));
    if (callback.enabled()) {
      ro.progress = [&callback](uint64_t done, uint64_t total) { callback(done, total); };
    }
    CallWithoutGil([&] { return exec_->Run(inputs, ro, &outputs); });
    callback.Rethrow();
    std::vector<WireTensor> out;
    out.reserve(outputs.size());
    for (const runtime::HostTensor& t : outputs) {
      py::bytes data(reinterpret_cast<const char*>(t.data.data()), t.data.size());
      out.emplace_back(t.name, DTypeLongName(t.type), t.shape, std::move(data));
    }
    return out;
  }

  py::dict Counters() const {
    const runtime::Profile& p = exec_->profile();
    const HwConfig& c = exec_->package().config();
    py::list segments;
    for (const runtime::SegmentProfile& s : p.segments) segments.append(Segment(s, c));
    py::dict d;
    d["device"] = device_;
    d["inferences"] = p.inferences;
    d["total"] = Segment(p.Total(), c);
    d["segments"] = segments;
    return d;
  }

  void ResetCounters() { exec_->ResetProfile(); }

  // One inference on `inputs` (zeros of every input's shape when empty), attributed to layers.
  // Resets the counters, as `loom profile` does.
  std::string Profile(const std::vector<WireInput>& in) {
    std::vector<runtime::HostTensor> inputs = ToHost(in);
    runtime::ProfileReport report;
    CallWithoutGil([&]() -> Status {
      if (inputs.empty()) LOOM_RETURN_IF_ERROR(runtime::ZeroInputs(exec_->package(), &inputs));
      return runtime::ProfileInference(*exec_, inputs, &report);
    });
    report.device = device_;
    return runtime::ProfileToJson(report);
  }

  std::string Trace() {
    std::string json;
    CallWithoutGil([&] { return exec_->TraceJson(&json); });
    return json;
  }

 private:
  static py::dict Segment(const runtime::SegmentProfile& s, const HwConfig& c) {
    py::dict d;
    d["name"] = s.name;
    d["kind"] = s.accel ? "accel" : "cpu";
    d["ran_on"] = s.on_device ? "device" : "host";
    d["runs"] = s.runs;
    d["wall_ms"] = static_cast<double>(s.wall_ns) / 1e6;
    d["cycles"] = s.cycles;
    d["macs"] = s.macs;
    d["gemm_utilization"] = s.gemm_utilization(c);
    d["bytes_loaded"] = s.bytes_loaded;
    d["bytes_stored"] = s.bytes_stored;
    d["insns"] = s.insns;
    py::dict busy;
    busy["load"] = s.busy[0];
    busy["compute"] = s.busy[1];
    busy["store"] = s.busy[2];
    d["busy"] = busy;
    return d;
  }

  std::string device_;
  std::unique_ptr<runtime::Executor> exec_;
};

}  // namespace

void AddSession(py::module_& m) {
  py::class_<SessionHandle>(m, "Session")
      .def(py::init<const py::bytes&, const std::string&, const std::string&, bool, bool, uint32_t,
                    uint32_t>(),
           py::arg("data"), py::arg("device"), py::arg("config"), py::arg("trace"),
           py::arg("timeline"), py::arg("timeout_ms"), py::arg("wall_timeout_ms"))
      .def("run", &SessionHandle::Run, py::arg("inputs"), py::arg("int8_outputs"),
           py::arg("progress"))
      .def("counters", &SessionHandle::Counters)
      .def("reset_counters", &SessionHandle::ResetCounters)
      .def("profile", &SessionHandle::Profile, py::arg("inputs"))
      .def("trace", &SessionHandle::Trace);
}

}  // namespace loom::python
