// The loader's checks of a package's native code (schema 1.8, NativeCode): what can be checked
// without loading the object. The object itself is parsed by runtime/native's loader, and only
// on a CPU it was built for (runtime/exec/native_ops.cc).
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/format.h"
#include "runtime/package/checks.h"

namespace loom::runtime {

namespace {
using fbu = flatbuffers::uoffset_t;

// Views of FlatBuffers strings by their stored size (also keeps GCC's string-overread analysis,
// which cannot see a table's bytes, away from strcmp and strlen on them).
std::string_view View(const flatbuffers::String* s) { return {s->c_str(), s->size()}; }

bool KnownTarget(std::string_view t) { return t == "x86_64" || t == "aarch64" || t == "armv7"; }
}  // namespace

Status CheckNativeCode(const pkg::Package& r) {
  if (r.native() == nullptr) return Status::Ok();
  for (fbu n = 0; n < r.native()->size(); ++n) {
    const pkg::NativeCode* code = r.native()->Get(n);
    const char* target = code->target()->c_str();
    if (!KnownTarget(View(code->target()))) {
      return InvalidArgument(
          "package native code {}: target '{}' is not one of x86_64, aarch64, "
          "armv7",
          n, target);
    }
    const std::string where = Format("package native code {} ({})", n, target);
    const auto* obj = code->object();
    if (obj->size() < 4 || std::memcmp(obj->data(),
                                       "\x7f"
                                       "ELF",
                                       4) != 0) {
      return InvalidArgument("{}: object of {} bytes is not an ELF file", where, obj->size());
    }
    // The executor allocates the workspace at creation: a bound keeps a corrupt field from
    // asking for all of memory (a convolution's padded input is a few MiB).
    constexpr uint64_t kMaxWorkspace = uint64_t{1} << 30;
    if (code->workspace_bytes() > kMaxWorkspace) {
      return InvalidArgument("{}: workspace of {} bytes exceeds the limit of {} (1 GiB)", where,
                             code->workspace_bytes(), kMaxWorkspace);
    }
    if (code->features() != nullptr) {
      for (fbu f = 0; f < code->features()->size(); ++f) {
        if (code->features()->Get(f)->size() == 0) {
          return InvalidArgument("{}: CPU feature {} is empty", where, f);
        }
      }
    }
    // One function per op at most: seen[segment][op].
    std::vector<std::vector<bool>> seen(r.segments()->size());
    for (fbu s = 0; s < r.segments()->size(); ++s)
      seen[s].resize(r.segments()->Get(s)->ops()->size());
    for (fbu s = 0; s < code->symbols()->size(); ++s) {
      const pkg::NativeSymbol* sym = code->symbols()->Get(s);
      const size_t len = sym->name()->size();
      if (len == 0 || len > 255 || View(sym->name()).find('\0') != std::string_view::npos) {
        return InvalidArgument("{}: symbol {} has an empty, overlong or NUL-holding name", where,
                               s);
      }
      if (sym->segment() >= seen.size()) {
        return InvalidArgument("{}: symbol {} '{}' names segment {}, but the package has {}", where,
                               s, sym->name()->c_str(), sym->segment(), seen.size());
      }
      std::vector<bool>& ops_seen = seen[sym->segment()];
      if (sym->op() >= ops_seen.size()) {
        return InvalidArgument("{}: symbol {} '{}' names op {} of segment {}, which has {} ops",
                               where, s, sym->name()->c_str(), sym->op(), sym->segment(),
                               ops_seen.size());
      }
      if (ops_seen[sym->op()]) {
        return InvalidArgument("{}: op {} of segment {} has two functions (symbol {} '{}')", where,
                               sym->op(), sym->segment(), s, sym->name()->c_str());
      }
      ops_seen[sym->op()] = true;
    }
  }
  return Status::Ok();
}

}  // namespace loom::runtime
