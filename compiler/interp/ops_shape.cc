// Executors of the element-type, cast, shape and indexing family (issue 12), on the runtime's
// reference kernels where one exists.
#include <string_view>

#include "compiler/interp/op_table.h"

namespace loom::interp {
namespace {

using kernels::TensorView;

Status ExecCast(ExecContext& ctx) {
  TensorView x, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  return ctx.Wrap(kernels::Cast(x, y));
}

struct Entry {
  const char* op;
  ExecFn fn;
};

const Entry kShapeOps[] = {
    {"Cast", ExecCast},
};

}  // namespace

ExecFn FindShapeExecutor(std::string_view op) {
  for (const Entry& e : kShapeOps) {
    if (op == e.op) return e.fn;
  }
  return nullptr;
}

}  // namespace loom::interp
