#include "lesson/lab_record.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "lesson/manual_attention.h"
#include "model/model.h"
#include "model/presets.h"

namespace minimind {

namespace {

std::string fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

}  // namespace

std::string lesson11_lab_record(const std::string& preset, uint64_t seed) {
  const ModelConfig config = preset_config(preset);
  const Model model = Model::random(config, seed);
  const int64_t B = 2, T = 5, H = config.num_attention_heads, Dh = config.head_dim;
  std::vector<std::vector<int32_t>> ids(B);
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t t = 0; t < T; ++t) ids[size_t(b)].push_back(int32_t((3 + b * T + t) % config.vocab_size));
  }
  TraceRequest request;
  request.layers = {0};
  request.stages = {stage::kAttnNorm,     stage::kQProj,       stage::kKProj, stage::kVProj,
                    stage::kScoresScaled, stage::kAttnWeights, stage::kOProj};
  Trace trace(request, B);
  model.forward_batch(ids, {}, {}, &trace);

  const Tensor& x = *trace.get(0, stage::kAttnNorm);           // [B, T, D]
  const Tensor& q = *trace.get(0, stage::kQProj);              // [B, T, H, Dh]
  const Tensor& k = *trace.get(0, stage::kKProj);              // [B, T, Hkv, Dh]
  const Tensor& v = *trace.get(0, stage::kVProj);              // [B, T, Hkv, Dh]
  const Tensor& scores = *trace.get(0, stage::kScoresScaled);  // [B, H, T, T]
  const Tensor& weights = *trace.get(0, stage::kAttnWeights);  // [B, H, T, T]
  const Tensor& module_out = *trace.get(0, stage::kOProj);     // [B, T, D]

  // Future mass: what batch 0, head 0 puts on keys after the query.
  double future = 0;
  for (int64_t i = 0; i < T; ++i) {
    for (int64_t j = i + 1; j < T; ++j) future += weights.data[size_t(i * T + j)];
  }
  // Manual formula vs the module, over the whole batch.
  const RotaryEmbedding rope(config);
  double max_diff = 0;
  const int64_t D = config.hidden_size;
  for (int64_t b = 0; b < B; ++b) {
    const std::vector<float> xb(x.data.begin() + b * T * D, x.data.begin() + (b + 1) * T * D);
    const ManualAttention manual = manual_attention(config, model.weights().layers[0], rope, xb, T);
    for (int64_t i = 0; i < T * D; ++i) {
      max_diff =
          std::max(max_diff, double(std::fabs(manual.output[size_t(i)] - module_out.data[size_t(b * T * D + i)])));
    }
  }

  std::string out;
  const auto line = [&out](const std::string& s) { out += s + "\n"; };
  line("preset=" + preset + " seed=" + std::to_string(seed));
  line("head_dim=" + std::to_string(Dh));
  line("x.shape=" + shape_to_string(x.shape));
  line("q_proj(x).shape=" + shape_to_string({B, T, q.shape[2] * q.shape[3]}));
  line("k_proj(x).shape=" + shape_to_string({B, T, k.shape[2] * k.shape[3]}));
  line("v_proj(x).shape=" + shape_to_string({B, T, v.shape[2] * v.shape[3]}));
  line("xq.shape=" + shape_to_string(q.shape));
  line("xk after repeat shape=" + shape_to_string({B, T, H, Dh}));  // repeat_kv: Hkv -> H heads
  line("scores.shape=" + shape_to_string(scores.shape));
  line("attention weights for batch 0, head 0 =");
  for (int64_t i = 0; i < T; ++i) {
    std::string row = "  [";
    for (int64_t j = 0; j < T; ++j) row += (j ? ", " : "") + fixed(weights.data[size_t(i * T + j)], 4);
    line(row + "]");
  }
  line("future_attention_mass_for_batch0_head0=" + fixed(future, 10));
  line("manual_vs_module_max_abs_diff=" + fixed(max_diff, 12));
  return out;
}

}  // namespace minimind
