// Shared by matmul.cc, matmul_integer.cc and qlinear_matmul.cc: numpy matmul shape rules (1-D
// promotion, broadcast batch dims) and the batched loop, parameterised by element loads and the
// accumulator store. Internal to the kernels library.
#ifndef LOOM_RUNTIME_KERNELS_MATMUL_COMMON_H_
#define LOOM_RUNTIME_KERNELS_MATMUL_COMMON_H_

#include <cstdint>
#include <string>

#include "runtime/kernels/tensor.h"

namespace loom::kernels::internal {

// The operands seen as batches of matrices: [batch..., m, k] x [batch..., k, n].
struct MatMulGeometry {
  int64_t m = 0, k = 0, n = 0;
  int batch_rank = 0;
  int64_t batch[kMaxRank] = {};
  int64_t a_batch_strides[kMaxRank] = {};  // in matrices (stride 0 where broadcast)
  int64_t b_batch_strides[kMaxRank] = {};
};

inline Status PlanMatMul(const TensorView& a, const TensorView& b, const TensorView& y,
                         MatMulGeometry* g) {
  if (a.rank < 1 || b.rank < 1) return InvalidArgument("matmul: operands must have rank >= 1");
  // 1-D a is a row vector [1, k]; 1-D b a column vector [k, 1].
  g->m = a.rank == 1 ? 1 : a.shape[a.rank - 2];
  g->k = a.shape[a.rank - 1];
  const int64_t kb = b.rank == 1 ? b.shape[0] : b.shape[b.rank - 2];
  g->n = b.rank == 1 ? 1 : b.shape[b.rank - 1];
  if (kb != g->k) {
    return InvalidArgument("matmul: inner dimensions differ (" + std::to_string(g->k) + " vs " +
                           std::to_string(kb) + ")");
  }
  TensorView ab, bb;  // batch parts only
  const int a_br = a.rank > 2 ? a.rank - 2 : 0, b_br = b.rank > 2 ? b.rank - 2 : 0;
  ab.rank = a_br;
  bb.rank = b_br;
  int64_t stride = 1;
  for (int i = a_br - 1; i >= 0; --i) {
    ab.shape[i] = a.shape[i];
    ab.strides[i] = stride;
    stride *= a.shape[i];
  }
  stride = 1;
  for (int i = b_br - 1; i >= 0; --i) {
    bb.shape[i] = b.shape[i];
    bb.strides[i] = stride;
    stride *= b.shape[i];
  }
  LOOM_RETURN_IF_ERROR(BroadcastShapes(ab, bb, g->batch, &g->batch_rank));
  BroadcastStrides(ab, g->batch_rank, g->a_batch_strides);
  BroadcastStrides(bb, g->batch_rank, g->b_batch_strides);
  // Expected output: batch..., then m unless a was 1-D, then n unless b was 1-D.
  int64_t want[kMaxRank + 2];
  int rank = 0;
  for (int i = 0; i < g->batch_rank; ++i) want[rank++] = g->batch[i];
  if (a.rank != 1) want[rank++] = g->m;
  if (b.rank != 1) want[rank++] = g->n;
  bool ok = rank == y.rank;
  for (int i = 0; ok && i < rank; ++i) ok = want[i] == y.shape[i];
  if (!ok) return InvalidArgument("matmul: output shape does not match the operands");
  return Status::Ok();
}

// acc(y index) = sum_k load_a(a offset) * load_b(b offset, column); store(y offset, row, col, acc).
template <typename Acc, typename LoadA, typename LoadB, typename Store>
void MatMulLoop(const MatMulGeometry& g, LoadA load_a, LoadB load_b, Store store) {
  int64_t batches = 1;
  for (int i = 0; i < g.batch_rank; ++i) batches *= g.batch[i];
  IndexWalker<2> walk;
  walk.rank = g.batch_rank;
  for (int i = 0; i < g.batch_rank; ++i) {
    walk.shape[i] = g.batch[i];
    walk.strides[0][i] = g.a_batch_strides[i];
    walk.strides[1][i] = g.b_batch_strides[i];
  }
  const int64_t a_mat = g.m * g.k, b_mat = g.k * g.n, y_mat = g.m * g.n;
  for (int64_t bi = 0; bi < batches; ++bi, walk.Next()) {
    const int64_t a0 = walk.offset[0] * a_mat, b0 = walk.offset[1] * b_mat, y0 = bi * y_mat;
    for (int64_t i = 0; i < g.m; ++i) {
      for (int64_t j = 0; j < g.n; ++j) {
        Acc acc = Acc(0);
        for (int64_t kk = 0; kk < g.k; ++kk) {
          acc += load_a(a0 + i * g.k + kk, i) * load_b(b0 + kk * g.n + j, j);
        }
        store(y0 + i * g.n + j, i, j, acc);
      }
    }
  }
}

}  // namespace loom::kernels::internal

#endif  // LOOM_RUNTIME_KERNELS_MATMUL_COMMON_H_
