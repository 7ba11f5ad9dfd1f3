#include "compiler/package/writer.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <type_traits>

#include "runtime/io/file.h"
#include "runtime/package/format.h"
#include "runtime/package/package.h"

namespace loom::package {
namespace {

namespace fb = flatbuffers;

pkg::Window ToFb(const Window& w) {
  return pkg::Window(w.kh, w.kw, w.stride_h, w.stride_w, w.pad_top, w.pad_left, w.pad_bottom,
                     w.pad_right);
}
pkg::Requant ToFb(const Requant& r) {
  return pkg::Requant(r.pre_shift, r.post_shift, r.clip_lo, r.clip_hi);
}

// Whether a 1.9 reader would misread the package: a zero point, pad value or offset other than 0
// (loom_package.fbs, "Versioning").
bool UsesZeroPoints(const PackageSpec& spec) {
  for (const TensorSpec& t : spec.tensors) {
    if (t.zero_point != 0) return true;
  }
  for (const SegmentSpec& s : spec.segments) {
    for (const OpSpec& op : s.ops) {
      if (const auto* c = std::get_if<Conv2dParams>(&op.params); c && c->pad_value != 0)
        return true;
      if (const auto* m = std::get_if<MulParams>(&op.params);
          m && (m->a_offset != 0 || m->out_offset != 0)) {
        return true;
      }
      if (const auto* a = std::get_if<AvgPoolParams>(&op.params);
          a && (a->x_offset != 0 || a->out_offset != 0)) {
        return true;
      }
    }
  }
  return false;
}

// Returns the union type and offset of an op's parameters.
std::pair<pkg::OpParams, fb::Offset<void>> BuildParams(fb::FlatBufferBuilder& b, const OpParams& p) {
  return std::visit(
      [&](const auto& v) -> std::pair<pkg::OpParams, fb::Offset<void>> {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, Conv2dParams>) {
          const pkg::Window w = ToFb(v.window);
          const pkg::Requant r = ToFb(v.requant);
          return {pkg::OpParams::Conv2d,
                  pkg::CreateConv2d(b, &w, v.depthwise, &r, v.pad_value, v.groups).Union()};
        } else if constexpr (std::is_same_v<T, AddParams>) {
          return {pkg::OpParams::Add,
                  pkg::CreateAdd(b, v.mult_a, v.mult_b, v.shift, v.clip_lo, v.clip_hi).Union()};
        } else if constexpr (std::is_same_v<T, MulParams>) {
          const pkg::Requant r = ToFb(v.requant);
          return {pkg::OpParams::Mul, pkg::CreateMul(b, v.b_mult, v.b_offset, v.b_lo, v.b_hi,
                                                     v.mult, &r, v.a_offset, v.out_offset)
                                          .Union()};
        } else if constexpr (std::is_same_v<T, ResizeParams>) {
          return {pkg::OpParams::Resize, pkg::CreateResize(b, v.factor_h, v.factor_w).Union()};
        } else if constexpr (std::is_same_v<T, ZeroInsertParams>) {
          return {pkg::OpParams::ZeroInsert,
                  pkg::CreateZeroInsert(b, v.stride_h, v.stride_w).Union()};
        } else if constexpr (std::is_same_v<T, MaxPoolParams>) {
          const pkg::Window w = ToFb(v.window);
          return {pkg::OpParams::MaxPool, pkg::CreateMaxPool(b, &w).Union()};
        } else if constexpr (std::is_same_v<T, AvgPoolParams>) {
          const pkg::Window w = ToFb(v.window);
          const pkg::Requant r = ToFb(v.requant);
          return {
              pkg::OpParams::AvgPool,
              pkg::CreateAvgPool(b, &w, v.count_include_pad, &r, v.x_offset, v.out_offset).Union()};
        } else if constexpr (std::is_same_v<T, ConcatParams>) {
          return {pkg::OpParams::Concat,
                  pkg::CreateConcat(b, b.CreateVector(v.mults), b.CreateVector(v.shifts)).Union()};
        } else if constexpr (std::is_same_v<T, QuantizeParams>) {
          return {pkg::OpParams::Quantize, pkg::CreateQuantize(b).Union()};
        } else if constexpr (std::is_same_v<T, DequantizeParams>) {
          return {pkg::OpParams::Dequantize, pkg::CreateDequantize(b).Union()};
        } else if constexpr (std::is_same_v<T, RelayoutParams>) {
          return {pkg::OpParams::Relayout, pkg::CreateRelayout(b).Union()};
        } else {
          std::vector<fb::Offset<pkg::FloatAttr>> attrs;
          for (const FloatAttr& a : v.attrs) {
            const fb::Offset<fb::String> text = a.text ? b.CreateString(*a.text) : 0;
            attrs.push_back(pkg::CreateFloatAttr(b, b.CreateString(a.name), b.CreateVector(a.ints),
                                                 b.CreateVector(a.floats), text));
          }
          return {pkg::OpParams::FloatOp,
                  pkg::CreateFloatOp(b, b.CreateString(v.op), b.CreateVector(attrs)).Union()};
        }
      },
      p);
}

Status BuildProgram(fb::FlatBufferBuilder& b, const HwConfig& config, const isa::Layout& layout,
                    const ProgramSpec& p, const std::string& where,
                    fb::Offset<pkg::AccelProgram>* out) {
  std::vector<uint8_t> bytes = p.insn_bytes;
  if (!p.insns.empty()) {
    if (!bytes.empty()) return InvalidArgument(where + ": give insns or insn_bytes, not both");
    bytes.resize(p.insns.size() * HwConfig::kInsnBytes);
    for (size_t i = 0; i < p.insns.size(); ++i) {
      isa::Word128 w;
      if (Status s = isa::Encode(layout, p.insns[i], &w); !s.ok()) {
        return InvalidArgument(where + ": instruction " + std::to_string(i) + ": " + s.message());
      }
      isa::StoreWord(w, bytes.data() + i * HwConfig::kInsnBytes);
    }
  }
  std::vector<uint32_t> words = p.uop_words;
  if (!p.uops.empty()) {
    if (!words.empty()) return InvalidArgument(where + ": give uops or uop_words, not both");
    words.resize(p.uops.size());
    for (size_t i = 0; i < p.uops.size(); ++i) {
      if (Status s = isa::EncodeUop(layout, p.uops[i], &words[i]); !s.ok()) {
        return InvalidArgument(where + ": micro-op " + std::to_string(i) + ": " + s.message());
      }
    }
  }
  (void)config;
  std::vector<uint8_t> regions(p.regions.size());
  for (size_t i = 0; i < p.regions.size(); ++i) regions[i] = static_cast<uint8_t>(p.regions[i]);
  const auto insns = b.CreateVector(bytes);
  const auto regs = b.CreateVector(reinterpret_cast<const pkg::Region*>(regions.data()), regions.size());
  const auto uops = b.CreateVector(words);
  *out = pkg::CreateAccelProgram(b, insns, regs, uops);
  return Status::Ok();
}

fb::Offset<pkg::HwConfigTable> BuildConfig(fb::FlatBufferBuilder& b, const HwConfig& c) {
  return pkg::CreateHwConfigTable(
      b, b.CreateString(c.name), c.batch, c.block_in, c.block_out, c.inp_bits, c.wgt_bits,
      c.acc_bits, c.out_bits, c.uop_buffer_bytes, c.inp_buffer_bytes, c.wgt_buffer_bytes,
      c.acc_buffer_bytes, c.token_queue_depth, c.cmd_queue_depth, c.axi_data_bits,
      c.dma_burst_latency, c.dma_max_burst_beats, c.clock_mhz);
}

}  // namespace

