// digits-evaluate: the numbers scripts/demo prints for the digits example.
//
//   digits-evaluate --model examples/digits/digits.onnx --images test_images.npy
//       --labels test_labels.npy --logits logits.npy --stats stats.json [--board pynq-z1]
//
// fp32 accuracy comes from the ONNX model on the compiler's float reference interpreter; int8
// accuracy from the logits `loom-run` wrote; cycles and utilization from its --stats JSON; the
// latency is the cycles per image at the board's accelerator clock.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "compiler/frontend/onnx_import.h"
#include "compiler/interp/interpreter.h"
#include "runtime/config/config_file.h"
#include "runtime/io/npy.h"

namespace loom {
namespace {

int Fail(const std::string& what) {
  std::cerr << "digits-evaluate: " << what << "\n";
  return 1;
}

std::string Text(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "?";
}

size_t ArgMax(const float* row, size_t n) {
  return static_cast<size_t>(std::max_element(row, row + n) - row);
}

int Main(int argc, char** argv) {
  CLI::App app{"Accuracy, cycles and latency of the compiled digits model"};
  std::string model, images_path, labels_path, logits_path, stats_path, board_name = "pynq-z1";
  app.add_option("--model", model, "the fp32 ONNX model")->required();
  app.add_option("--images", images_path, "test images, float32 [N,1,8,8]")->required();
  app.add_option("--labels", labels_path, "test labels, int64 [N]")->required();
  app.add_option("--logits", logits_path, "what loom-run wrote, float32 [N,10]")->required();
  app.add_option("--stats", stats_path, "loom-run --stats JSON")->required();
  app.add_option("--board", board_name, "board whose clock gives the latency")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  NpyArray images, labels, logits;
  for (auto [path, array] : {std::pair{&images_path, &images}, std::pair{&labels_path, &labels},
                             std::pair{&logits_path, &logits}}) {
    if (Status st = ReadNpy(*path, array); !st.ok()) return Fail(st.ToString());
  }
  std::vector<int64_t> y;
  std::vector<float> z;
  if (Status st = NpyToVector(labels, &y); !st.ok()) return Fail(st.ToString());
  if (Status st = NpyToVector(logits, &z); !st.ok()) return Fail(st.ToString());
  const size_t n = y.size();
  if (n == 0 || z.size() % n != 0 || images.shape.empty() ||
      static_cast<size_t>(images.shape[0]) != n) {
    return Fail("images, labels and logits do not hold the same number of samples");
  }
  const size_t classes = z.size() / n;

  // fp32: the model itself, image by image.
  ir::Graph graph;
  if (Status st = frontend::ImportOnnxFile(model, {}, &graph); !st.ok()) return Fail(st.ToString());
  const size_t per = images.bytes.size() / n;
  size_t fp32_correct = 0, int8_correct = 0, agree = 0;
  for (size_t i = 0; i < n; ++i) {
    std::vector<uint8_t> bytes(images.bytes.begin() + static_cast<std::ptrdiff_t>(i * per),
                               images.bytes.begin() + static_cast<std::ptrdiff_t>((i + 1) * per));
    ir::Shape shape = images.shape;
    shape[0] = 1;
    ir::Tensor x;
    if (Status st = ir::Tensor::FromBytes(DType::kF32, shape, std::move(bytes), &x); !st.ok()) {
      return Fail(st.ToString());
    }
    std::vector<ir::Tensor> out;
    if (Status st = interp::Run(graph, std::vector<ir::Tensor>{x}, &out); !st.ok()) {
      return Fail(st.ToString());
    }
    const size_t f = ArgMax(out[0].data<float>(), static_cast<size_t>(out[0].num_elements()));
    const size_t q = ArgMax(z.data() + i * classes, classes);
    fp32_correct += static_cast<int64_t>(f) == y[i];
    int8_correct += static_cast<int64_t>(q) == y[i];
    agree += f == q;
  }

  std::ifstream in(stats_path);
  const nlohmann::json stats = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (stats.is_discarded() || !stats.is_object() || !stats.contains("cycles") ||
      !stats["cycles"].is_number() || !stats.contains("inferences") ||
      !stats["inferences"].is_number() ||
      (stats.contains("gemm_utilization") && !stats["gemm_utilization"].is_number())) {
    return Fail(stats_path + ": not a loom-run --stats file");
  }
  Board board;
  if (Status st = LoadBoard(board_name, &board); !st.ok()) return Fail(st.ToString());
  const double inferences = stats["inferences"].get<double>();
  const double cycles = stats["cycles"].get<double>() / std::max(inferences, 1.0);

  std::printf("\ndigits: %zu test images, package run on %s (config %s)\n", n,
              Text(stats, "device").c_str(), Text(stats, "config").c_str());
  std::printf("  fp32 top-1 (ONNX model, float reference)   %6.2f %%  (%zu/%zu)\n",
              100.0 * double(fp32_correct) / double(n), fp32_correct, n);
  std::printf("  int8 top-1 (Loom package)                  %6.2f %%  (%zu/%zu)\n",
              100.0 * double(int8_correct) / double(n), int8_correct, n);
  std::printf("  same top-1 as fp32                         %6.2f %%\n", 100.0 * double(agree) / double(n));
  std::printf("  accelerator cycles per image               %8.0f\n", cycles);
  std::printf("  GEMM utilization                           %6.2f %%\n",
              100.0 * stats.value("gemm_utilization", 0.0));
  std::printf("  simulated latency on %-10s (%3.0f MHz) %8.1f us per image\n", board.name.c_str(),
              board.clock_mhz, cycles / board.clock_mhz);
  return 0;
}

}  // namespace
}  // namespace loom

int main(int argc, char** argv) { return loom::Main(argc, argv); }
