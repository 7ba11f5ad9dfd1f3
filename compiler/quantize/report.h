// The per-layer quantization report: SQNR of every quantized layer's output against fp32 on the
// calibration samples, the scales and requantization parameters, as a table (stderr/stdout) and as
// JSON (--report FILE.json; format in docs/quantization.md).
#ifndef LOOM_COMPILER_QUANTIZE_REPORT_H_
#define LOOM_COMPILER_QUANTIZE_REPORT_H_

#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/ir/graph.h"
#include "compiler/quantize/calibration.h"
#include "compiler/quantize/quantize.h"

namespace loom::quantize {

// SQNR (dB) per layer of result.layers: 10 log10(sum y^2 / sum (y - dequant(y_q))^2) over all
// samples, with the float graph (before quantization, same value ids) and the quantized graph
// both run on the interpreter. +inf when the error is 0.
Status MeasureSqnr(const ir::Graph& float_graph, const ir::Graph& q_graph,
                   const std::vector<Sample>& samples, const QuantizeResult& result,
                   std::vector<double>* sqnr_db);

// 10 log10(signal / noise) in dB, +inf when the noise is 0: the SQNR of every report and test.
double SqnrDb(double signal, double noise);
// The SQNR of `got` against the reference `want` (n values).
double SqnrDb(const float* got, const float* want, size_t n);

nlohmann::json LayerToJson(const LayerInfo& l, double sqnr_db);
void PrintLayerTable(const QuantizeResult& result, const std::vector<double>& sqnr_db,
                     std::ostream& os);

}  // namespace loom::quantize

#endif  // LOOM_COMPILER_QUANTIZE_REPORT_H_
