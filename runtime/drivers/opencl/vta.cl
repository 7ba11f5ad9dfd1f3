// The Loom accelerator (docs/isa.md) as an OpenCL C kernel: one work-item interprets the
// instruction stream with the machine's three modules, token queues and command queues, bit for
// bit what sim/fsim/machine.cc computes. Timing is not modelled: any order the tokens allow gives
// the same result for a race-free program (isa.md §1.5), so the interpreter runs the modules in
// turn, each as far as its tokens let it.
//
// The host (opencl_driver.cc) builds this source with the HwConfig as -D options (LOOM_*, below)
// and launches `loom_run` repeatedly with a work budget: the whole machine state lives in
// `state`, so a launch that runs out of budget returns and the next one resumes where it stopped.
// That is what lets the host enforce timeouts without cancelling a kernel. Errors stop the run
// with a code and the values the host needs to write fsim's message (opencl_status.cc).
//
// Shared with the host through opencl_abi.h: the layouts of `state` and `prog` and the codes.

#include "opencl_abi.h"

#define LANES (LOOM_BATCH * LOOM_BLOCK_OUT)
#define INP_ELEM (LOOM_BATCH * LOOM_BLOCK_IN)
#define WGT_ELEM (LOOM_BLOCK_OUT * LOOM_BLOCK_IN)
#define ACC_ELEM (4 * LANES)
#define OUT_ELEM LANES
#define WINDOW (LOOM_BLOCK_IN / 2) /* the depthwise GEMM's taps, T of isa.md §3.3.1 */
#define UOP_SRC_BITS (LOOM_INP_BITS > LOOM_ACC_BITS ? LOOM_INP_BITS : LOOM_ACC_BITS)
#define NONE 0xffffffffu

// ---------------------------------------------------------------------------------------------
// Decoding: the one place that knows the bit layout of docs/isa.md §2.

typedef struct {
  ulong lo, hi;
  uint pos;  // next field's lowest bit
} Word;

// The next `width` bits of the word (fields are packed from bit 0 upward, isa.md §2.1).
uint take(Word* w, uint width) {
  const uint lsb = w->pos;
  w->pos += width;
  ulong v = 0;
  if (lsb < 64) v = w->lo >> lsb;
  if (lsb + width > 64) v |= lsb >= 64 ? w->hi >> (lsb - 64) : w->hi << (64 - lsb);
  return width == 0 ? 0u : (uint)(v & ((1ul << width) - 1ul));
}

int sign_extend(uint v, uint width) {
  const uint m = 1u << (width - 1);
  return (int)((v ^ m) - m);
}

// Bits at and above the word's last field must be zero.
bool reserved_clear(const Word* w) {
  if (w->pos >= 128) return true;
  if (w->pos >= 64) return (w->hi >> (w->pos - 64)) == 0;
  return (w->lo >> w->pos) == 0 && w->hi == 0;
}

uint module_of(uint op, uint buffer) {
  if (op == OP_LOAD) return buffer == BUF_INP || buffer == BUF_WGT ? MOD_LOAD : MOD_COMPUTE;
  return op == OP_STORE ? MOD_STORE : MOD_COMPUTE;
}

uint depth_of(uint buffer) {
  switch (buffer) {
    case BUF_UOP: return LOOM_UOP_DEPTH;
    case BUF_WGT: return LOOM_WGT_DEPTH;
    case BUF_INP: return LOOM_INP_DEPTH;
    default: return LOOM_ACC_DEPTH;
  }
}

