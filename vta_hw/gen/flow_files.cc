#include "vta_hw/gen/flow_files.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/io/file.h"

namespace loom::hwgen {
namespace {

namespace fs = std::filesystem;

// The RTL files are tens of kilobytes; the cap only stops a wrong path from being read whole.
constexpr uint64_t kMaxRtlFileBytes = uint64_t{4} << 20;

}  // namespace

Status ReadRtlSources(const std::string& rtl_dir, std::vector<RtlSource>* out) {
  const std::string list_path = rtl_dir + "/sources.cmake";
  std::string list;
  LOOM_RETURN_IF_ERROR(ReadFileText(list_path, "RTL source list", kMaxRtlFileBytes, &list));
  // Entries look like "  ${LOOM_RTL_DIR}/loom_top.sv".
  const std::string prefix = "${LOOM_RTL_DIR}/";
  std::vector<RtlSource> sources;
  std::istringstream lines(list);
  for (std::string line; std::getline(lines, line);) {
    const size_t begin = line.find_first_not_of(" \t");
    if (begin == std::string::npos || line.compare(begin, prefix.size(), prefix) != 0) continue;
    const size_t end = line.find_last_not_of(" \t\r");
    std::string name = line.substr(begin + prefix.size(), end + 1 - begin - prefix.size());
    if (name.size() < 4 || name.compare(name.size() - 3, 3, ".sv") != 0 ||
        name.find('/') != std::string::npos) {
      continue;
    }
    RtlSource source{name, ""};
    LOOM_RETURN_IF_ERROR(
        ReadFileText(rtl_dir + "/" + name, "RTL source", kMaxRtlFileBytes, &source.text));
    sources.push_back(std::move(source));
  }
  if (sources.empty()) {
    return InvalidArgument(list_path + ": no RTL sources listed (expected lines like " + prefix +
                           "loom_top.sv)");
  }
  *out = std::move(sources);
  return Status::Ok();
}

Status WriteGeneratedFiles(const std::string& dir, const std::vector<GeneratedFile>& files) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    return InvalidArgument(dir + ": exists and is not a directory");
  }
  for (const auto& file : files) {
    const fs::path relative(file.path);
    bool escapes = relative.empty() || relative.is_absolute();
    for (const auto& part : relative) escapes = escapes || part == "..";
    if (escapes) return Internal("generated file path '" + file.path + "' leaves " + dir);
    const fs::path path = fs::path(dir) / relative;
    fs::create_directories(path.parent_path(), ec);
    if (ec) {
      return InvalidArgument(path.parent_path().string() +
                             ": cannot create directory: " + ec.message());
    }
    std::ofstream stream(path, std::ios::binary | std::ios::trunc);
    stream << file.text;
    stream.close();
    if (!stream) return InvalidArgument(path.string() + ": cannot write");
    if (file.executable) {
      fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                      fs::perm_options::add, ec);
      if (ec) return InvalidArgument(path.string() + ": cannot make executable: " + ec.message());
    }
  }
  return Status::Ok();
}

std::string CommentText(const std::string& text) {
  std::string out = text;
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return out;
}

std::string HexString(uint64_t value, int digits) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%0*llX", digits, static_cast<unsigned long long>(value));
  return buf;
}

std::string HzString(double mhz) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.0f", std::round(mhz * 1e6));
  return buf;
}

}  // namespace loom::hwgen
