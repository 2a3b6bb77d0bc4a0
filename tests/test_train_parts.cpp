// The training recipe's parts, each against a reference written here:
// AdamW against a scalar twin of torch 1.13's _single_tensor_adamw (doubles
// for the Python scalars, float32 per element) and against the textbook
// formula in double; clip_grad_norm on vectors whose norm is known;
// minimind_lr at the ends and middle of the schedule; PretrainDataset with
// MiniMind's real tokenizer (ids from tests/fixtures/tokenizer_corpus.json,
// Hugging Face's output) and every error message; epoch_order against a
// prefix computed outside C++ from SplitMix64.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "allocation_counter.h"
#include "compare.h"
#include "fixtures.h"
#include "tokenizer/tokenizer.h"
#include "train/adamw.h"
#include "train/lr_schedule.h"
#include "train/pretrain_data.h"
#include "util/error.h"

using namespace minimind;
using minimind::testing::message_contains;

namespace {

Parameter make_parameter(const std::string& name, std::vector<float> value) {
  Parameter p;
  p.name = name;
  p.shape = {int64_t(value.size())};
  p.grad.assign(value.size(), 0.0f);
  p.value = std::move(value);
  return p;
}

// One element's state in the scalar twin of torch's _single_tensor_adamw.
struct ReferenceElement {
  float p, m = 0, v = 0;
};

// torch 1.13, per element: param.mul_(1 - lr*wd); exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
// (ATen's add is a fused multiply-add); exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
// (its final add fused too, as torch's compiled kernel does); denom = (exp_avg_sq.sqrt() /
// bias_correction2_sqrt).add_(eps); param.addcdiv_(exp_avg, denom, value=-step_size).
// Python scalars in double, cast to float once.
void reference_adamw_step(ReferenceElement& e, float grad, double lr, int step, const AdamWOptions& o) {
  const double bias_correction1 = 1 - std::pow(o.beta1, double(step));
  const double bias_correction2 = 1 - std::pow(o.beta2, double(step));
  const double step_size = lr / bias_correction1;
  const double bias_correction2_sqrt = std::sqrt(bias_correction2);
  e.p *= float(1 - lr * o.weight_decay);
  e.m = std::fma(grad, float(1 - o.beta1), e.m * float(o.beta1));
  e.v *= float(o.beta2);
  const float scaled_grad = float(1 - o.beta2) * grad;
  e.v = std::fma(scaled_grad, grad, e.v);
  float denom = std::sqrt(e.v);
  denom /= float(bias_correction2_sqrt);
  denom += float(o.eps);
  const float scaled_m = float(-step_size) * e.m;
  e.p += scaled_m / denom;
}

// The formula of MINIMIND.md in double: p *= 1 - lr·wd; m, v; p -= lr·m̂ / (sqrt(v̂) + eps).
struct TextbookElement {
  double p, m = 0, v = 0;
};
void textbook_adamw_step(TextbookElement& e, double grad, double lr, int t, const AdamWOptions& o) {
  e.p *= 1 - lr * o.weight_decay;
  e.m = o.beta1 * e.m + (1 - o.beta1) * grad;
  e.v = o.beta2 * e.v + (1 - o.beta2) * grad * grad;
  const double m_hat = e.m / (1 - std::pow(o.beta1, t)), v_hat = e.v / (1 - std::pow(o.beta2, t));
  e.p -= lr * m_hat / (std::sqrt(v_hat) + o.eps);
}

std::string tokenizer_json_path() {
  const char* env = std::getenv("MINIMIND_TOKENIZER_JSON");
  return env && *env ? env : MINIMIND_TOKENIZER_JSON;
}

const Tokenizer& minimind_tokenizer() {
  static const Tokenizer tokenizer = [] {
    const std::string path = tokenizer_json_path();
    std::string text;
    try {
      text = testing::read_text(path);
    } catch (const std::exception&) {
      FAIL("MiniMind's tokenizer.json not found at " << path << " (set MINIMIND_TOKENIZER_JSON to its path)");
    }
    return Tokenizer::from_json(text);
  }();
  return tokenizer;
}

// From tests/fixtures/tokenizer_corpus.json (Hugging Face's ids for MiniMind's tokenizer).
const std::string kWeatherText = "今天 天气 很 好";
const std::vector<int32_t> kWeatherIds = {5640, 256, 3660, 256, 1574, 256, 658};
const std::string kParkText = "今天天气很好，我们去公园散步吧。";
const std::vector<int32_t> kParkIds = {5640, 3660, 1574, 658, 294, 773, 1692, 6228, 3020, 953, 335, 136, 302};

std::vector<int32_t> concat(std::vector<int32_t> a, const std::vector<int32_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

struct Padded {
  std::vector<int32_t> input_ids, labels;
};
Padded padded(const PretrainDataset& data, int64_t i) {
  Padded out{std::vector<int32_t>(size_t(data.options().max_seq_len)),
             std::vector<int32_t>(size_t(data.options().max_seq_len))};
  data.sample(i, out.input_ids.data(), out.labels.data());
  return out;
}

DataOptions with_max_seq_len(int64_t n) {
  DataOptions o;
  o.max_seq_len = n;
  return o;
}

std::vector<int64_t> order_of(int64_t n, uint64_t seed, int64_t epoch, bool shuffle = true) {
  std::vector<int64_t> order(size_t(n), -1);
  epoch_order(n, seed, epoch, shuffle, order.data());
  return order;
}

}  // namespace

// ---------------------------------------------------------------- AdamW

TEST_CASE("AdamW follows torch's single-tensor arithmetic step by step", "[train]") {
  AdamWOptions options;
  SECTION("torch's default weight decay 0.01") { options.weight_decay = 0.01; }
  SECTION("no weight decay") { options.weight_decay = 0.0; }
  CAPTURE(options.weight_decay);

  std::vector<Parameter> params = {make_parameter("a", {0.5f, -1.25f, 3.0f, 0.0f, 2e-3f}),
                                   make_parameter("b", {-0.75f, 0.125f, 10.0f})};
  std::vector<std::vector<ReferenceElement>> ref(params.size());
  std::vector<std::vector<TextbookElement>> textbook(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    for (float x : params[i].value) {
      ref[i].push_back({x});
      textbook[i].push_back({double(x)});
    }
  }
  AdamW adamw(params, options);
  REQUIRE(adamw.state_bytes() == 8 * 2 * sizeof(float));

  const double lrs[] = {5e-4, 4.9e-4, 3e-3, 1e-2, 2.5e-4, 1e-3};
  for (int t = 1; t <= 6; ++t) {
    CAPTURE(t);
    // Gradients of every sign and scale, one exact zero, and one that changes sign across steps.
    for (size_t i = 0; i < params.size(); ++i) {
      for (size_t k = 0; k < params[i].grad.size(); ++k) {
        const float g = float(std::sin(1.7 * double(t) + 0.9 * double(k) + 3.1 * double(i))) * (i ? 0.01f : 2.0f);
        params[i].grad[k] = (i == 0 && k == 3) ? 0.0f : g;
      }
    }
    const double lr = lrs[t - 1];
    adamw.step(params, lr);
    REQUIRE(adamw.steps() == t);
    for (size_t i = 0; i < params.size(); ++i) {
      std::vector<float> m_ref, v_ref, p_ref;
      std::vector<double> p_textbook;
      for (size_t k = 0; k < params[i].value.size(); ++k) {
        reference_adamw_step(ref[i][k], params[i].grad[k], lr, t, options);
        textbook_adamw_step(textbook[i][k], double(params[i].grad[k]), lr, t, options);
        m_ref.push_back(ref[i][k].m);
        v_ref.push_back(ref[i][k].v);
        p_ref.push_back(ref[i][k].p);
        p_textbook.push_back(textbook[i][k].p);
      }
      CAPTURE(params[i].name);
      // The twin rounds exactly as torch: equal to the bit.
      CHECK_CLOSE(adamw.exp_avg()[i], m_ref, 0.0, 0.0);
      CHECK_CLOSE(adamw.exp_avg_sq()[i], v_ref, 0.0, 0.0);
      CHECK_CLOSE(params[i].value, p_ref, 0.0, 0.0);
      // And float32 rounding only away from the exact formula.
      CHECK_CLOSE(params[i].value, p_textbook, 1e-6, 1e-5);
    }
  }
}

TEST_CASE("AdamW gives torch 1.13's bits on a fixed case", "[train]") {
  // Written by torch.optim.AdamW(lr=1e-3) of the installed torch 1.13 (CPU), four steps at lr 1e-3, 2e-3,
  // 5e-4, 1e-2 with weight decay 0.01, from p_k = float(k - 10) / 3 and g_k = float((37k + 11t) mod 23 - 11) / 7
  // at step t = 0..3 (float32 divisions, the same on every platform). An addcmul_ without its fused
  // final add gets 5 of the v below wrong in the last bit.
  const uint32_t p_bits[] = {0xc0552db6, 0xc03f9c97, 0xc02a792f, 0xc0158bb7, 0xc0006a37, 0xbfd42806, 0xbfaa1c56,
                             0xbf7fda97, 0xbf2c0656, 0xbeaf22c6, 0x3c00e9ca, 0x3eabdd49, 0x3f2a3104, 0x3f7e344f,
                             0x3faa96c1, 0x3fd62192, 0x40000217, 0x4015129c, 0x402a2051, 0x404069ed};
  const uint32_t m_bits[] = {0x3c4e3448, 0xbe429a98, 0xbd198a9c, 0x3d63bcd2, 0x3e552726, 0xbe6f9db3, 0xbe104bd6,
                             0x3c3ec1b4, 0x3dd67bef, 0x3e83baf4, 0xbe3d4eef, 0xbdbbfa26, 0x3d78eb75, 0x3e1d8cbb,
                             0x3d24f3a8, 0xbe0b002e, 0xbd2eb942, 0x3de11341, 0x3e4fdb7c, 0xbe74e95b};
  const uint32_t v_bits[] = {0x3ba22dda, 0x3b819b05, 0x3b283e96, 0x3b4d9b00, 0x3b787e1c, 0x3b942d2b, 0x3b631f5f,
                             0x3b22ed3a, 0x3b62ef7b, 0x3b944bf4, 0x3b784cd9, 0x3b4db7ba, 0x3b284ae6, 0x3b817980,
                             0x3ba256ba, 0x3b52ee67, 0x3b42ff1e, 0x3b38579a, 0x3b96d2c6, 0x3b96fddf};
  const auto from_bits = [](const uint32_t* bits) {
    std::vector<float> out(20);
    std::memcpy(out.data(), bits, sizeof(float) * 20);
    return out;
  };
  std::vector<float> init(20);
  for (int k = 0; k < 20; ++k) init[size_t(k)] = float(k - 10) / 3.0f;
  std::vector<Parameter> params = {make_parameter("w", init)};
  AdamW adamw(params);
  const double lrs[] = {1e-3, 2e-3, 5e-4, 1e-2};
  for (int t = 0; t < 4; ++t) {
    for (int k = 0; k < 20; ++k) params[0].grad[size_t(k)] = float((k * 37 + t * 11) % 23 - 11) / 7.0f;
    adamw.step(params, lrs[t]);
  }
  CHECK_CLOSE(params[0].value, from_bits(p_bits), 0.0, 0.0);
  CHECK_CLOSE(adamw.exp_avg()[0], from_bits(m_bits), 0.0, 0.0);
  CHECK_CLOSE(adamw.exp_avg_sq()[0], from_bits(v_bits), 0.0, 0.0);
}

TEST_CASE("AdamW's first step moves every element with a gradient by about lr (bias correction)", "[train]") {
  // At t = 1, m̂ = g and v̂ = g², so the update is lr · g / (|g| + eps): lr · sign(g).
  const double lr = 1e-3;
  for (double wd : {0.0, 0.01}) {
    CAPTURE(wd);
    AdamWOptions options;
    options.weight_decay = wd;
    std::vector<Parameter> params = {make_parameter("w", {1.0f, -2.0f, 0.5f, 4.0f, -3.0f})};
    params[0].grad = {1e-3f, -5.0f, 0.0f, 300.0f, 1e-6f};
    const std::vector<float> before = params[0].value;
    AdamW adamw(params, options);
    adamw.step(params, lr);
    for (size_t k = 0; k < before.size(); ++k) {
      CAPTURE(k);
      const float g = params[0].grad[k];
      const double decayed = double(before[k]) * (1 - lr * wd);
      const double expected =
          g == 0.0f ? decayed : decayed - lr * (g > 0 ? 1 : -1) * (std::fabs(g) / (std::fabs(g) + 1e-8));
      CHECK(std::fabs(double(params[0].value[k]) - expected) <= 1e-6);
      // m = (1 - b1) g and v = (1 - b2) g² after one step from zero.
      CHECK(adamw.exp_avg()[0][k] == Approx(0.1 * g).epsilon(1e-6));
      CHECK(adamw.exp_avg_sq()[0][k] == Approx(0.001 * double(g) * double(g)).epsilon(1e-5));
    }
  }
}

TEST_CASE("AdamW rejects parameters it was not built for", "[train]") {
  std::vector<Parameter> params = {make_parameter("w", {1.0f, 2.0f})};
  AdamW adamw(params);
  std::vector<Parameter> other = {make_parameter("w", {1.0f, 2.0f, 3.0f})};
  REQUIRE_THROWS_MATCHES(adamw.step(other, 1e-3), Error, message_contains("w has 3 values"));
  std::vector<Parameter> two = {params[0], params[0]};
  REQUIRE_THROWS_MATCHES(adamw.step(two, 1e-3), Error, message_contains("built for 1 parameters"));
  REQUIRE(adamw.steps() == 0);
}

// ---------------------------------------------------------------- clipping

TEST_CASE("clip_grad_norm: the norm of the per-tensor norms, gradients scaled only past max_norm", "[train]") {
  SECTION("3, 4 -> 5, clipped to 1") {
    std::vector<Parameter> params = {make_parameter("a", {0.0f, 0.0f})};
    params[0].grad = {3.0f, 4.0f};
    CHECK(clip_grad_norm(params, 1.0) == 5.0);
    // coef = float(1 / (5 + 1e-6)) in float32
    const float coef = (1.0f / (5.0f + float(1e-6))) * 1.0f;
    CHECK(params[0].grad[0] == 3.0f * coef);
    CHECK(params[0].grad[1] == 4.0f * coef);
    CHECK(std::hypot(params[0].grad[0], params[0].grad[1]) == Approx(1.0).epsilon(1e-6));
  }
  SECTION("under max_norm: multiplied by exactly 1") {
    std::vector<Parameter> params = {make_parameter("a", {0.0f, 0.0f})};
    params[0].grad = {0.3f, -0.4f};
    CHECK(clip_grad_norm(params, 1.0) == Approx(0.5).epsilon(1e-7));
    CHECK(params[0].grad == std::vector<float>{0.3f, -0.4f});
  }
  SECTION("several tensors: one global norm") {
    // sqrt(1 + 4 + 4) = 3 from norms 1, 2 and 2 (sqrt(2² + 0²)).
    std::vector<Parameter> params = {make_parameter("a", {0.0f}), make_parameter("b", {0.0f, 0.0f}),
                                     make_parameter("c", {0.0f, 0.0f, 0.0f})};
    params[0].grad = {1.0f};
    params[1].grad = {-2.0f, 0.0f};
    params[2].grad = {1.0f, -1.0f, std::sqrt(2.0f)};
    CHECK(clip_grad_norm(params, 1.5) == Approx(3.0).epsilon(1e-7));
    double sum_squares = 0;
    for (const Parameter& p : params) {
      for (float g : p.grad) sum_squares += double(g) * g;
    }
    CHECK(std::sqrt(sum_squares) == Approx(1.5).epsilon(1e-6));
    CHECK(params[1].grad[0] == Approx(-1.0).epsilon(1e-6));
  }
  SECTION("no gradient at all: norm 0, nothing changes") {
    std::vector<Parameter> params = {make_parameter("a", {1.0f, 2.0f})};
    CHECK(clip_grad_norm(params, 1.0) == 0.0);
    CHECK(params[0].grad == std::vector<float>{0.0f, 0.0f});
  }
}

TEST_CASE("step, clip_grad_norm and zero_grad allocate nothing", "[train]") {
  std::vector<Parameter> params = {make_parameter("a", std::vector<float>(64, 0.5f)),
                                   make_parameter("b", std::vector<float>(7, -1.0f))};
  for (Parameter& p : params) std::fill(p.grad.begin(), p.grad.end(), 3.0f);
  AdamW adamw(params);
  int64_t allocations = 0;
  {
    testing::AllocationCounter counter;
    clip_grad_norm(params, 1.0);
    adamw.step(params, 1e-3);
    zero_grad(params);
    allocations = counter.count();
  }
  CHECK(allocations == 0);
  for (const Parameter& p : params) CHECK(std::all_of(p.grad.begin(), p.grad.end(), [](float g) { return g == 0; }));
}

// ---------------------------------------------------------------- learning rate

TEST_CASE("minimind_lr is get_lr: lr at the start, 0.55 lr halfway, 0.1 lr at the end", "[train]") {
  const double lr = 5e-4;
  CHECK(minimind_lr(0, 1000, lr) == Approx(lr).epsilon(1e-15));
  CHECK(minimind_lr(500, 1000, lr) == Approx(0.55 * lr).epsilon(1e-15));
  CHECK(minimind_lr(1000, 1000, lr) == Approx(0.1 * lr).epsilon(1e-15));
  // The formula as Python writes it, at a step in between.
  CHECK(minimind_lr(137, 1000, lr) == lr * (0.1 + 0.45 * (1 + std::cos(3.141592653589793 * 137 / 1000))));
  REQUIRE_THROWS_AS(minimind_lr(1, 0, lr), Error);
}

// ---------------------------------------------------------------- data

TEST_CASE("PretrainDataset: text lines are bos + MiniMind's tokens + eos, padded, pad labels -100", "[train]") {
  const Tokenizer& tokenizer = minimind_tokenizer();
  REQUIRE(tokenizer.encode(kWeatherText) == kWeatherIds);
  const std::string jsonl = "{\"text\": \"" + kWeatherText + "\"}\n{\"text\": \"" + kParkText + "\"}\n";

  const PretrainDataset data = PretrainDataset::parse(jsonl, DataFormat::Jsonl, &tokenizer, with_max_seq_len(12));
  REQUIRE(data.size() == 2);
  // 7 tokens fit whole: 9 with bos and eos, then 3 pads.
  CHECK(data.sequence(0) == concat(concat({1}, kWeatherIds), {2}));
  const Padded first = padded(data, 0);
  CHECK(first.input_ids == concat(concat(concat({1}, kWeatherIds), {2}), {0, 0, 0}));
  CHECK(first.labels == concat(concat(concat({1}, kWeatherIds), {2}), {-100, -100, -100}));
  // 13 tokens are cut to max_seq_len - 2 = 10 before eos: no padding left.
  const std::vector<int32_t> cut(kParkIds.begin(), kParkIds.begin() + 10);
  CHECK(data.sequence(1) == concat(concat({1}, cut), {2}));
  const Padded second = padded(data, 1);
  CHECK(second.input_ids == concat(concat({1}, cut), {2}));
  CHECK(second.labels == second.input_ids);
  CHECK(data.max_id() == 6228);

  SECTION("MiniMind's default max_seq_len 340 and an empty text") {
    const PretrainDataset d = PretrainDataset::parse("{\"text\": \"\"}", DataFormat::Jsonl, &tokenizer);
    REQUIRE(d.options().max_seq_len == 340);
    CHECK(d.sequence(0) == std::vector<int32_t>{1, 2});
    const Padded p = padded(d, 0);
    CHECK(std::count(p.labels.begin(), p.labels.end(), kIgnoreIndex) == 338);
  }
  SECTION("max_seq_len 2 leaves room for bos and eos only") {
    const PretrainDataset d = PretrainDataset::parse(jsonl, DataFormat::Jsonl, &tokenizer, with_max_seq_len(2));
    CHECK(d.sequence(1) == std::vector<int32_t>{1, 2});
  }
}

TEST_CASE("PretrainDataset: ids lines are the whole sequence, cut at max_seq_len, and every pad id is ignored",
          "[train]") {
  const std::string jsonl =
      "{\"ids\": [5, 0, 7]}\n"
      "{\"ids\": [1, 2, 3, 4, 5, 6, 7, 8, 9]}\n"
      "{\"ids\": [2147483647]}\n";
  const PretrainDataset data = PretrainDataset::parse(jsonl, DataFormat::Jsonl, nullptr, with_max_seq_len(5));
  REQUIRE(data.size() == 3);
  CHECK(data.sequence(0) == std::vector<int32_t>{5, 0, 7});
  // No bos or eos around ids: the line is the sequence.
  const Padded first = padded(data, 0);
  CHECK(first.input_ids == std::vector<int32_t>{5, 0, 7, 0, 0});
  // The 0 inside the line is the pad id, so the loss ignores it as MiniMind's labels[input_ids == pad] = -100 does.
  CHECK(first.labels == std::vector<int32_t>{5, -100, 7, -100, -100});
  CHECK(data.sequence(1) == std::vector<int32_t>{1, 2, 3, 4, 5});
  CHECK(padded(data, 1).labels == std::vector<int32_t>{1, 2, 3, 4, 5});
  CHECK(data.max_id() == 2147483647);
  REQUIRE_THROWS_AS(data.sample(3, nullptr, nullptr), Error);

  SECTION("another pad id") {
    DataOptions o = with_max_seq_len(4);
    o.pad_id = 7;
    const PretrainDataset d = PretrainDataset::parse("{\"ids\": [5, 0, 7]}", DataFormat::Jsonl, nullptr, o);
    const Padded p = padded(d, 0);
    CHECK(p.input_ids == std::vector<int32_t>{5, 0, 7, 7});
    CHECK(p.labels == std::vector<int32_t>{5, 0, -100, -100});
  }
  SECTION("from_sequences takes each as an ids line") {
    const PretrainDataset d = PretrainDataset::from_sequences({{3, 4}, {1, 2, 3, 4, 5, 6}}, with_max_seq_len(4));
    CHECK(d.sequence(0) == std::vector<int32_t>{3, 4});
    CHECK(d.sequence(1) == std::vector<int32_t>{1, 2, 3, 4});
    CHECK(padded(d, 0).labels == std::vector<int32_t>{3, 4, -100, -100});
    CHECK(d.max_id() == 4);
    REQUIRE_THROWS_MATCHES(PretrainDataset::from_sequences({{1}, {2, -3}}), Error,
                           message_contains("sequences[1] holds -3"));
    REQUIRE_THROWS_MATCHES(PretrainDataset::from_sequences({{1}, {}}), Error,
                           message_contains("sequences[1] is empty"));
    REQUIRE_THROWS_MATCHES(PretrainDataset::from_sequences({}), Error, message_contains("no training samples"));
  }
}

TEST_CASE("PretrainDataset: a .txt file, one text a line, blank lines skipped, CRLF and a BOM", "[train]") {
  const Tokenizer& tokenizer = minimind_tokenizer();
  const std::string txt = "\xEF\xBB\xBF" + kWeatherText + "\r\n\r\n   \t\r\n" + kParkText + "\r\n\n" + kWeatherText;
  const PretrainDataset data = PretrainDataset::parse(txt, DataFormat::Text, &tokenizer, with_max_seq_len(64));
  REQUIRE(data.size() == 3);
  // The BOM and "\r" are not part of the text: the ids are the tokenizer's for the bare line.
  CHECK(data.sequence(0) == concat(concat({1}, kWeatherIds), {2}));
  CHECK(data.sequence(1) == concat(concat({1}, kParkIds), {2}));
  CHECK(data.sequence(2) == data.sequence(0));
  // Leading and trailing spaces of a line are part of its text.
  const PretrainDataset spaced = PretrainDataset::parse(" " + kWeatherText, DataFormat::Text, &tokenizer);
  CHECK(spaced.sequence(0) == concat(concat({1}, tokenizer.encode(" " + kWeatherText)), {2}));
  CHECK(spaced.sequence(0) != data.sequence(0));

  SECTION("JSONL takes a BOM, CRLF and blank lines too") {
    const std::string jsonl = "\xEF\xBB\xBF{\"ids\": [4, 5]}\r\n \r\n{\"text\": \"" + kWeatherText + "\"}\r\n";
    const PretrainDataset d = PretrainDataset::parse(jsonl, DataFormat::Jsonl, &tokenizer, with_max_seq_len(16));
    REQUIRE(d.size() == 2);
    CHECK(d.sequence(0) == std::vector<int32_t>{4, 5});
    CHECK(d.sequence(1) == data.sequence(0));
  }
}

TEST_CASE("PretrainDataset: every malformed input is refused naming its line", "[train]") {
  const Tokenizer& tokenizer = minimind_tokenizer();
  const auto parse_jsonl = [&](const std::string& text, const Tokenizer* t) {
    return PretrainDataset::parse(text, DataFormat::Jsonl, t, with_max_seq_len(8));
  };
  const std::string good = "{\"ids\": [1]}\n";
  REQUIRE_THROWS_MATCHES(parse_jsonl(good + good + "{\"text\": \"a\"\n", &tokenizer), Error,
                         message_contains("line 3: not valid JSON ("));
  REQUIRE_THROWS_MATCHES(parse_jsonl(good + "\n[1, 2]\n", &tokenizer), Error,
                         message_contains("line 3: not a JSON object (got array)"));
  REQUIRE_THROWS_MATCHES(parse_jsonl(good + good + good + "\n\n\n{\"txt\": \"a\"}", &tokenizer), Error,
                         message_contains("line 7: an object with neither \"text\" nor \"ids\""));
  REQUIRE_THROWS_MATCHES(parse_jsonl(good + "{\"text\": \"a\"}", nullptr), Error,
                         message_contains("line 2: \"text\" needs a tokenizer (pass --tokenizer or a model folder "
                                          "with tokenizer.json)"));
  REQUIRE_THROWS_MATCHES(PretrainDataset::parse("\n" + kWeatherText, DataFormat::Text, nullptr), Error,
                         message_contains("line 2: \"text\" needs a tokenizer"));
  REQUIRE_THROWS_MATCHES(parse_jsonl("{\"text\": 5}", &tokenizer), Error,
                         message_contains("line 1: \"text\" is not a string (got number)"));
  REQUIRE_THROWS_MATCHES(parse_jsonl("{\"text\": \"a\", \"ids\": [1]}", &tokenizer), Error,
                         message_contains("line 1: an object with both \"text\" and \"ids\""));
  REQUIRE_THROWS_MATCHES(parse_jsonl("{\"ids\": \"1 2\"}", nullptr), Error,
                         message_contains("line 1: \"ids\" is not an array (got string)"));
  REQUIRE_THROWS_MATCHES(parse_jsonl("{\"ids\": []}", nullptr), Error, message_contains("line 1: \"ids\" is empty"));
  // Ids past max_seq_len are checked too, though they are cut.
  REQUIRE_THROWS_MATCHES(parse_jsonl(good + "{\"ids\": [1,2,3,4,5,6,7,8,9,-1]}", nullptr), Error,
                         message_contains("line 2: \"ids\"[9] is -1, not an integer in [0, 2^31)"));
  REQUIRE_THROWS_MATCHES(parse_jsonl("{\"ids\": [2147483648]}", nullptr), Error,
                         message_contains("line 1: \"ids\"[0] is 2147483648, not an integer in [0, 2^31)"));
  REQUIRE_THROWS_MATCHES(parse_jsonl("{\"ids\": [1.5]}", nullptr), Error,
                         message_contains("line 1: \"ids\"[0] is 1.5, not an integer"));
  REQUIRE_THROWS_MATCHES(parse_jsonl("{\"ids\": [\"7\"]}", nullptr), Error,
                         message_contains("line 1: \"ids\"[0] is \"7\", not an integer"));

  const std::string no_sample = "no training samples: the file has no non-empty line";
  REQUIRE_THROWS_MATCHES(parse_jsonl("", &tokenizer), Error, message_contains(no_sample));
  REQUIRE_THROWS_MATCHES(parse_jsonl("\xEF\xBB\xBF\r\n  \n\t\n", &tokenizer), Error, message_contains(no_sample));
  REQUIRE_THROWS_MATCHES(PretrainDataset::parse("\n\n", DataFormat::Text, &tokenizer), Error,
                         message_contains(no_sample));
  REQUIRE_THROWS_MATCHES(PretrainDataset::parse(good, DataFormat::Jsonl, nullptr, with_max_seq_len(1)), Error,
                         message_contains("max_seq_len must be at least 2"));
}

// ---------------------------------------------------------------- epoch order

TEST_CASE("epoch_order: a platform-independent permutation per (seed, epoch), file order without shuffle", "[train]") {
  // Computed outside C++ (Python integers) from SplitMix64 with the formula of pretrain_data.h:
  // SplitMix64(SplitMix64(42 ^ (0x9E3779B97F4A7C15 * 2)).next()), Fisher-Yates from the end with rejection.
  CHECK(order_of(10, 42, 1) == std::vector<int64_t>{5, 0, 2, 4, 7, 8, 1, 9, 3, 6});
  const std::vector<int64_t> big = order_of(1000, 42, 0);
  CHECK(std::vector<int64_t>(big.begin(), big.begin() + 12) ==
        std::vector<int64_t>{124, 455, 185, 81, 461, 399, 183, 286, 869, 400, 29, 41});

  std::vector<int64_t> sorted = big;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> identity(1000);
  std::iota(identity.begin(), identity.end(), 0);
  CHECK(sorted == identity);

  CHECK(order_of(1000, 42, 0) == big);  // the same on every run
  CHECK(order_of(1000, 42, 1) != big);  // another epoch
  CHECK(order_of(1000, 43, 0) != big);  // another seed
  CHECK(order_of(1000, 42, 0, false) == identity);
  CHECK(order_of(1, 42, 0) == std::vector<int64_t>{0});
  CHECK(order_of(0, 42, 0).empty());
  REQUIRE_THROWS_AS(order_of(3, 42, -1), Error);
}