// Decodes instruction word (lo, hi) into p[0..P_WORDS). False when the word breaks a static rule
// of isa.md §4; the host then asks isa::Decode for the exact message.
bool decode(ulong lo, ulong hi, global uint* p) {
  Word w = {lo, hi, 0};
  for (uint k = 0; k < P_WORDS; ++k) p[k] = 0;
  const uint op = take(&w, 3);
  const uint flags = take(&w, 4);
  p[P_OP] = op;
  p[P_FLAGS] = flags;
  if (op == OP_LOAD || op == OP_STORE) {
    p[P_BUFFER] = take(&w, 3);
    p[P_SRAM] = take(&w, LOOM_SRAM_BITS);
    p[P_DRAM] = take(&w, 32);
    p[P_Y] = take(&w, 16);
    p[P_X] = take(&w, 16);
    p[P_STRIDE] = take(&w, 16);
    p[P_PAD_TOP] = take(&w, 4);
    p[P_PAD_BOTTOM] = take(&w, 4);
    p[P_PAD_LEFT] = take(&w, 4);
    p[P_PAD_RIGHT] = take(&w, 4);
    p[P_PAD_VALUE] = (uint)sign_extend(take(&w, 8), 8);
  } else if (op == OP_GEMM || op == OP_ALU) {
    if (op == OP_GEMM) {
      p[P_RESET] = take(&w, 1);
    } else {
      p[P_ALU_OP] = take(&w, 3);
      p[P_USE_IMM] = take(&w, 1);
    }
    p[P_UOP_BGN] = take(&w, LOOM_UOP_BITS);
    p[P_UOP_END] = take(&w, LOOM_UOP_BITS + 1);
    p[P_LOOP_OUT] = take(&w, 14);
    p[P_LOOP_IN] = take(&w, 14);
    p[P_DST_OUT] = take(&w, LOOM_ACC_BITS);
    p[P_DST_IN] = take(&w, LOOM_ACC_BITS);
    if (op == OP_ALU && p[P_ALU_OP] == ALU_REQUANT) {  // its own fields in place of src and imm
      p[P_PRE_SHIFT] = (uint)sign_extend(take(&w, 6), 6);
      p[P_POST_SHIFT] = (uint)sign_extend(take(&w, 6), 6);
      p[P_CLIP_LO] = (uint)sign_extend(take(&w, 8), 8);
      p[P_CLIP_HI] = (uint)sign_extend(take(&w, 8), 8);
      p[P_CLEAR] = take(&w, 1);
      p[P_FUSE] = take(&w, 1);
      if (!reserved_clear(&w)) return false;
      if (p[P_USE_IMM] || (int)p[P_CLIP_LO] > (int)p[P_CLIP_HI]) return false;
      if (p[P_FUSE] && !p[P_CLEAR]) return false;
      if (p[P_UOP_BGN] >= p[P_UOP_END] || p[P_UOP_END] > LOOM_UOP_DEPTH) return false;
      p[P_MODULE] = MOD_COMPUTE;  // every flag exists on compute: no other check applies
      return true;
    }
    const uint src_bits = op == OP_GEMM ? LOOM_INP_BITS : LOOM_ACC_BITS;
    p[P_SRC_OUT] = take(&w, src_bits);
    p[P_SRC_IN] = take(&w, src_bits);
    if (op == OP_GEMM) {
      p[P_WGT_OUT] = take(&w, LOOM_WGT_BITS);
      p[P_WGT_IN] = take(&w, LOOM_WGT_BITS);
      p[P_DEPTHWISE] = take(&w, 1);
    } else {
      p[P_IMM] = (uint)(int)(short)take(&w, 16);  // sign-extended
    }
  } else if (op != OP_FINISH) {
    return false;  // unknown opcode
  }
  if (!reserved_clear(&w)) return false;

  // The static checks of isa.md §4, in any order: the host only needs to know that one failed.
  const bool pop_prev = flags & 1, pop_next = flags & 2, push_prev = flags & 4, push_next = flags & 8;
  const uint m = module_of(op, p[P_BUFFER]);
  p[P_MODULE] = m;
  if (m == MOD_LOAD && (pop_prev || push_prev)) return false;
  if (m == MOD_STORE && (pop_next || push_next)) return false;
  if (op == OP_FINISH && (push_prev || push_next)) return false;
  if (op == OP_LOAD || op == OP_STORE) {
    const uint b = p[P_BUFFER];
    if (b > BUF_OUT) return false;
    if ((op == OP_LOAD) == (b == BUF_OUT)) return false;
    const bool padded = p[P_PAD_TOP] | p[P_PAD_BOTTOM] | p[P_PAD_LEFT] | p[P_PAD_RIGHT];
    const bool empty = p[P_Y] == 0 || p[P_X] == 0;
    if (padded && (op == OP_STORE || b == BUF_UOP || empty)) return false;
    if (p[P_PAD_VALUE] != 0 && (op != OP_LOAD || b != BUF_INP)) return false;
    if (p[P_Y] > 1 && p[P_STRIDE] < p[P_X]) return false;
    const ulong extent =
        empty ? 0
              : (ulong)(p[P_PAD_TOP] + p[P_Y] + p[P_PAD_BOTTOM]) *
                    (p[P_PAD_LEFT] + p[P_X] + p[P_PAD_RIGHT]);
    if (p[P_SRAM] + extent > depth_of(b)) return false;
  }
  if (op == OP_GEMM || op == OP_ALU) {
    if (p[P_UOP_BGN] >= p[P_UOP_END] || p[P_UOP_END] > LOOM_UOP_DEPTH) return false;
  }
  if (op == OP_GEMM && p[P_DEPTHWISE] && p[P_RESET]) return false;
  if (op == OP_ALU) {
    if (p[P_ALU_OP] == ALU_RQPARAM && p[P_USE_IMM]) return false;
    if (!p[P_USE_IMM] && p[P_IMM] != 0) return false;
    if (p[P_USE_IMM] && (p[P_SRC_OUT] || p[P_SRC_IN])) return false;
  }
  return true;
}

