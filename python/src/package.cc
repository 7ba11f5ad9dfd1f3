// loom._native.Package: a package loaded and verified from its bytes (runtime/package), and the
// summary `loom inspect --json` prints.
#include "runtime/package/package.h"

#include <memory>
#include <string>
#include <vector>

#include "python/src/native.h"
#include "runtime/io/file.h"
#include "runtime/tools/commands.h"

namespace loom::python {
namespace {

class PackageHandle {
 public:
  // Loads from the bytes object's own buffer: it is immutable and `data` keeps it alive while
  // the GIL is released; LoadMemory copies what it keeps.
  explicit PackageHandle(const py::bytes& data) {
    char* ptr = nullptr;
    Py_ssize_t size = 0;
    if (PyBytes_AsStringAndSize(data.ptr(), &ptr, &size) != 0) throw py::error_already_set();
    CallWithoutGil(
        [&] { return runtime::Package::LoadMemory(ptr, static_cast<size_t>(size), &pkg_); });
  }
  std::string Inspect(bool disasm) const {
    runtime::InspectOptions o;
    o.json = true;
    o.disasm = disasm;
    return runtime::InspectPackage(*pkg_, o);
  }
  std::string Summary() const { return runtime::InspectPackage(*pkg_, {}); }

 private:
  std::unique_ptr<runtime::Package> pkg_;
};

}  // namespace

void AddPackage(py::module_& m) {
  // Through runtime/io: a pipe, a device or a file over kMaxPackageFileBytes is refused before it
  // is read, with Loom's message.
  m.def(
      "read_package_file",
      [](const std::string& path) {
        std::vector<uint8_t> data;
        CallWithoutGil([&] { return ReadFileBytes(path, "package", kMaxPackageFileBytes, &data); });
        return py::bytes(reinterpret_cast<const char*>(data.data()), data.size());
      },
      py::arg("path"));
  py::class_<PackageHandle>(m, "Package")
      .def(py::init<const py::bytes&>(), py::arg("data"),
           "Loads and verifies a package from the bytes of a .loom file.")
      .def("inspect_json", &PackageHandle::Inspect, py::arg("disasm") = false)
      .def("summary", &PackageHandle::Summary);
}

}  // namespace loom::python
