// Shared by the files of the `loom._native` extension (python/, docs/python.md): how a Loom Status
// becomes a Python exception, and the registration functions each file provides.
#ifndef LOOM_PYTHON_SRC_NATIVE_H_
#define LOOM_PYTHON_SRC_NATIVE_H_

#include <pybind11/pybind11.h>

#include "runtime/core/status.h"

namespace loom::python {

namespace py = pybind11;

// Raises the loom.Error subclass for st.code() (loom/_errors.py keeps the table) with Loom's
// message. Call with the GIL held.
[[noreturn]] void Raise(const Status& st);

// Runs `fn` (returning Status) with the GIL released, then raises on error. What the compiler and
// the devices do needs no Python object, so other Python threads run meanwhile.
template <typename Fn>
void CallWithoutGil(Fn&& fn) {
  Status st;
  {
    py::gil_scoped_release release;
    st = fn();
  }
  if (!st.ok()) Raise(st);
}

// A Python callable (or None) that C++ calls back while the GIL is released: each call takes the
// GIL back. A Python error in it (a broken progress bar) does not stop the C++; the first one is
// kept, later calls are skipped, and Rethrow() raises it once the C++ has returned.
class Callback {
 public:
  explicit Callback(py::object fn) : fn_(std::move(fn)) {}
  bool enabled() const { return !fn_.is_none(); }
  template <typename... Args>
  void operator()(const Args&... args) {
    py::gil_scoped_acquire acquire;
    if (failed_) return;
    try {
      fn_(args...);
    } catch (py::error_already_set& e) {
      failed_ = true;
      type_ = e.type();
      value_ = e.value();
    }
  }
  // With the GIL held.
  void Rethrow() {
    if (!failed_) return;
    PyErr_SetObject(type_.ptr(), value_.ptr());
    throw py::error_already_set();
  }

 private:
  py::object fn_, type_, value_;
  bool failed_ = false;
};

void AddCompile(py::module_& m);  // compile.cc
void AddPackage(py::module_& m);  // package.cc
void AddSession(py::module_& m);  // session.cc

}  // namespace loom::python

#endif  // LOOM_PYTHON_SRC_NATIVE_H_
