#include "runtime/package/checks.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "runtime/core/checked_math.h"
#include "runtime/core/conv_groups.h"

namespace loom::runtime {
namespace {

using fbu = flatbuffers::uoffset_t;

std::string_view Str(const flatbuffers::String* s) {
  return s ? s->string_view() : std::string_view();
}

uint32_t Dim(const pkg::Tensor* t, fbu i) { return t->shape()->Get(i); }

Status CheckShift(int32_t v, const char* name, const std::string& where) {
  if (v < -31 || v > 31) {
    return InvalidArgument("{}: {} {} outside [-31, 31]", where, name, v);
  }
  return Status::Ok();
}
Status CheckClip(int32_t lo, int32_t hi, const std::string& where) {
  if (lo < -128 || hi > 127 || lo > hi) {
    return InvalidArgument("{}: clip [{}, {}] is not a range inside [-128, 127]", where, lo, hi);
  }
  return Status::Ok();
}
Status CheckRequant(const pkg::Requant* rq, const std::string& where) {
  if (rq == nullptr) return InvalidArgument("{}: requant parameters missing", where);
  LOOM_RETURN_IF_ERROR(CheckShift(rq->pre_shift(), "pre_shift", where));
  LOOM_RETURN_IF_ERROR(CheckShift(rq->post_shift(), "post_shift", where));
  return CheckClip(rq->clip_lo(), rq->clip_hi(), where);
}
// A zero point, pad value or offset (1.10) in [lo, hi].
Status CheckOffset(int32_t v, int32_t lo, int32_t hi, const char* field, const std::string& where) {
  if (v < lo || v > hi)
    return InvalidArgument("{}: {} {} is outside [{}, {}]", where, field, v, lo, hi);
  return Status::Ok();
}
// Output spatial size of a window over `in`; fails when the window does not fit.
Status WindowOut(const pkg::Window* w, uint32_t h, uint32_t wd, const std::string& where,
                 uint32_t* oh, uint32_t* ow) {
  if (w == nullptr) return InvalidArgument("{}: window missing", where);
  if (w->kh() == 0 || w->kw() == 0 || w->stride_h() == 0 || w->stride_w() == 0) {
    return InvalidArgument("{}: window sizes and strides must be positive", where);
  }
  if (w->pad_top() >= w->kh() || w->pad_bottom() >= w->kh() || w->pad_left() >= w->kw() ||
      w->pad_right() >= w->kw()) {
    return InvalidArgument("{}: padding must be smaller than the window", where);
  }
  const uint64_t ph = uint64_t{h} + w->pad_top() + w->pad_bottom();
  const uint64_t pw = uint64_t{wd} + w->pad_left() + w->pad_right();
  if (ph < w->kh() || pw < w->kw()) {
    return InvalidArgument("{}: window {}x{} does not fit the padded input {}x{}", where, w->kh(),
                           w->kw(), ph, pw);
  }
  *oh = static_cast<uint32_t>((ph - w->kh()) / w->stride_h() + 1);
  *ow = static_cast<uint32_t>((pw - w->kw()) / w->stride_w() + 1);
  return Status::Ok();
}

bool SameShape(const pkg::Tensor* a, const pkg::Tensor* b) {
  if (a->shape()->size() != b->shape()->size()) return false;
  for (fbu i = 0; i < a->shape()->size(); ++i) {
    if (a->shape()->Get(i) != b->shape()->Get(i)) return false;
  }
  return true;
}
uint64_t Elements(const pkg::Tensor* t) {
  uint64_t n = 0;
  ShapeElements(t->shape(), &n);  // checked in CheckTensors
  return n;
}

// A FloatOp's attribute list, read the way kernels/op_attrs.h reads an IR node's.
class FloatAttrs final : public kernels::AttrReader {
 public:
  explicit FloatAttrs(const pkg::FloatOp& op) : op_(op) {}
  std::vector<int64_t> GetInts(std::string_view name) const override {
    const pkg::FloatAttr* a = Find(name);
    if (a == nullptr || a->ints() == nullptr) return {};
    return {a->ints()->begin(), a->ints()->end()};
  }
  int64_t GetInt(std::string_view name, int64_t fallback) const override {
    const pkg::FloatAttr* a = Find(name);
    return a && a->ints() && a->ints()->size() ? a->ints()->Get(0) : fallback;
  }
  float GetFloat(std::string_view name, float fallback) const override {
    const pkg::FloatAttr* a = Find(name);
    return a && a->floats() && a->floats()->size() ? a->floats()->Get(0) : fallback;
  }
  std::vector<float> GetFloats(std::string_view name) const override {
    const pkg::FloatAttr* a = Find(name);
    if (a == nullptr || a->floats() == nullptr) return {};
    return {a->floats()->begin(), a->floats()->end()};
  }
  std::string GetString(std::string_view name, std::string_view fallback) const override {
    const pkg::FloatAttr* a = Find(name);
    return std::string(a && a->text() ? a->text()->string_view() : fallback);
  }
  bool Has(std::string_view name) const override { return Find(name) != nullptr; }