// The token queues an instruction pops and pushes (isa.md §1.3), as bit masks over Q_*.
uint queue_of(uint module, bool prev, bool push) {
  if (module == MOD_LOAD) return push ? Q_LOAD_TO_COMPUTE : Q_COMPUTE_TO_LOAD;
  if (module == MOD_STORE) return push ? Q_STORE_TO_COMPUTE : Q_COMPUTE_TO_STORE;
  if (prev) return push ? Q_COMPUTE_TO_LOAD : Q_LOAD_TO_COMPUTE;
  return push ? Q_COMPUTE_TO_STORE : Q_STORE_TO_COMPUTE;
}

// ---------------------------------------------------------------------------------------------
// The machine: on-chip buffers, DRAM and the error report.

typedef struct {
  global uchar* dram;
  ulong dram_base, dram_bytes;
  global uint* uop;  // decoded micro-ops, 3 words each: dst, src, wgt
  global char* inp;  // then the depthwise window: WINDOW elements, slot 0 the newest
  global char* wgt;
  global int* acc;
  global char* out;
  global ulong* state;
} Machine;

bool dram_contains(const Machine* m, ulong addr, ulong n) {
  return addr >= m->dram_base && n <= m->dram_bytes && addr - m->dram_base <= m->dram_bytes - n;
}

// Stops the run with `code` at instruction `insn`; a, b: the values the message names.
void fail(const Machine* m, uint code, uint insn, ulong a, ulong b) {
  m->state[S_PHASE] = PHASE_ERROR;
  m->state[S_ERR_CODE] = code;
  m->state[S_ERR_INSN] = insn;
  m->state[S_ERR_A] = a;
  m->state[S_ERR_B] = b;
}

int wrap_add(int a, int b) { return (int)((uint)a + (uint)b); }
char saturate8(int v) { return (char)clamp(v, -128, 127); }

