// A thin header-only C++ wrapper over loom_runtime.h: RAII for the handle, std::vector and
// std::string at the boundary, no exceptions (every call returns loom_status; error() explains).
#ifndef LOOM_RUNTIME_INCLUDE_LOOM_RUNTIME_HPP_
#define LOOM_RUNTIME_INCLUDE_LOOM_RUNTIME_HPP_

#include <cstdint>
#include <string>
#include <vector>

#include "loom_runtime.h"

namespace loom {

class Runtime {
 public:
  Runtime() = default;
  ~Runtime() { Close(); }
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;
  Runtime(Runtime&& o) noexcept : rt_(o.rt_) { o.rt_ = nullptr; }

  // max_device_memory: loom_options' (0: the default, 2 GiB).
  loom_status Open(const std::string& path, const std::string& device = "fsim",
                   const std::string& config = "", bool trace = false,
                   uint64_t max_device_memory = 0) {
    Close();
    loom_options o{};  // zeroed: the fields not set here keep their defaults
    o.device = device.c_str();
    o.config = config.empty() ? nullptr : config.c_str();
    o.trace = trace ? 1 : 0;
    o.max_device_memory = max_device_memory;
    return loom_open_ex(path.c_str(), &o, &rt_);
  }
  void Close() {
    if (rt_) loom_close(rt_);
    rt_ = nullptr;
  }
  std::string error() const { return loom_last_error(rt_); }

  std::vector<loom_tensor_info> inputs() const { return Infos(true); }
  std::vector<loom_tensor_info> outputs() const { return Infos(false); }

  template <typename T>
  loom_status SetInput(const std::string& name, const std::vector<int64_t>& shape,
                       const std::vector<T>& data) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 1, "float or int8 data");
    return loom_set_input(rt_, name.c_str(), sizeof(T) == 4 ? LOOM_FLOAT32 : LOOM_INT8,
                          shape.data(), shape.size(), data.data(), data.size() * sizeof(T));
  }
  loom_status Run(bool int8_outputs = false) { return loom_run_ex(rt_, int8_outputs ? 1 : 0); }

  template <typename T>
  loom_status GetOutput(const std::string& name, std::vector<T>* data,
                        std::vector<int64_t>* shape = nullptr) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 1, "float or int8 data");
    int64_t dims[LOOM_MAX_RANK];
    size_t rank = 0;
    const loom_status s = loom_output_shape(rt_, name.c_str(), dims, &rank);
    if (s != LOOM_OK) return s;
    size_t n = 1;
    for (size_t i = 0; i < rank; ++i) n *= static_cast<size_t>(dims[i]);
    data->resize(n);
    if (shape) shape->assign(dims, dims + rank);
    return loom_get_output(rt_, name.c_str(), sizeof(T) == 4 ? LOOM_FLOAT32 : LOOM_INT8,
                           data->data(), n * sizeof(T));
  }
  loom_stats stats() const {
    loom_stats s{};
    loom_get_stats(rt_, &s);
    return s;
  }
  loom_runtime* handle() { return rt_; }

 private:
  std::vector<loom_tensor_info> Infos(bool in) const {
    std::vector<loom_tensor_info> v(in ? loom_num_inputs(rt_) : loom_num_outputs(rt_));
    for (size_t i = 0; i < v.size(); ++i) {
      if (in) loom_input_info(rt_, i, &v[i]);
      else loom_output_info(rt_, i, &v[i]);
    }
    return v;
  }
  loom_runtime* rt_ = nullptr;
};

}  // namespace loom

#endif  // LOOM_RUNTIME_INCLUDE_LOOM_RUNTIME_HPP_