 private:
  const pkg::FloatAttr* Find(std::string_view name) const {
    if (op_.attrs() == nullptr) return nullptr;
    for (const pkg::FloatAttr* a : *op_.attrs()) {
      if (a->name()->string_view() == name) return a;
    }
    return nullptr;
  }
  const pkg::FloatOp& op_;
};

// A view with the tensor's shape and no data: what prepare sees at load.
Status ShapeView(const pkg::Tensor* t, kernels::TensorView* v) {
  int64_t dims[8];
  const int rank = static_cast<int>(t->shape()->size());  // <= 8, checked in CheckTensors
  for (int i = 0; i < rank; ++i) dims[i] = t->shape()->Get(static_cast<fbu>(i));
  return kernels::MakeView(FromPkgDType(t->dtype()), nullptr, dims, rank, v);
}

}  // namespace

std::string PackageChecker::TensorName(const pkg::Tensor* t) const {
  return t ? Format("'{}'", t->name()->string_view()) : std::string("(none)");
}

Status PackageChecker::Get(int32_t idx, bool optional, const std::string& where,
                           const pkg::Tensor** t) {
  *t = nullptr;
  if (idx == -1 && optional) return Status::Ok();
  if (idx < 0 || static_cast<uint32_t>(idx) >= r_.tensors()->size()) {
    return OutOfRange("{}: tensor index {} is not one of the {} tensors", where, idx,
                      r_.tensors()->size());
  }
  *t = r_.tensors()->Get(static_cast<fbu>(idx));
  return Status::Ok();
}

Status PackageChecker::CheckTensors() {
  const uint64_t arena = r_.arena_bytes();
  const uint64_t consts = r_.constants() ? r_.constants()->size() : 0;
  Last last_arena, last_const;
  for (fbu i = 0; i < r_.tensors()->size(); ++i) {
    const pkg::Tensor* t = r_.tensors()->Get(i);
    const std::string where = Format("tensor {} '{}'", i, t->name()->string_view());
    if (static_cast<unsigned>(t->dtype()) > static_cast<unsigned>(pkg::DType::MAX)) {
      return InvalidArgument("{}: unknown dtype {}", where, unsigned(t->dtype()));
    }
    if (static_cast<unsigned>(t->storage()) > static_cast<unsigned>(pkg::Storage::MAX)) {
      return InvalidArgument("{}: unknown storage {}", where, unsigned(t->storage()));
    }
    if (t->shape()->size() > kMaxRank) {
      return InvalidArgument("{}: rank {} is above {}, the most the runtime supports", where,
                             t->shape()->size(), kMaxRank);
    }
    uint64_t count = 0;
    if (!ShapeElements(t->shape(), &count)) return InvalidArgument("{}: shape overflows", where);
    uint64_t expect = 0;
    if (Status s = TensorBytes(c_, t->dtype(), t->layout(), t->shape(), &expect); !s.ok()) {
      return InvalidArgument("{}: {}", where, s.message());
    }
    if (t->size() != expect) {
      return InvalidArgument(
          "{}: size {} bytes does not match its shape, dtype and layout ({} bytes)", where,
          t->size(), expect);
    }
    const bool in_arena = t->storage() == pkg::Storage::Arena;
    const uint64_t limit = in_arena ? arena : consts;
    if (t->offset() > limit || t->size() > limit - t->offset()) {
      return OutOfRange("{}: bytes [{}, {}) are outside the {} ({} bytes)", where, t->offset(),
                        t->offset() + t->size(), in_arena ? "arena" : "constants", limit);
    }
    // Kernels read elements in place, so each must sit at a multiple of its own size.
    const uint64_t elem = DTypeSize(FromPkgDType(t->dtype()));
    if (elem > 1 && t->offset() % elem != 0) {
      return InvalidArgument("{}: offset {} is not {}-byte aligned ({})", where, t->offset(), elem,
                             DTypeName(t->dtype()));
    }
    if (t->dtype() == pkg::DType::Int8 && !(std::isfinite(t->scale()) && t->scale() > 0)) {
      return InvalidArgument("{}: int8 scale must be finite and positive", where);
    }
    if (t->zero_point() != 0) {
      if (t->dtype() != pkg::DType::Int8) {
        return InvalidArgument("{}: only int8 tensors have a zero point ({} has {})", where,
                               DTypeName(t->dtype()), t->zero_point());
      }
      LOOM_RETURN_IF_ERROR(CheckOffset(t->zero_point(), -128, 127, "zero_point", where));
    }
    // An empty tensor still takes one aligned slot in the compiler's plan.
    Last& last = in_arena ? last_arena : last_const;
    uint64_t end = UINT64_MAX;
    (void)CheckedAdd<uint64_t>(t->offset(), std::max<uint64_t>(t->size(), 1), &end);
    if (end > last.end) last = {end, i};
  }
  // A region larger than its tensors need is memory the executor would allocate for nothing, and
  // the one size field a hostile package could set to terabytes without supplying the bytes.
  LOOM_RETURN_IF_ERROR(CheckRegionSize("arena_bytes", arena, last_arena));
  return CheckRegionSize("constants", consts, last_const);
}

Status PackageChecker::CheckRegionSize(const char* field, uint64_t bytes, const Last& last) const {
  const uint64_t align = ArenaAlignment(c_);
  const uint64_t need =
      last.end > UINT64_MAX - (align - 1) ? UINT64_MAX : (last.end + align - 1) / align * align;
  if (bytes <= need) return Status::Ok();
  if (last.end == 0) {
    return InvalidArgument("{} is {} bytes, but no tensor is stored there (0 bytes needed)", field,
                           bytes);
  }
  const pkg::Tensor* t = r_.tensors()->Get(last.tensor);
  return InvalidArgument(
      "{} is {} bytes, more than the {} its tensors need (tensor {} {} ends at byte {}, rounded "
      "up to {})",
      field, bytes, need, last.tensor, TensorName(t), last.end, align);
}

Status PackageChecker::CheckBindings() {
  std::set<std::string> names;
  for (int dir = 0; dir < 2; ++dir) {
    const auto* list = dir == 0 ? r_.inputs() : r_.outputs();
    for (fbu i = 0; i < list->size(); ++i) {
      const pkg::Binding* b = list->Get(i);
      const std::string where =
          Format("{} {} '{}'", dir == 0 ? "input" : "output", i, b->name()->string_view());
      if (b->name()->size() == 0) return InvalidArgument("{}: empty name", where);
      // The C API hands shapes out in LOOM_MAX_RANK slots; a longer one could only be truncated.
      if (b->shape()->size() > kMaxRank) {
        return InvalidArgument("{}: rank {} is above {}, the most the runtime supports", where,
                               b->shape()->size(), kMaxRank);
      }
      if (!names.insert(b->name()->str()).second) {
        return InvalidArgument("{}: name used by another input or output", where);
      }
      const pkg::Tensor* t = nullptr;
      LOOM_RETURN_IF_ERROR(Get(b->tensor(), false, where, &t));
      // An output may be a constant the package returns as is (since 1.5); an input is written
      // at run time, so it lives in the arena.
      if (t->storage() != pkg::Storage::Arena &&
          !(dir == 1 && t->storage() == pkg::Storage::Constant &&
            t->layout() == pkg::TensorLayout::Plain)) {
        return InvalidArgument("{}: tensor {} is not in the arena{}", where, TensorName(t),
                               dir == 1 ? " (a constant output must be Plain)" : "");
      }
      // int32 BlockedVector tensors are the accelerator's bias and multipliers, never data a
      // user exchanges; every type is exchanged Plain (int8 also Blocked: the executor packs it).
      if (t->layout() != pkg::TensorLayout::Plain &&
          !(t->dtype() == pkg::DType::Int8 && t->layout() == pkg::TensorLayout::Blocked)) {
        return InvalidArgument(
            "{}: tensor {} is {} {}; inputs and outputs are Plain (int8 also "
            "Blocked)",
            where, TensorName(t), DTypeName(t->dtype()), pkg::EnumNameTensorLayout(t->layout()));
      }
      uint64_t n = 0;
      if (!ShapeElements(b->shape(), &n) || n != Elements(t)) {
        return InvalidArgument("{}: shape has a different element count than tensor {}", where,
                               TensorName(t));
      }
    }
  }
  // A model without inputs (everything folded to constants) is a package; one without outputs
  // computes nothing anyone can see.
  if (r_.outputs()->size() == 0) return InvalidArgument("package has no outputs");
  return Status::Ok();
}

Status PackageChecker::CheckSegment(fbu index, std::unique_ptr<Program>* program,
                                    std::vector<FloatOpPlan>* float_ops) {
  const pkg::Segment* seg = r_.segments()->Get(index);
  const std::string where = Format("segment {} '{}'", index, Str(seg->name()));
  float_ops->assign(seg->ops()->size(), FloatOpPlan{});
  for (fbu i = 0; i < seg->ops()->size(); ++i) {
    const pkg::Op* op = seg->ops()->Get(i);
    LOOM_RETURN_IF_ERROR(
        CheckOp(*op, Format("{} op {} '{}'", where, i, Str(op->name())), &(*float_ops)[i]));
  }
  program->reset();
  switch (seg->kind()) {
    case pkg::SegmentKind::Cpu:
      if (seg->program() != nullptr) {
        return InvalidArgument("{}: a CPU segment must not carry an accelerator program", where);
      }
      return CheckInsnRanges(*seg, where, 0);
    case pkg::SegmentKind::Accel: {
      if (seg->program() == nullptr) {
        return InvalidArgument("{}: accelerator segment without a program", where);
      }
      auto p = std::make_unique<Program>();
      LOOM_RETURN_IF_ERROR(CheckProgram(*seg->program(), where, p.get()));
      LOOM_RETURN_IF_ERROR(CheckInsnRanges(*seg, where, p->insns.size()));
      *program = std::move(p);
      return Status::Ok();
    }
  }
  return InvalidArgument("{}: unknown segment kind {}", where, unsigned(seg->kind()));
}

// Ops' instruction ranges: either none recorded (every op 0, 0) or, in an accelerator segment,
// in op order, non-overlapping and inside the program; non-empty, except for an op fused into
// the one before it (a max pool run in its convolution's tiles), whose empty range sits where
// that one's ends.
Status PackageChecker::CheckInsnRanges(const pkg::Segment& seg, const std::string& where,
                                       size_t insns) {
  bool any = false;
  for (const pkg::Op* op : *seg.ops()) any = any || op->insn_begin() != 0 || op->insn_end() != 0;
  if (!any) return Status::Ok();
  if (insns == 0) {
    return InvalidArgument("{}: a CPU segment's ops must not have instruction ranges", where);
  }
  uint64_t prev_end = 0;
  for (fbu i = 0; i < seg.ops()->size(); ++i) {
    const pkg::Op* op = seg.ops()->Get(i);
    const uint32_t begin = op->insn_begin(), end = op->insn_end();
    const bool fused = i > 0 && begin == end && begin == prev_end;
    if (begin >= end && !fused) {
      return InvalidArgument("{} op {} '{}': empty instruction range [{}, {})", where, i,
                             Str(op->name()), begin, end);
    }
    if (end > insns) {
      return OutOfRange(
          "{} op {} '{}': instruction range [{}, {}) leaves the program ({} "
          "instructions)",
          where, i, Str(op->name()), begin, end, insns);
    }
    if (begin < prev_end) {
      return InvalidArgument(
          "{} op {} '{}': instruction range [{}, {}) overlaps or precedes the "
          "previous op's (ends at {})",
          where, i, Str(op->name()), begin, end, prev_end);
    }
    prev_end = op->insn_end();
  }
  return Status::Ok();
}

Status PackageChecker::CheckOp(const pkg::Op& op, const std::string& where, FloatOpPlan* plan) {
  const auto& in = *op.inputs();
  const auto& out = *op.outputs();
  auto arity = [&](size_t n_in, size_t n_out) -> Status {
    if (in.size() != n_in || out.size() != n_out) {
      return InvalidArgument("{}: expects {} inputs and {} outputs, has {} and {}", where, n_in,
                             n_out, in.size(), out.size());
    }
    return Status::Ok();
  };
  auto expect = [&](const pkg::Tensor* t, pkg::DType dt, pkg::TensorLayout lay, const char* role) -> Status {
    if (t->dtype() != dt || t->layout() != lay) {
      return InvalidArgument("{}: {} {} must be {} with layout {}, is {} {}", where, role,
                             TensorName(t), DTypeName(dt), pkg::EnumNameTensorLayout(lay),
                             DTypeName(t->dtype()), pkg::EnumNameTensorLayout(t->layout()));
    }
    return Status::Ok();
  };
  auto shape_is = [&](const pkg::Tensor* t, std::initializer_list<uint32_t> dims, const char* role) -> Status {
    bool ok = t->shape()->size() == dims.size();
    fbu i = 0;
    for (uint32_t d : dims) ok = ok && t->shape()->Get(i++) == d;
    if (!ok) {
      std::string want;
      for (uint32_t d : dims) want += Format(want.empty() ? "{}" : ", {}", d);
      return InvalidArgument("{}: {} {} must have shape [{}]", where, role, TensorName(t), want);
    }
    return Status::Ok();
  };
  // Outputs are written at run time, so they must live in the arena, and no input may alias them.
  std::vector<const pkg::Tensor*> ins(in.size()), outs(out.size());
  for (fbu i = 0; i < out.size(); ++i) {
    LOOM_RETURN_IF_ERROR(Get(out.Get(i), false, Format("{} output {}", where, i), &outs[i]));
    if (outs[i]->storage() != pkg::Storage::Arena) {
      return InvalidArgument("{}: output {} is not in the arena", where, TensorName(outs[i]));
    }
  }
  for (fbu i = 0; i < in.size(); ++i) {
    bool optional = op.params_type() == pkg::OpParams::Conv2d && i == 2;
    if (op.params_type() == pkg::OpParams::FloatOp && op.params_as_FloatOp()->op() != nullptr) {
      const kernels::FloatOpDef* f =
          kernels::FindFloatOp(op.params_as_FloatOp()->op()->string_view());
      optional = f != nullptr && !f->variadic && i >= f->required;
    }
    LOOM_RETURN_IF_ERROR(Get(in.Get(i), optional, Format("{} input {}", where, i), &ins[i]));
    for (const pkg::Tensor* o : outs) {
      if (ins[i] && ins[i]->storage() == pkg::Storage::Arena && ins[i]->size() && o->size() &&
          ins[i]->offset() < o->offset() + o->size() && o->offset() < ins[i]->offset() + ins[i]->size()) {
        return InvalidArgument("{}: input {} overlaps output {} in the arena", where,
                               TensorName(ins[i]), TensorName(o));
      }
    }
  }
  const auto I8 = pkg::DType::Int8, I32 = pkg::DType::Int32, F32 = pkg::DType::Float32;
  const auto Blk = pkg::TensorLayout::Blocked, Plain = pkg::TensorLayout::Plain;
  switch (op.params_type()) {
    case pkg::OpParams::Conv2d: {
      const pkg::Conv2d* p = op.params_as_Conv2d();
      LOOM_RETURN_IF_ERROR(arity(4, 1));
      if (ins[0] == nullptr || ins[1] == nullptr || ins[3] == nullptr) {
        return InvalidArgument("{}: x, weights and mult are required", where);
      }
      LOOM_RETURN_IF_ERROR(expect(ins[0], I8, Blk, "input"));
      const pkg::Tensor *x = ins[0], *w = ins[1], *y = outs[0];
      const uint32_t n = Dim(x, 0), c = Dim(x, 1);
      uint32_t o = 0;
      const uint32_t groups = p->groups();
      if (groups == 0) return InvalidArgument("{}: groups 0", where);
      if (p->depthwise() && groups != 1) {
        return InvalidArgument("{}: a depthwise convolution has groups 1, not {}", where, groups);
      }
      if (p->depthwise()) {
        LOOM_RETURN_IF_ERROR(expect(w, I8, pkg::TensorLayout::BlockedDepthwise, "weights"));
        if (Dim(w, 0) != c) {
          return InvalidArgument("{}: depthwise weights must have one filter per input channel",
                                 where);
        }
        o = c;
      } else {
        LOOM_RETURN_IF_ERROR(expect(w, I8, pkg::TensorLayout::BlockedWeights, "weights"));
        o = Dim(w, 0);
        if (groups == 1 && Dim(w, 1) != c) {
          return InvalidArgument("{}: weights {} have {} input channels, input has {}", where,
                                 TensorName(w), Dim(w, 1), c);
        }
        // Groups of gc input and gc * o / c output channels, the last one possibly short (the
        // kernels' rule: runtime/core/conv_groups.h).
        if (groups > 1 && !GroupsCover(groups, c, o, Dim(w, 1))) {
          return InvalidArgument(
              "{}: {} groups of {} input channels (the weights {}) do not cover the input's {} "
              "channels and the {} outputs with at most a short last group",
              where, groups, Dim(w, 1), TensorName(w), c, o);
        }
      }
      if (p->window() == nullptr || p->window()->kh() != Dim(w, 2) || p->window()->kw() != Dim(w, 3)) {
        return InvalidArgument("{}: window does not match the weights' kernel size", where);
      }
      uint32_t oh = 0, ow = 0;
      LOOM_RETURN_IF_ERROR(WindowOut(p->window(), Dim(x, 2), Dim(x, 3), where, &oh, &ow));
      for (int k : {2, 3}) {
        if (ins[k] == nullptr) continue;
        LOOM_RETURN_IF_ERROR(expect(ins[k], I32, pkg::TensorLayout::BlockedVector, k == 2 ? "bias" : "mult"));
        LOOM_RETURN_IF_ERROR(shape_is(ins[k], {o}, k == 2 ? "bias" : "mult"));
      }
      LOOM_RETURN_IF_ERROR(expect(y, I8, Blk, "output"));
      LOOM_RETURN_IF_ERROR(shape_is(y, {n, o, oh, ow}, "output"));
      LOOM_RETURN_IF_ERROR(CheckOffset(p->pad_value(), -128, 127, "pad_value", where));
      return CheckRequant(p->requant(), where);
    }
    case pkg::OpParams::Add: {
      const pkg::Add* p = op.params_as_Add();
      LOOM_RETURN_IF_ERROR(arity(2, 1));
      for (const pkg::Tensor* t : {ins[0], ins[1], outs[0]}) LOOM_RETURN_IF_ERROR(expect(t, I8, Blk, "operand"));
      if (!SameShape(ins[0], ins[1]) || !SameShape(ins[0], outs[0])) {
        return InvalidArgument("{}: operands and output must have the same shape", where);
      }
      for (int32_t m : {p->mult_a(), p->mult_b()}) {
        if (m < -32768 || m > 32767) {
          return InvalidArgument("{}: multiplier {} outside int16", where, m);
        }
      }
      LOOM_RETURN_IF_ERROR(CheckShift(p->shift(), "shift", where));
      return CheckClip(p->clip_lo(), p->clip_hi(), where);
    }
    case pkg::OpParams::Mul: {
      const pkg::Mul* p = op.params_as_Mul();
      LOOM_RETURN_IF_ERROR(arity(2, 1));
      for (const pkg::Tensor* t : {ins[0], ins[1], outs[0]})
        LOOM_RETURN_IF_ERROR(expect(t, I8, Blk, "operand"));
      if (!SameShape(ins[0], outs[0])) {
        return InvalidArgument("{}: input a and the output must have the same shape", where);
      }
      const bool per_channel = Dim(ins[1], 0) == Dim(ins[0], 0) &&
                               Dim(ins[1], 1) == Dim(ins[0], 1) && Dim(ins[1], 2) == 1 &&
                               Dim(ins[1], 3) == 1;
      if (!SameShape(ins[0], ins[1]) && !per_channel) {
        return InvalidArgument("{}: input b {} must have a's shape or one value per channel", where,
                               TensorName(ins[1]));
      }
      for (int32_t v : {p->mult(), p->b_mult(), p->b_offset(), p->b_lo(), p->b_hi()}) {
        if (v < -32768 || v > 32767) {
          return InvalidArgument("{}: multiplier or clamp {} outside int16", where, v);
        }
      }
      if (p->b_lo() > p->b_hi()) {
        return InvalidArgument("{}: clamp of b [{}, {}] is empty", where, p->b_lo(), p->b_hi());
      }
      LOOM_RETURN_IF_ERROR(CheckOffset(p->a_offset(), -255, 255, "a_offset", where));
      LOOM_RETURN_IF_ERROR(CheckOffset(p->out_offset(), -255, 255, "out_offset", where));
      return CheckRequant(p->requant(), where);
    }
    case pkg::OpParams::MaxPool:
    case pkg::OpParams::AvgPool: {
      const bool avg = op.params_type() == pkg::OpParams::AvgPool;
      LOOM_RETURN_IF_ERROR(arity(avg ? 2 : 1, 1));
      const pkg::Window* win = avg ? op.params_as_AvgPool()->window() : op.params_as_MaxPool()->window();
      LOOM_RETURN_IF_ERROR(expect(ins[0], I8, Blk, "input"));
      LOOM_RETURN_IF_ERROR(expect(outs[0], I8, Blk, "output"));
      uint32_t oh = 0, ow = 0;
      LOOM_RETURN_IF_ERROR(WindowOut(win, Dim(ins[0], 2), Dim(ins[0], 3), where, &oh, &ow));
      LOOM_RETURN_IF_ERROR(shape_is(outs[0], {Dim(ins[0], 0), Dim(ins[0], 1), oh, ow}, "output"));
      if (avg) {
        LOOM_RETURN_IF_ERROR(expect(ins[1], I32, Plain, "mult_by_count"));
        if (Elements(ins[1]) != uint64_t{win->kh()} * win->kw()) {
          return InvalidArgument("{}: mult_by_count must have kh*kw entries", where);
        }
        const pkg::AvgPool* p = op.params_as_AvgPool();
        LOOM_RETURN_IF_ERROR(CheckOffset(p->x_offset(), -255, 255, "x_offset", where));
        LOOM_RETURN_IF_ERROR(CheckOffset(p->out_offset(), -255, 255, "out_offset", where));
        return CheckRequant(p->requant(), where);
      }
      return Status::Ok();
    }
    case pkg::OpParams::Resize:
    case pkg::OpParams::ZeroInsert: {
      // Both scale the plane by integer factors: a nearest resize, or a zero insertion (1.7).
      const bool resize = op.params_type() == pkg::OpParams::Resize;
      const uint32_t fh =
          resize ? op.params_as_Resize()->factor_h() : op.params_as_ZeroInsert()->stride_h();
      const uint32_t fw =
          resize ? op.params_as_Resize()->factor_w() : op.params_as_ZeroInsert()->stride_w();
      const char* what = resize ? "resize factors" : "zero-insertion strides";
      LOOM_RETURN_IF_ERROR(arity(1, 1));
      LOOM_RETURN_IF_ERROR(expect(ins[0], I8, Blk, "input"));
      LOOM_RETURN_IF_ERROR(expect(outs[0], I8, Blk, "output"));
      if (fh == 0 || fw == 0) {
        return InvalidArgument("{}: {} {} x {} must be at least 1", where, what, fh, fw);
      }
      const uint64_t oh = uint64_t{Dim(ins[0], 2)} * fh;
      const uint64_t ow = uint64_t{Dim(ins[0], 3)} * fw;
      if (oh > UINT32_MAX || ow > UINT32_MAX) {
        return InvalidArgument("{}: output {} x {} of {} {} x {} exceeds 32-bit dimensions", where,
                               oh, ow, what, fh, fw);
      }
      return shape_is(
          outs[0],
          {Dim(ins[0], 0), Dim(ins[0], 1), static_cast<uint32_t>(oh), static_cast<uint32_t>(ow)},
          "output");
    }
    case pkg::OpParams::Concat: {
      const pkg::Concat* p = op.params_as_Concat();
      if (in.size() == 0 || out.size() != 1) {
        return InvalidArgument("{}: concat needs inputs and one output", where);
      }
      if (!p->mults() || !p->shifts() || p->mults()->size() != in.size() || p->shifts()->size() != in.size()) {
        return InvalidArgument("{}: concat needs one mult and one shift per input", where);
      }
      LOOM_RETURN_IF_ERROR(expect(outs[0], I8, Blk, "output"));
      uint64_t channels = 0;
      for (fbu i = 0; i < in.size(); ++i) {
        LOOM_RETURN_IF_ERROR(expect(ins[i], I8, Blk, "input"));
        if (Dim(ins[i], 0) != Dim(outs[0], 0) || Dim(ins[i], 2) != Dim(outs[0], 2) ||
            Dim(ins[i], 3) != Dim(outs[0], 3)) {
          return InvalidArgument("{}: input {} differs from the output in N, H or W", where,
                                 TensorName(ins[i]));
        }
        channels += Dim(ins[i], 1);
        LOOM_RETURN_IF_ERROR(CheckShift(p->shifts()->Get(i), "shift", where));
        // The accelerator multiplies by an ALU immediate (16 bits signed), the cpu device must
        // compute what it computes.
        if (const int32_t m = p->mults()->Get(i); m < -32768 || m > 32767) {
          return InvalidArgument("{}: input {} multiplier {} outside int16", where, i, m);
        }
      }
      if (channels != Dim(outs[0], 1)) {
        return InvalidArgument("{}: input channels do not add up to the output's", where);
      }
      return Status::Ok();
    }
    case pkg::OpParams::Quantize:
    case pkg::OpParams::Dequantize:
    case pkg::OpParams::Relayout: {
      LOOM_RETURN_IF_ERROR(arity(1, 1));
      const pkg::Tensor *x = ins[0], *y = outs[0];
      if (Elements(x) != Elements(y)) {
        return InvalidArgument("{}: input and output element counts differ", where);
      }
      const bool blocked_ok = [&] {
        for (const pkg::Tensor* t : {x, y}) {
          if (t->layout() != Plain && t->layout() != Blk) return false;
        }
        return true;
      }();
      if (!blocked_ok) return InvalidArgument("{}: only Plain and Blocked layouts convert", where);
      if (op.params_type() == pkg::OpParams::Quantize) {
        if (x->dtype() != F32 || x->layout() != Plain || y->dtype() != I8) {
          return InvalidArgument("{}: quantize maps float32 Plain to int8", where);
        }
      } else if (op.params_type() == pkg::OpParams::Dequantize) {
        if (x->dtype() != I8 || y->dtype() != F32 || y->layout() != Plain) {
          return InvalidArgument("{}: dequantize maps int8 to float32 Plain", where);
        }
      } else if (x->dtype() != y->dtype() || x->dtype() == I32 ||
                 (x->dtype() != I8 && (x->layout() != Plain || y->layout() != Plain))) {
        return InvalidArgument(
            "{}: relayout keeps the dtype (int8 Plain/Blocked, or Plain of any type but int32)",
            where);
      }
      return Status::Ok();
    }
    case pkg::OpParams::FloatOp:
      if (out.size() == 0) return InvalidArgument("{}: a float operator has no outputs", where);
      return CheckFloatOp(op, ins, outs, where, plan);
    default:
      return InvalidArgument("{}: unknown operator type {}", where, unsigned(op.params_type()));
  }
}

// Resolves a FloatOp to its row of the float-op table and prepares its parameters, so that every
// attribute and operand problem surfaces here, at load, naming the op.
Status PackageChecker::CheckFloatOp(const pkg::Op& op, const std::vector<const pkg::Tensor*>& ins,
                                    const std::vector<const pkg::Tensor*>& outs,
                                    const std::string& where, FloatOpPlan* plan) {
  const pkg::FloatOp* p = op.params_as_FloatOp();
  const std::string_view name = p->op()->string_view();
  const kernels::FloatOpDef* f = kernels::FindFloatOp(name);
  if (f == nullptr) {
    return Unimplemented("{}: float operator '{}' is not supported by the runtime", where, name);
  }
  if (ins.size() < f->required ||
      (!f->variadic && ins.size() > size_t{f->required} + f->optional) ||
      outs.size() > size_t{1} + f->extra_outputs) {
    const std::string count = f->variadic ? Format("{} or more", f->required)
                              : f->optional
                                  ? Format("{} to {}", f->required, f->required + f->optional)
                                  : Format("{}", f->required);
    const std::string outputs = f->extra_outputs ? Format("1 to {} outputs", 1 + f->extra_outputs)
                                                 : std::string("1 output");
    return InvalidArgument("{}: {} takes {} inputs and {}, has {} and {}", where, name, count,
                           outputs, ins.size(), outs.size());
  }
  const pkg::Tensor* out = outs[0];
  // The row lists the types its kernel takes; a finer rule (Gather's indices, Cast's two sides)
  // is its prepare's to check, which sees every operand's type.
  for (size_t i = 0; i < ins.size() + outs.size(); ++i) {
    const pkg::Tensor* t = i < ins.size() ? ins[i] : outs[i - ins.size()];
    if (t == nullptr) continue;
    const std::string role = i < ins.size()     ? Format("input {}", i)
                             : outs.size() == 1 ? std::string("output")
                                                : Format("output {}", i - ins.size());
    if (t->layout() != pkg::TensorLayout::Plain) {
      return InvalidArgument("{}: {} {} must have layout Plain, is {} {}", where, role,
                             TensorName(t), DTypeName(t->dtype()),
                             pkg::EnumNameTensorLayout(t->layout()));
    }
    if (!kernels::FloatOpTakes(*f, FromPkgDType(t->dtype()))) {
      return Unimplemented("{}: {} {} {} is {}; the runtime's {} takes {}", where, name, role,
                           TensorName(t), DTypeName(t->dtype()), name, f->dtypes);
    }
  }
  if (f->same_elements && Elements(ins[0]) != Elements(out)) {
    return InvalidArgument("{}: input and output element counts differ", where);
  }
  if (p->attrs() != nullptr) {
    for (const pkg::FloatAttr* a : *p->attrs()) {
      const std::string_view attr = a->name()->string_view();
      if (!kernels::AttrListed(f->reads, attr) && !kernels::AttrListed(f->ignores, attr)) {
        return Unimplemented("{}: {} attribute '{}' is not supported by the runtime ({} reads {})",
                             where, name, attr, name, f->reads[0] ? f->reads : "no attributes");
      }
      // One kind per attribute: a string beside numbers would leave which one counts to the
      // order of the lookups.
      const bool numbers = (a->ints() && a->ints()->size()) || (a->floats() && a->floats()->size());
      if (a->text() != nullptr && numbers) {
        return InvalidArgument("{}: {} attribute '{}' holds both a string and numbers", where, name,
                               attr);
      }
    }
  }
  std::vector<kernels::TensorView> views(ins.size());
  std::vector<const kernels::TensorView*> in_views(ins.size(), nullptr);
  for (size_t i = 0; i < ins.size(); ++i) {
    if (ins[i] == nullptr) continue;
    LOOM_RETURN_IF_ERROR(ShapeView(ins[i], &views[i]).WithContext(where));
    in_views[i] = &views[i];
  }
  kernels::TensorView y;
  LOOM_RETURN_IF_ERROR(ShapeView(out, &y).WithContext(where));
  plan->def = f;
  LOOM_RETURN_IF_ERROR(
      f->prepare(FloatAttrs(*p), in_views.data(), in_views.size(), y, &plan->params)
          .WithContext(where));
  plan->num_outputs = outs.size();
  // Scratch is planned here, at load; the executor sizes one buffer for the largest.
  plan->scratch_bytes =
      f->scratch_bytes ? f->scratch_bytes(plan->params, in_views.data(), in_views.size(), y) : 0;
  return Status::Ok();
}

Status PackageChecker::CheckProgram(const pkg::AccelProgram& prog, const std::string& where,
                                    Program* out) {
  const auto& bytes = *prog.insns();
  if (bytes.size() == 0 || bytes.size() % HwConfig::kInsnBytes != 0) {
    return InvalidArgument("{}: instruction bytes ({}) are not a positive multiple of 16", where,
                           bytes.size());
  }
  const size_t count = bytes.size() / HwConfig::kInsnBytes;
  if (count > UINT32_MAX) return InvalidArgument("{}: too many instructions", where);
  if (prog.regions()->size() != count) {
    return InvalidArgument("{}: {} regions for {} instructions", where, prog.regions()->size(),
                           count);
  }
  out->uop_words.assign(prog.uops()->begin(), prog.uops()->end());
  for (size_t u = 0; u < out->uop_words.size(); ++u) {
    isa::Uop uop;
    if (Status s = isa::DecodeUop(layout_, out->uop_words[u], &uop); !s.ok()) {
      return InvalidArgument("{}: micro-op {}: {}", where, u, s.message());
    }
  }
  const uint64_t region_bytes[4] = {0, r_.arena_bytes(), r_.constants() ? r_.constants()->size() : 0,
                                    uint64_t{out->uop_words.size()} * HwConfig::kUopBytes};
  out->insns.resize(count);
  out->regions.resize(count);
  for (size_t i = 0; i < count; ++i) {
    isa::Insn& insn = out->insns[i];
    const isa::Word128 word = isa::LoadWord(bytes.data() + i * HwConfig::kInsnBytes);
    if (Status s = isa::Decode(layout_, word, &insn); !s.ok()) {
      return InvalidArgument("{}: instruction {}: {}", where, i, s.message());
    }
    if (Status s = isa::Verify(layout_, insn); !s.ok()) {
      return InvalidArgument("{}: instruction {} ({}): {}", where, i, isa::Disassemble(insn),
                             s.message());
    }
    const bool last = i + 1 == count;
    if ((insn.opcode == isa::Opcode::kFinish) != last) {
      return InvalidArgument(
          "{}: instruction {}: {}", where, i,
          last ? "the program does not end with FINISH" : "FINISH before the end of the program");
    }
    const uint8_t rv = static_cast<uint8_t>(prog.regions()->Get(static_cast<fbu>(i)));
    if (rv > static_cast<uint8_t>(pkg::Region::MAX)) {
      return InvalidArgument("{}: instruction {}: unknown region {}", where, i, rv);
    }
    const Region region = static_cast<Region>(rv);
    out->regions[i] = region;
    const bool mem = insn.opcode == isa::Opcode::kLoad || insn.opcode == isa::Opcode::kStore;
    if (!mem) {
      if (region != Region::kNone) {
        return InvalidArgument("{}: instruction {}: only LOAD and STORE have a region", where, i);
      }
      if (insn.opcode == isa::Opcode::kGemm) {
        out->gemm_macs += uint64_t{insn.uop_end - insn.uop_bgn} * insn.loop_out * insn.loop_in *
                          c_.macs_per_cycle();
      }
      continue;
    }
    const bool uop_load = insn.buffer == isa::Buffer::kUop;
    if (region == Region::kNone || (region == Region::kUops) != uop_load ||
        (insn.opcode == isa::Opcode::kStore && region != Region::kArena)) {
      return InvalidArgument("{}: instruction {} ({}): region {} is not valid for this instruction",
                             where, i, isa::Disassemble(insn), RegionName(region));
    }
    if (insn.dram_span() == 0) continue;
    const uint64_t end = (uint64_t{insn.dram_base} + insn.dram_span()) * isa::ElemBytes(c_, insn.buffer);
    const uint64_t limit = region_bytes[rv];
    if (end > limit) {
      return OutOfRange(
          "{}: instruction {} ({}): DMA reaches byte {} of the {} region, which holds {} bytes",
          where, i, isa::Disassemble(insn), end, RegionName(region), limit);
    }
  }
  return Status::Ok();
}

}  // namespace loom::runtime