Status HashFile(const std::string& path, uint64_t* fnv1a) {
  // The model file the importer already read under the same cap; a FIFO or device node in its
  // place is refused rather than read forever.
  std::vector<uint8_t> bytes;
  LOOM_RETURN_IF_ERROR(ReadFileBytes(path, "model", kMaxModelFileBytes, &bytes));
  *fnv1a = runtime::Fnv1a64(bytes.data(), bytes.size());
  return Status::Ok();
}

Status SerializePackage(const PackageSpec& spec, std::vector<uint8_t>* out,
                        const WriteOptions& options) {
  isa::Layout layout;
  if (Status s = spec.config.Validate(); !s.ok()) return s.WithContext("package config");
  LOOM_RETURN_IF_ERROR(isa::Layout::Create(spec.config, &layout));

  fb::FlatBufferBuilder b(1 << 16);
  std::vector<fb::Offset<pkg::Tensor>> tensors;
  for (size_t i = 0; i < spec.tensors.size(); ++i) {
    const TensorSpec& t = spec.tensors[i];
    uint64_t size = t.size;
    if (size == 0) {
      fb::FlatBufferBuilder sb;
      sb.Finish(sb.CreateVector(t.shape));
      const auto* shape = fb::GetRoot<fb::Vector<uint32_t>>(sb.GetBufferPointer());
      if (Status s = runtime::TensorBytes(spec.config, t.dtype, t.layout, shape, &size); !s.ok()) {
        return InvalidArgument("tensor " + std::to_string(i) + " '" + t.name + "': " + s.message());
      }
    }
    tensors.push_back(pkg::CreateTensor(b, b.CreateString(t.name), t.dtype, t.layout,
                                        b.CreateVector(t.shape), t.storage, t.offset, size, t.scale,
                                        t.zero_point));
  }
  std::vector<fb::Offset<pkg::Segment>> segments;
  for (size_t si = 0; si < spec.segments.size(); ++si) {
    const SegmentSpec& s = spec.segments[si];
    std::vector<fb::Offset<pkg::Op>> ops;
    uint64_t macs = 0;
    for (const OpSpec& op : s.ops) {
      const auto [type, params] = BuildParams(b, op.params);
      ops.push_back(pkg::CreateOp(b, b.CreateString(op.name), type, params, b.CreateVector(op.inputs),
                                  b.CreateVector(op.outputs), op.macs, op.insn_begin,
                                  op.insn_end));
      macs += op.macs;
    }
    fb::Offset<pkg::AccelProgram> program;
    if (s.has_program) {
      LOOM_RETURN_IF_ERROR(BuildProgram(b, spec.config, layout, s.program,
                                        "segment " + std::to_string(si) + " '" + s.name + "'", &program));
    }
    segments.push_back(pkg::CreateSegment(b, b.CreateString(s.name), s.kind, b.CreateVector(ops),
                                          program, s.macs ? s.macs : macs));
  }
  auto bindings = [&](const std::vector<BindingSpec>& list) {
    std::vector<fb::Offset<pkg::Binding>> v;
    for (const BindingSpec& bs : list) {
      v.push_back(pkg::CreateBinding(b, b.CreateString(bs.name), bs.tensor, b.CreateVector(bs.shape)));
    }
    return b.CreateVector(v);
  };
  const auto inputs = bindings(spec.inputs);
  const auto outputs = bindings(spec.outputs);
  const auto& pv = spec.provenance;
  const auto provenance =
      pkg::CreateProvenance(b, b.CreateString(pv.model_name), pv.model_fnv1a,
                            b.CreateString(pv.compiler_version), b.CreateString(pv.command_line));
  std::vector<fb::Offset<pkg::NativeCode>> native;
  for (const NativeCodeSpec& n : spec.native) {
    std::vector<fb::Offset<pkg::NativeSymbol>> symbols;
    for (const NativeSymbolSpec& s : n.symbols) {
      symbols.push_back(pkg::CreateNativeSymbol(b, s.segment, s.op, b.CreateString(s.name)));
    }
    std::vector<fb::Offset<fb::String>> features;
    for (const std::string& f : n.features) features.push_back(b.CreateString(f));
    const auto target = b.CreateString(n.target);
    const auto cpu = b.CreateString(n.cpu);
    const auto feature_vec = b.CreateVector(features);
    b.ForceVectorAlignment(n.object.size(), sizeof(uint8_t), 16);
    const auto object = b.CreateVector(n.object);
    native.push_back(pkg::CreateNativeCode(b, target, cpu, feature_vec, object,
                                           b.CreateVector(symbols), n.workspace_bytes));
  }
  fb::Offset<fb::Vector<fb::Offset<pkg::NativeCode>>> native_vec;  // absent when empty
  if (!native.empty()) native_vec = b.CreateVector(native);
  b.ForceVectorAlignment(spec.constants.size(), sizeof(uint8_t), 32);
  const auto constants = b.CreateVector(spec.constants);
  const auto config = BuildConfig(b, spec.config);
  const auto board = b.CreateString(spec.board);
  const auto tensor_vec = b.CreateVector(tensors);
  const auto segment_vec = b.CreateVector(segments);
  const uint64_t hash = spec.config_hash ? spec.config_hash : spec.config.CompatibilityHash();
  const uint16_t major = spec.version_major     ? spec.version_major
                         : UsesZeroPoints(spec) ? runtime::kSchemaVersionMajorZeroPoints
                                                : runtime::kSchemaVersionMajor;
  const auto root = pkg::CreatePackage(b, major, runtime::kSchemaVersionMinor, config, hash, board,
                                       constants, spec.arena_bytes, tensor_vec, segment_vec, inputs,
                                       outputs, provenance, native_vec);
  pkg::FinishPackageBuffer(b, root);

  out->resize(runtime::kHeaderBytes + b.GetSize());
  std::memcpy(out->data() + runtime::kHeaderBytes, b.GetBufferPointer(), b.GetSize());
  runtime::EncodeHeader(out->data() + runtime::kHeaderBytes, b.GetSize(), out->data());
  if (options.verify) {
    std::unique_ptr<runtime::Package> loaded;
    if (Status s = runtime::Package::LoadMemory(out->data(), out->size(), &loaded); !s.ok()) {
      return s.WithContext("the written package does not load");
    }
  }
  return Status::Ok();
}

Status WritePackage(const PackageSpec& spec, const std::string& path, const WriteOptions& options) {
  std::vector<uint8_t> bytes;
  LOOM_RETURN_IF_ERROR(SerializePackage(spec, &bytes, options));
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return NotFound("cannot create " + tmp);
  const bool wrote = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  const bool closed = std::fclose(f) == 0;
  if (!wrote || !closed) {
    std::remove(tmp.c_str());
    return DataLoss("cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return NotFound("cannot move " + tmp + " to " + path);
  }
  return Status::Ok();
}

}  // namespace loom::package
