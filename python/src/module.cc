// The `loom._native` extension module: thin bindings over the C++ compiler and runtime. The
// typed, documented API is the pure-Python package around it (python/loom/); this layer passes
// plain values (str, bytes, lists, dicts) so that it needs no NumPy C API and works with any
// NumPy the interpreter has.
#include <pybind11/stl.h>

#include "python/src/native.h"
#include "runtime/api/host_runtime.h"
#include "runtime/drivers/driver.h"

namespace loom::python {

void Raise(const Status& st) {
  py::object table = py::module_::import("loom._errors").attr("_BY_CODE");
  py::object cls = table[py::int_(static_cast<int>(st.code()))];
  PyErr_SetString(cls.ptr(), st.message().c_str());
  throw py::error_already_set();
}

namespace {

std::vector<std::string> Devices() {
  std::vector<std::string> names;
  const std::string all = runtime::DriverNames();
  size_t start = 0;
  while (start < all.size()) {
    size_t end = all.find(' ', start);
    if (end == std::string::npos) end = all.size();
    if (end > start) names.push_back(all.substr(start, end - start));
    start = end + 1;
  }
  return names;
}

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "Bindings over Loom's C++ compiler and runtime (use the `loom` package instead).";
  // fsim and tsim as devices, configs and boards by name: what every host tool registers.
  if (Status st = runtime::RegisterHostRuntime(); !st.ok()) Raise(st);
  m.def("devices", &Devices, "Names of the registered devices.");
  m.def("default_device", [] { return std::string(runtime::DefaultDeviceName()); });
  AddCompile(m);
  AddPackage(m);
  AddSession(m);
}

}  // namespace loom::python