int alu_apply(uint op, int a, int x) {
  switch (op) {
    case ALU_MIN: return min(a, x);
    case ALU_MAX: return max(a, x);
    case ALU_ADD: return wrap_add(a, x);
    case ALU_MUL: return (int)(uint)((long)a * (long)x);
    default: {  // SHR, SHR_RND
      const int n = clamp(x, -31, 31);
      if (n < 0) return (int)((uint)a << (uint)(-n));
      if (op == ALU_SHR_RND && n > 0) return (int)(((long)a + (1l << (n - 1))) >> n);
      return a >> n;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// One function per instruction kind. Each returns false after fail().

// Element `index` of `buffer` from its little-endian DRAM image at `src`.
bool fill_element(const Machine* m, uint insn, uint buffer, uint index, global const uchar* src) {
  switch (buffer) {
    case BUF_UOP: {
      const uint word = src[0] | (uint)src[1] << 8 | (uint)src[2] << 16 | (uint)src[3] << 24;
      const uint bits = LOOM_ACC_BITS + UOP_SRC_BITS + LOOM_WGT_BITS;
      if (bits < 32 && (word >> (bits & 31)) != 0) {
        fail(m, ERR_UOP, insn, word, 0);
        return false;
      }
      Word w = {word, 0, 0};
      m->uop[3 * index + 0] = take(&w, LOOM_ACC_BITS);
      m->uop[3 * index + 1] = take(&w, UOP_SRC_BITS);
      m->uop[3 * index + 2] = take(&w, LOOM_WGT_BITS);
      return true;
    }
    case BUF_INP:
      for (uint k = 0; k < INP_ELEM; ++k) m->inp[(ulong)index * INP_ELEM + k] = (char)src[k];
      return true;
    case BUF_WGT:
      for (uint k = 0; k < WGT_ELEM; ++k) m->wgt[(ulong)index * WGT_ELEM + k] = (char)src[k];
      return true;
    default:  // BUF_ACC
      for (uint l = 0; l < LANES; ++l) {
        global const uchar* b = src + 4 * l;
        m->acc[(ulong)index * LANES + l] =
            (int)(b[0] | (uint)b[1] << 8 | (uint)b[2] << 16 | (uint)b[3] << 24);
      }
      return true;
  }
}

// A padding element (isa.md §3.1): every INP lane holds the instruction's pad_value, every lane
// of the other buffers zero (decode keeps pad_value 0 off INP).
void pad_element(const Machine* m, uint buffer, uint index, int pad_value) {
  switch (buffer) {
    case BUF_UOP:
      for (uint k = 0; k < 3; ++k) m->uop[3 * index + k] = 0;
      break;
    case BUF_INP:
      for (uint k = 0; k < INP_ELEM; ++k) m->inp[(ulong)index * INP_ELEM + k] = (char)pad_value;
      break;
    case BUF_WGT:
      for (uint k = 0; k < WGT_ELEM; ++k) m->wgt[(ulong)index * WGT_ELEM + k] = 0;
      break;
    default:
      for (uint l = 0; l < LANES; ++l) m->acc[(ulong)index * LANES + l] = 0;
      break;
  }
}

uint elem_bytes(uint buffer) {
  switch (buffer) {
    case BUF_UOP: return 4;
    case BUF_WGT: return WGT_ELEM;
    case BUF_INP: return INP_ELEM;
    case BUF_ACC: return ACC_ELEM;
    default: return OUT_ELEM;
  }
}

// LOAD: 2-D strided DMA with padding (isa.md §3.1).
bool exec_load(const Machine* m, uint insn, global const uint* p) {
  if (p[P_Y] == 0 || p[P_X] == 0) return true;
  const uint b = p[P_BUFFER], eb = elem_bytes(b);
  const uint top = p[P_PAD_TOP], left = p[P_PAD_LEFT], ys = p[P_Y], xs = p[P_X];
  const uint width = left + xs + p[P_PAD_RIGHT];
  const uint height = top + ys + p[P_PAD_BOTTOM];
  uint index = p[P_SRAM];
  for (uint y = 0; y < height; ++y) {
    const bool pad_row = y < top || y >= top + ys;
    ulong row = 0;
    if (!pad_row) {
      row = ((ulong)p[P_DRAM] + (ulong)(y - top) * p[P_STRIDE]) * eb;
      if (!dram_contains(m, row, (ulong)xs * eb)) {
        fail(m, ERR_DMA_READ, insn, row, (ulong)xs * eb);
        return false;
      }
    }
    for (uint x = 0; x < width; ++x, ++index) {
      if (pad_row || x < left || x >= left + xs) {
        pad_element(m, b, index, (int)p[P_PAD_VALUE]);
      } else if (!fill_element(m, insn, b, index,
                               m->dram + (row - m->dram_base) + (ulong)(x - left) * eb)) {
        return false;
      }
    }
  }
  return true;
}

// STORE: OUT rows to DRAM (isa.md §3.2).
bool exec_store(const Machine* m, uint insn, global const uint* p) {
  if (p[P_Y] == 0 || p[P_X] == 0) return true;
  const ulong bytes = (ulong)p[P_X] * OUT_ELEM;
  for (uint y = 0; y < p[P_Y]; ++y) {
    const ulong row = ((ulong)p[P_DRAM] + (ulong)y * p[P_STRIDE]) * OUT_ELEM;
    if (!dram_contains(m, row, bytes)) {
      fail(m, ERR_DMA_WRITE, insn, row, bytes);
      return false;
    }
    global const char* src = m->out + ((ulong)p[P_SRAM] + (ulong)y * p[P_X]) * LANES;
    global uchar* dst = m->dram + (row - m->dram_base);
    for (ulong k = 0; k < bytes; ++k) dst[k] = (uchar)src[k];
  }
  return true;
}

// The buffer indices of micro-op u in loop iteration (i0, i1) (isa.md §3.3); exact, never
// truncated to a field width.
ulong index_of(uint base, uint i0, uint f0, uint i1, uint f1) {
  return (ulong)base + (ulong)i0 * f0 + (ulong)i1 * f1;
}

// One depthwise GEMM iteration (isa.md §3.3.1): shift `in` into the window, then lane o weighs
// channel (o & ~1) | (i / WINDOW) of window slot i % WINDOW with WGT column i. Requires
// block_in == block_out (exec_gemm checks).
void depthwise_step(global char* window, global const char* in, global const char* wt,
                    global int* acc, global char* out) {
  for (uint k = (WINDOW - 1) * INP_ELEM; k > 0; --k) window[k - 1 + INP_ELEM] = window[k - 1];
  for (uint k = 0; k < INP_ELEM; ++k) window[k] = in[k];
  for (uint b = 0; b < LOOM_BATCH; ++b) {
    for (uint o = 0; o < LOOM_BLOCK_OUT; ++o) {
      int sum = 0;
      for (uint i = 0; i < LOOM_BLOCK_IN; ++i) {
        const uint channel = (o & ~1u) | (i / WINDOW);
        sum += (int)window[(i % WINDOW) * INP_ELEM + b * LOOM_BLOCK_IN + channel] *
               (int)wt[o * LOOM_BLOCK_IN + i];
      }
      const uint l = b * LOOM_BLOCK_OUT + o;
      acc[l] = wrap_add(acc[l], sum);
      out[l] = saturate8(acc[l]);
    }
  }
}

// REQUANT of `a` (isa.md §3.4.1) with instruction p's shifts and clip.
int requant(global const uint* p, int a, int bias, int mult) {
  int v = alu_apply(ALU_ADD, a, bias);
  v = alu_apply(ALU_SHR_RND, v, (int)p[P_PRE_SHIFT]);
  v = alu_apply(ALU_MUL, v, mult);
  v = alu_apply(ALU_SHR_RND, v, (int)p[P_POST_SHIFT]);
  return clamp(v, (int)p[P_CLIP_LO], (int)p[P_CLIP_HI]);
}

// The fused REQUANT's epilogue (isa.md §3.4.2) on ACC element `acc` after a GEMM update: OUT gets
// the requantized sum, ACC is left zero. `rq` is the arming instruction, `entry` its parameters.
void epilogue(const Machine* m, global const uint* rq, ulong entry, global int* acc,
              global char* out) {
  global const int* bias = m->acc + (LOOM_ACC_DEPTH + entry) * LANES;
  global const int* mult = bias + RQP_DEPTH * LANES;
  for (uint l = 0; l < LANES; ++l) {
    out[l] = saturate8(requant(rq, acc[l], bias[l], mult[l]));
    acc[l] = 0;
  }
}

// GEMM and ALU run their loop nest from iteration `*iter` (i0 * loop_in + i1) and stop early,
// returning with *iter at the next iteration, once `*budget` is spent. Returns false after fail().
bool exec_gemm(const Machine* m, uint insn, global const uint* p, global const uint* prog,
               ulong* iter, long* budget) {
  const ulong total = (ulong)p[P_LOOP_OUT] * p[P_LOOP_IN];
  // A fused REQUANT's epilogue, armed before this GEMM (finish_insn disarms it when it completes).
  const ulong epi = m->state[S_EPI_INSN], entry = m->state[S_EPI_ENTRY];
  global const uint* rq = epi ? prog + (epi - 1) * P_WORDS : 0;
  const uint ubgn = p[P_UOP_BGN], uend = p[P_UOP_END];
  const bool depthwise = p[P_DEPTHWISE];
  // The depthwise window lives past INP, so that it survives a launch that runs out of budget
  // mid-instruction; it starts as all-zero elements at the instruction's first iteration.
  global char* window = m->inp + (ulong)LOOM_INP_DEPTH * INP_ELEM;
  if (depthwise && *iter == 0) {
    if (LOOM_BLOCK_IN != LOOM_BLOCK_OUT) {
      fail(m, ERR_DEPTHWISE, insn, 0, 0);
      return false;
    }
    for (uint k = 0; k < WINDOW * INP_ELEM; ++k) window[k] = 0;
  }
  for (; *iter < total && *budget > 0; ++*iter) {
    const uint i0 = (uint)(*iter / p[P_LOOP_IN]), i1 = (uint)(*iter % p[P_LOOP_IN]);
    *budget -= (long)(uend - ubgn) * (p[P_RESET] ? 1 : LOOM_BATCH * LOOM_BLOCK_IN);
    for (uint u = ubgn; u < uend; ++u) {
      global const uint* uop = m->uop + 3 * u;
      const ulong d = index_of(uop[0], i0, p[P_DST_OUT], i1, p[P_DST_IN]);
      const ulong s = index_of(uop[1], i0, p[P_SRC_OUT], i1, p[P_SRC_IN]);
      const ulong w = index_of(uop[2], i0, p[P_WGT_OUT], i1, p[P_WGT_IN]);
      if (d >= LOOM_ACC_DEPTH) {
        fail(m, ERR_INDEX, insn, BUF_ACC, d);
        return false;
      }
      global int* acc = m->acc + d * LANES;
      global char* out = m->out + d * LANES;
      if (p[P_RESET]) {
        for (uint l = 0; l < LANES; ++l) acc[l] = 0, out[l] = 0;
        if (rq) epilogue(m, rq, entry, acc, out);
        continue;
      }
      if (s >= LOOM_INP_DEPTH) {
        fail(m, ERR_INDEX, insn, BUF_INP, s);
        return false;
      }
      if (w >= LOOM_WGT_DEPTH) {
        fail(m, ERR_INDEX, insn, BUF_WGT, w);
        return false;
      }
      global const char* in = m->inp + s * INP_ELEM;
      global const char* wt = m->wgt + w * WGT_ELEM;
      if (depthwise) {
        depthwise_step(window, in, wt, acc, out);
        if (rq) epilogue(m, rq, entry, acc, out);
        continue;
      }
      for (uint b = 0; b < LOOM_BATCH; ++b) {
        for (uint o = 0; o < LOOM_BLOCK_OUT; ++o) {
          int sum = 0;
          for (uint i = 0; i < LOOM_BLOCK_IN; ++i) {
            sum += (int)in[b * LOOM_BLOCK_IN + i] * (int)wt[o * LOOM_BLOCK_IN + i];
          }
          const uint l = b * LOOM_BLOCK_OUT + o;
          acc[l] = wrap_add(acc[l], sum);
          out[l] = saturate8(acc[l]);
        }
      }
      if (rq) epilogue(m, rq, entry, acc, out);
    }
  }
  return true;
}

bool exec_alu(const Machine* m, uint insn, global const uint* p, ulong* iter, long* budget) {
  const ulong total = (ulong)p[P_LOOP_OUT] * p[P_LOOP_IN];
  if (m->state[S_EPI_INSN]) {
    fail(m, ERR_EPILOGUE, insn, 0, 0);
    return false;
  }
  const uint ubgn = p[P_UOP_BGN], uend = p[P_UOP_END], op = p[P_ALU_OP];
  const bool use_imm = p[P_USE_IMM];
  const int imm = (int)p[P_IMM];
  for (; *iter < total && *budget > 0; ++*iter) {
    const uint i0 = (uint)(*iter / p[P_LOOP_IN]), i1 = (uint)(*iter % p[P_LOOP_IN]);
    *budget -= (long)(uend - ubgn);
    for (uint u = ubgn; u < uend; ++u) {
      global const uint* uop = m->uop + 3 * u;
      const ulong d = index_of(uop[0], i0, p[P_DST_OUT], i1, p[P_DST_IN]);
      const ulong s = index_of(uop[1], i0, p[P_SRC_OUT], i1, p[P_SRC_IN]);
      if (d >= LOOM_ACC_DEPTH) {
        fail(m, ERR_INDEX, insn, BUF_ACC, d);
        return false;
      }
      if (!use_imm && op != ALU_REQUANT && s >= LOOM_ACC_DEPTH) {
        fail(m, ERR_INDEX, insn, BUF_ACC, s);
        return false;
      }
      global int* dst = m->acc + d * LANES;
      global const int* src = m->acc + (use_imm || op == ALU_REQUANT ? d : s) * LANES;
      global char* out = m->out + d * LANES;
      // REQUANT's parameter buffer, past ACC (opencl_driver.cc sizes it); uop[2] is the entry.
      if ((op == ALU_RQPARAM || op == ALU_REQUANT) && uop[2] >= RQP_DEPTH) {
        fail(m, ERR_INDEX, insn, BUF_RQP, uop[2]);
        return false;
      }
      global int* bias = m->acc + (LOOM_ACC_DEPTH + uop[2]) * LANES;
      global int* mult = bias + RQP_DEPTH * LANES;
      if (op == ALU_RQPARAM) {
        for (uint l = 0; l < LANES; ++l) bias[l] = dst[l], mult[l] = src[l];
        continue;
      }
      if (op == ALU_REQUANT && p[P_FUSE]) {  // arms the epilogue (finish_insn); writes nothing
        m->state[S_EPI_ENTRY] = uop[2];
        continue;
      }
      if (op == ALU_REQUANT) {
        for (uint l = 0; l < LANES; ++l) {
          const int v = requant(p, dst[l], bias[l], mult[l]);
          out[l] = saturate8(v);
          dst[l] = p[P_CLEAR] ? 0 : v;
        }
        continue;
      }
      for (uint l = 0; l < LANES; ++l) {
        const int x = use_imm ? imm : src[l];
        dst[l] = alu_apply(op, dst[l], x);
        out[l] = saturate8(dst[l]);
      }
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// The modules and their token queues (isa.md §1.4-1.6).

// Instruction `i` has been fetched: fetch runs in order and stalls while the target module's
// command queue holds cmd_queue_depth instructions that have not started.
void advance_fetch(global ulong* st, global const uint* prog, uint n) {
  while (st[S_FETCH] < n) {
    global const uint* p = prog + st[S_FETCH] * P_WORDS;
    const uint pos = p[P_POS];
    if (pos >= LOOM_CMD_DEPTH && st[S_NEXT + p[P_MODULE]] <= pos - LOOM_CMD_DEPTH) return;
    st[S_FETCH]++;
  }
}

// Pushes the module's waiting tokens while their queues have room; true when none is left.
bool flush_pushes(global ulong* st, uint mod) {
  while (st[S_PEND_N + mod] > 0) {
    const uint q = (uint)st[S_PEND_Q + 2 * mod];
    if (st[S_TOKENS + q] >= LOOM_TOKEN_DEPTH) return false;
    st[S_TOKENS + q]++;
    st[S_PEND_Q + 2 * mod] = st[S_PEND_Q + 2 * mod + 1];
    st[S_PEND_N + mod]--;
  }
  return true;
}

bool module_done(global const ulong* st, uint mod) {
  return st[S_NEXT + mod] >= st[S_COUNT + mod] && st[S_PEND_N + mod] == 0;
}

// Runs the instruction that module `mod` started (its in-flight one) to completion or until the
// budget is spent. Returns false after fail() or when the budget ran out mid-instruction.
bool finish_insn(const Machine* m, global const uint* prog, uint mod, long* budget) {
  global ulong* st = m->state;
  const uint i = (uint)st[S_BUSY_INSN];
  global const uint* p = prog + (ulong)i * P_WORDS;
  ulong iter = st[S_BUSY_ITER];
  bool ok = true;
  switch (p[P_OP]) {
    case OP_LOAD:
      ok = exec_load(m, i, p);
      *budget -= 1 + (long)(p[P_Y] * p[P_X]);
      if (ok) st[S_BYTES_LOADED] += (ulong)p[P_Y] * p[P_X] * elem_bytes(p[P_BUFFER]);
      break;
    case OP_STORE:
      ok = exec_store(m, i, p);
      *budget -= 1 + (long)(p[P_Y] * p[P_X]);
      if (ok) st[S_BYTES_STORED] += (ulong)p[P_Y] * p[P_X] * OUT_ELEM;
      break;
    case OP_GEMM:
      ok = exec_gemm(m, i, p, prog, &iter, budget);
      break;
    case OP_ALU:
      ok = exec_alu(m, i, p, &iter, budget);
      break;
    case OP_FINISH:
      if (st[S_EPI_INSN]) {
        fail(m, ERR_EPILOGUE, i, 0, 0);
        ok = false;
      }
      break;
    default:
      break;
  }
  if (!ok) return false;
  if ((p[P_OP] == OP_GEMM || p[P_OP] == OP_ALU) &&
      iter < (ulong)p[P_LOOP_OUT] * p[P_LOOP_IN]) {
    st[S_BUSY_ITER] = iter;
    return false;  // budget spent; resume here next launch
  }
  if (p[P_OP] == OP_GEMM) st[S_EPI_INSN] = 0;  // the epilogue served one GEMM
  // A fused REQUANT with iterations arms the next GEMM's epilogue (without, it has no entry).
  if (p[P_OP] == OP_ALU && p[P_ALU_OP] == ALU_REQUANT && p[P_FUSE] && iter > 0) {
    st[S_EPI_INSN] = (ulong)i + 1;
  }
  if (p[P_OP] == OP_GEMM && !p[P_RESET]) {
    st[S_MACS] += iter * (p[P_UOP_END] - p[P_UOP_BGN]) * LOOM_BATCH * LOOM_BLOCK_IN *
                  LOOM_BLOCK_OUT;
  }
  st[S_INSNS + mod]++;
  st[S_BUSY_INSN] = NONE;
  st[S_BUSY_ITER] = 0;
  // Completed: its pushes, prev before next (a full queue leaves them waiting).
  const uint f = p[P_FLAGS];
  for (uint k = 0; k < 2; ++k) {
    const bool prev = k == 0;
    if (!(f & (prev ? 4u : 8u))) continue;
    st[S_PEND_Q + 2 * mod + st[S_PEND_N + mod]] = queue_of(mod, prev, true);
    st[S_PEND_N + mod]++;
  }
  flush_pushes(st, mod);
  return true;
}

// Starts module `mod`'s next instruction if its tokens (and, for FINISH, the other modules)
// allow; false when it cannot start.
bool start_next(global ulong* st, global const uint* prog, global const uint* order, uint n,
                uint mod) {
  if (st[S_PEND_N + mod] > 0 || st[S_NEXT + mod] >= st[S_COUNT + mod]) return false;
  const uint i = order[st[S_BASE + mod] + st[S_NEXT + mod]];
  if (i >= st[S_FETCH]) return false;
  global const uint* p = prog + (ulong)i * P_WORDS;
  const uint f = p[P_FLAGS];
  for (uint k = 0; k < 2; ++k) {
    if ((f & (k == 0 ? 1u : 2u)) && st[S_TOKENS + queue_of(mod, k == 0, false)] == 0) return false;
  }
  if (p[P_OP] == OP_FINISH && (!module_done(st, MOD_LOAD) || !module_done(st, MOD_STORE))) {
    return false;
  }
  for (uint k = 0; k < 2; ++k) {
    if (f & (k == 0 ? 1u : 2u)) st[S_TOKENS + queue_of(mod, k == 0, false)]--;
  }
  st[S_NEXT + mod]++;
  st[S_BUSY_INSN] = i;
  st[S_BUSY_ITER] = 0;
  advance_fetch(st, prog, n);
  return true;
}

// First launch: decode every instruction (fsim does too, before anything runs), check FINISH is
// last and only there, and sort the instructions into the three modules' lists.
bool decode_program(const Machine* m, global uint* prog, global uint* order, ulong insn_addr,
                    uint n) {
  global ulong* st = m->state;
  uint count[3] = {0, 0, 0};
  for (uint i = 0; i < n; ++i) {
    global const uchar* b = m->dram + (insn_addr - m->dram_base) + (ulong)i * 16;
    ulong lo = 0, hi = 0;
    for (int k = 7; k >= 0; --k) lo = lo << 8 | b[k], hi = hi << 8 | b[8 + k];
    global uint* p = prog + (ulong)i * P_WORDS;
    if (!decode(lo, hi, p)) {
      fail(m, ERR_DECODE, i, 0, 0);
      return false;
    }
    const bool finish = p[P_OP] == OP_FINISH, last = i + 1 == n;
    if (finish && !last) {
      fail(m, ERR_FINISH_EARLY, i, n - i - 1, 0);
      return false;
    }
    if (last && !finish) {
      fail(m, ERR_NO_FINISH, i, 0, 0);
      return false;
    }
    p[P_POS] = count[p[P_MODULE]]++;
  }
  uint fill[3];
  for (uint k = 0; k < 3; ++k) {
    st[S_COUNT + k] = count[k];
    st[S_BASE + k] = k == 0 ? 0 : st[S_BASE + k - 1] + count[k - 1];
    fill[k] = (uint)st[S_BASE + k];
  }
  for (uint i = 0; i < n; ++i) order[fill[prog[(ulong)i * P_WORDS + P_MODULE]]++] = i;
  st[S_BUSY_INSN] = NONE;
  st[S_PHASE] = PHASE_RUNNING;
  advance_fetch(st, prog, n);
  return true;
}

kernel void loom_run(global uchar* dram, ulong dram_base, ulong dram_bytes, global uint* uop,
                     global char* inp, global char* wgt, global int* acc, global char* out,
                     global uint* prog, global uint* order, global ulong* state, ulong insn_addr,
                     uint n, long budget) {
  if (get_global_id(0) != 0) return;
  const Machine m = {dram, dram_base, dram_bytes, uop, inp, wgt, acc, out, state};
  if (state[S_PHASE] == PHASE_START && !decode_program(&m, prog, order, insn_addr, n)) return;
  if (state[S_PHASE] != PHASE_RUNNING) return;
  while (budget > 0) {
    bool progressed = false;
    for (uint mod = 0; mod < 3; ++mod) {
      // A module runs until it waits: its in-flight instruction first, then the next ones.
      for (;;) {
        if (state[S_BUSY_INSN] != NONE) {
          const uint i = (uint)state[S_BUSY_INSN];
          if (prog[(ulong)i * P_WORDS + P_MODULE] != mod) break;
          if (!finish_insn(&m, prog, mod, &budget)) return;  // error, or the budget is spent
          progressed = true;
          if (prog[(ulong)i * P_WORDS + P_OP] == OP_FINISH) {
            state[S_FINISH_INSN] = i;
            state[S_PHASE] = PHASE_DONE;
            return;
          }
          if (budget <= 0) return;
          continue;
        }
        if (!flush_pushes(state, mod) || !start_next(state, prog, order, n, mod)) break;
        progressed = true;
      }
    }
    if (!progressed) {
      state[S_PHASE] = PHASE_ERROR;
      state[S_ERR_CODE] = ERR_DEADLOCK;
      return;
    }
  }
}
