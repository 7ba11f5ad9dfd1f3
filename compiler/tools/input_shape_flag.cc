#include "compiler/tools/input_shape_flag.h"

#include <cerrno>
#include <cstdlib>

namespace loom::tools {

Status ParseInputShape(const std::string& spec, int64_t min_dim,
                       std::map<std::string, std::vector<int64_t>>* shapes) {
  const size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size()) {
    return InvalidArgument("--input-shape wants NAME=D0xD1x... (or NAME=D0,D1,...), got '" + spec +
                           "'");
  }
  std::vector<int64_t> dims;
  size_t begin = eq + 1;
  while (true) {
    const size_t end = spec.find_first_of("x,", begin);
    const std::string d = spec.substr(begin, end == std::string::npos ? end : end - begin);
    char* stop = nullptr;
    errno = 0;
    const long long v = std::strtoll(d.c_str(), &stop, 10);
    if (d.empty() || *stop != '\0' || errno == ERANGE || v < min_dim) {
      return InvalidArgument("--input-shape " + spec + ": bad dimension '" + d +
                             "' (want an integer >= " + std::to_string(min_dim) + ")");
    }
    dims.push_back(v);
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  (*shapes)[spec.substr(0, eq)] = dims;
  return Status::Ok();
}

}  // namespace loom::tools
