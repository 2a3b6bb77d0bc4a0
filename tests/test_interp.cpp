// Interpretability tools against tests/interp_reference.py (PyTorch forward
// hooks on MiniMind's modules) on every golden case: the hooks' cache, the
// logit lens, activation patching and direct logit attribution, with the
// causal mask and √d on (to 1e-5, abs + rel), and with both off (1e-4); then
// the same tools with heads switched off, against Model::forward's ablation.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>

#include "compare.h"
#include "fixtures.h"
#include "interp/attribution.h"
#include "interp/logit_lens.h"
#include "interp/patching.h"
#include "util/error.h"

using namespace minimind;
using namespace minimind::testing;

namespace {

constexpr double kTol = 1e-5;
constexpr const char* kInterpFormatVersion = "1";

// tests/fixtures/<case>/interp.safetensors.
struct InterpCase {
  GoldenCase golden;
  std::vector<uint8_t> bytes;
  std::unique_ptr<SafetensorsFile> file;

  std::vector<float> floats(const std::string& name) const {
    const SafetensorsEntry* e = file->find(name);
    if (!e) throw std::runtime_error(golden.name + ": interp.safetensors has no " + name);
    std::vector<float> out(size_t(shape_numel(e->shape)));
    file->read_floats(*e, out.data());
    return out;
  }
  std::vector<int32_t> ints(const std::string& name) const {
    const SafetensorsEntry* e = file->find(name);
    if (!e) throw std::runtime_error(golden.name + ": interp.safetensors has no " + name);
    return file->read_int32(*e);
  }
  int32_t id(const std::string& name) const { return ints(name).at(0); }
};

InterpCase load_interp_case(const std::string& name) {
  InterpCase c{load_golden_case(name), read_bytes(fixture_path(name + "/interp.safetensors")), nullptr};
  c.file = std::make_unique<SafetensorsFile>(c.bytes.data(), c.bytes.size());
  const auto version = c.file->metadata().find("interp_format_version");
  if (version == c.file->metadata().end() || version->second != kInterpFormatVersion) {
    throw std::runtime_error(name + ": interp_format_version is not " + std::string(kInterpFormatVersion) +
                             "; re-run /usr/bin/python3 tests/interp_reference.py");
  }
  return c;
}

// The two settings the reference covers: MiniMind's, and both switches off.
// Without ÷√Dh (and gen 2 has no q/k norm) scores reach the hundreds, so a
// score's float32 rounding (~1e-5) moves the softmax by as much: off is
// compared to 1e-4 (measured up to 2.2e-5), MiniMind's setting to 1e-5.
struct Setting {
  std::string prefix;
  InterpOptions options;
  double tol;
};
const std::vector<Setting>& settings() {
  static const std::vector<Setting> s = {{"", {true, true, {}}, kTol}, {"switches_off.", {false, false, {}}, 1e-4}};
  return s;
}

}  // namespace

TEST_CASE("interp: the hooks' cache matches PyTorch's forward hooks", "[interp]") {
  for (const std::string& name : golden_case_names()) {
    for (const auto& [prefix, options, tol] : settings()) {
      DYNAMIC_SECTION(name << " " << prefix) {
        const InterpCase c = load_interp_case(name);
        const Activations a = run_with_hooks(*c.golden.model, c.ints("clean_ids"), options);
        CHECK_CLOSE(a.residual, c.floats(prefix + "hooks.residual"), tol, tol);
        CHECK_CLOSE(a.head_outputs, c.floats(prefix + "hooks.head_outputs"), tol, tol);
        CHECK_CLOSE(a.final_scale, c.floats(prefix + "hooks.final_scale"), tol, tol);
      }
    }
  }
}

TEST_CASE("interp: the logit lens matches PyTorch and its last layer is the model's prediction", "[interp]") {
  for (const std::string& name : golden_case_names()) {
    for (const auto& [prefix, options, tol] : settings()) {
      DYNAMIC_SECTION(name << " " << prefix) {
        const InterpCase c = load_interp_case(name);
        const Model& model = *c.golden.model;
        const Activations a = run_with_hooks(model, c.ints("clean_ids"), options);
        const LogitLens lens = logit_lens(model, a, 5, c.id(prefix + "answer"));
        std::vector<int32_t> ids;
        std::vector<float> p;
        for (const LensEntry& e : lens.top) {
          ids.push_back(e.id);
          p.push_back(e.p);
        }
        CHECK(ids == c.ints(prefix + "lens.top_ids"));
        CHECK_CLOSE(p, c.floats(prefix + "lens.top_p"), tol, tol);
        CHECK_CLOSE(lens.token_p, c.floats(prefix + "lens.token_p"), tol, tol);

        // The last layer's top token at each position is the argmax of the model's logits.
        const int64_t V = model.config().vocab_size, L = model.config().num_hidden_layers;
        for (int64_t t = 0; t < a.T; ++t) {
          const float* row = a.logits.data() + t * V;
          const int64_t argmax = std::max_element(row, row + V) - row;
          CHECK(lens.top_at(L, t)[0].id == argmax);
        }
      }
    }
  }
}

TEST_CASE("interp: activation patching matches PyTorch's hooks, head by head and position by position", "[interp]") {
  for (const std::string& name : golden_case_names()) {
    for (const auto& [prefix, options, tol] : settings()) {
      DYNAMIC_SECTION(name << " " << prefix) {
        const InterpCase c = load_interp_case(name);
        const PatchingResult r = activation_patching(*c.golden.model, c.ints("clean_ids"), c.ints("corrupt_ids"),
                                                     c.id(prefix + "answer"), c.id(prefix + "wrong"), options);
        const std::vector<float> metrics = {r.clean, r.corrupt};
        CHECK_CLOSE(metrics, c.floats(prefix + "patch.metric"), tol, tol);
        CHECK_CLOSE(r.heads, c.floats(prefix + "patch.heads"), tol, tol);
        CHECK_CLOSE(r.residual, c.floats(prefix + "patch.residual"), tol, tol);
      }
    }
  }
}

TEST_CASE("interp: direct logit attribution matches PyTorch and its parts sum to the logit difference", "[interp]") {
  for (const std::string& name : golden_case_names()) {
    for (const auto& [prefix, options, tol] : settings()) {
      DYNAMIC_SECTION(name << " " << prefix) {
        const InterpCase c = load_interp_case(name);
        const int64_t position = std::stoll(c.file->metadata().at("dla_position"));
        const Attribution r = direct_logit_attribution(*c.golden.model, c.ints("clean_ids"), position,
                                                       c.id(prefix + "answer"), c.id(prefix + "wrong"), options);
        CHECK_CLOSE(std::vector<float>{r.total}, c.floats(prefix + "dla.total"), tol, tol);
        CHECK_CLOSE(std::vector<float>{r.embedding}, c.floats(prefix + "dla.embedding"), tol, tol);
        CHECK_CLOSE(r.heads, c.floats(prefix + "dla.heads"), tol, tol);
        CHECK_CLOSE(r.ffn, c.floats(prefix + "dla.ffn"), tol, tol);
        // The final norm's input is the embedding plus every head and FFN
        // output: with its scale held, the parts add up to the total.
        const double parts = double(r.embedding) + std::accumulate(r.heads.begin(), r.heads.end(), 0.0) +
                             std::accumulate(r.ffn.begin(), r.ffn.end(), 0.0);
        CHECK_CLOSE(std::vector<double>{parts}, std::vector<double>{r.total}, 1e-5, 1e-5);
      }
    }
  }
}

TEST_CASE("interp: bad requests are refused with what is wrong", "[interp]") {
  const InterpCase c = load_interp_case("gen3_dense");
  const Model& model = *c.golden.model;
  const std::vector<int32_t> ids = c.ints("clean_ids");
  std::vector<int32_t> shorter(ids.begin(), ids.end() - 1);
  CHECK_THROWS_WITH(activation_patching(model, ids, shorter, 3, 4),
                    Catch::Contains("6 tokens") && Catch::Contains("5"));
  CHECK_THROWS_WITH(activation_patching(model, ids, ids, 64, 4), Catch::Contains("answer token id 64"));
  CHECK_THROWS_WITH(direct_logit_attribution(model, ids, 6, 3, 4), Catch::Contains("position 6"));
  const Activations a = run_with_hooks(model, ids);
  CHECK_THROWS_WITH(logit_lens(model, a, 0), Catch::Contains("top must be between 1 and"));
  Patches patches;
  std::vector<float> z(size_t(6 * model.config().head_dim));
  patches.heads.push_back({2, 0, z.data()});
  CHECK_THROWS_WITH(run_with_hooks(model, ids, {}, patches), Catch::Contains("layer 2"));
}

TEST_CASE("interp: patching every head with the run's own values changes nothing", "[interp]") {
  // Patching the clean run into itself gives the clean metric everywhere:
  // the resumed forward is the same forward.
  const InterpCase c = load_interp_case("gen2_moe");
  const std::vector<int32_t> ids = c.ints("clean_ids");
  const PatchingResult r = activation_patching(*c.golden.model, ids, ids, c.id("answer"), c.id("wrong"));
  CHECK_CLOSE(r.heads, std::vector<float>(r.heads.size(), r.clean), 1e-6, 1e-6);
  CHECK_CLOSE(r.residual, std::vector<float>(r.residual.size(), r.clean), 1e-6, 1e-6);
}

namespace {

// logit(answer) - logit(wrong) of row t of the model's logits [T, V].
float logit_gap(const Matrix& logits, int64_t t, int32_t answer, int32_t wrong) {
  return logits(t, answer) - logits(t, wrong);
}

// The same heads switched off in Model::forward (the page's ablation).
Matrix ablated_forward(const Model& model, const std::vector<int32_t>& ids, const std::vector<HeadId>& heads) {
  ForwardOptions options;
  options.ablated_heads = head_ablation_flags(model.config(), heads);
  return model.forward(ids, nullptr, {}, options);
}

// The error `run` throws, as the bindings read it.
template <typename F>
Error thrown_error(F run) {
  try {
    run();
  } catch (const Error& e) {
    return e;
  }
  FAIL("no minimind::Error was thrown");
  return Error("", {}, "");
}

int64_t int_value(const Error& e, const std::string& name) {
  const ErrorValue* v = e.value(name);
  REQUIRE(v != nullptr);
  return std::get<int64_t>(*v);
}

}  // namespace

TEST_CASE("interp: switched-off heads are off in the lens, as in the forward", "[interp]") {
  const InterpCase c = load_interp_case("gen3_dense");
  const Model& model = *c.golden.model;
  const int64_t L = model.config().num_hidden_layers, H = model.config().num_attention_heads;
  const int64_t V = model.config().vocab_size, Dh = model.config().head_dim;
  const std::vector<int32_t> ids = c.ints("clean_ids");
  const int32_t answer = c.id("answer");
  InterpOptions off;
  off.ablate = {{0, 1}, {1, 2}, {0, 1}};  // a head listed twice is off once
  const Matrix logits = ablated_forward(model, ids, off.ablate);
  REQUIRE(logits != model.forward(ids));

  const Activations a = run_with_hooks(model, ids, off);
  const int64_t T = a.T;
  CHECK_CLOSE(a.logits, std::vector<float>(logits.data(), logits.data() + T * V), 1e-5, 1e-5);
  for (const HeadId& id : off.ablate) {
    const float* z = a.head_at(id.layer, id.head, H, Dh);  // [T, Dh]
    CHECK(std::all_of(z, z + T * Dh, [](float x) { return x == 0.0f; }));
  }
  // The lens's last layer is softmax of the ablated forward's logits.
  const LogitLens lens = logit_lens(model, a, 5, answer);
  const LogitLens intact = logit_lens(model, run_with_hooks(model, ids), 5, answer);
  std::vector<float> expected_p, lens_p, expected_answer, lens_answer;
  for (int64_t t = 0; t < T; ++t) {
    const float* row = logits.data() + t * V;  // [V]
    const float max = *std::max_element(row, row + V);
    double sum = 0.0;
    for (int64_t v = 0; v < V; ++v) sum += std::exp(double(row[v]) - max);
    const auto p = [&](int32_t id) { return float(std::exp(double(row[id]) - max) / sum); };
    CHECK(lens.top_at(L, t)[0].id == std::max_element(row, row + V) - row);
    for (int64_t k = 0; k < 5; ++k) {
      lens_p.push_back(lens.top_at(L, t)[k].p);
      expected_p.push_back(p(lens.top_at(L, t)[k].id));
    }
    lens_answer.push_back(lens.token_p[size_t(L * T + t)]);
    expected_answer.push_back(p(answer));
  }
  CHECK_CLOSE(lens_p, expected_p, 1e-6, 1e-5);
  CHECK_CLOSE(lens_answer, expected_answer, 1e-6, 1e-5);
  CHECK(lens.token_p != intact.token_p);
}

TEST_CASE("interp: a switched-off head's attribution is 0 and the parts still sum to the total", "[interp]") {
  const InterpCase c = load_interp_case("gen3_dense");
  const Model& model = *c.golden.model;
  const int64_t H = model.config().num_attention_heads;
  const std::vector<int32_t> ids = c.ints("clean_ids");
  const int32_t answer = c.id("answer"), wrong = c.id("wrong");
  const int64_t last = int64_t(ids.size()) - 1;
  InterpOptions off;
  off.ablate = {{0, 1}, {1, 2}};
  const Attribution intact = direct_logit_attribution(model, ids, last, answer, wrong);
  REQUIRE(intact.heads[size_t(0 * H + 1)] != 0.0f);
  REQUIRE(intact.heads[size_t(1 * H + 2)] != 0.0f);

  const Attribution r = direct_logit_attribution(model, ids, last, answer, wrong, off);
  CHECK(r.heads[size_t(0 * H + 1)] == 0.0f);
  CHECK(r.heads[size_t(1 * H + 2)] == 0.0f);
  const Matrix logits = ablated_forward(model, ids, off.ablate);
  CHECK_CLOSE(std::vector<float>{r.total}, std::vector<float>{logit_gap(logits, last, answer, wrong)}, 1e-5, 1e-5);
  CHECK(r.total != intact.total);
  const double parts = double(r.embedding) + std::accumulate(r.heads.begin(), r.heads.end(), 0.0) +
                       std::accumulate(r.ffn.begin(), r.ffn.end(), 0.0);
  CHECK_CLOSE(std::vector<double>{parts}, std::vector<double>{r.total}, 1e-5, 1e-5);
}

TEST_CASE("interp: patching with heads switched off runs on the ablated model and skips those heads", "[interp]") {
  const InterpCase c = load_interp_case("gen3_dense");
  const Model& model = *c.golden.model;
  const int64_t L = model.config().num_hidden_layers, H = model.config().num_attention_heads;
  const int64_t Dh = model.config().head_dim;
  const std::vector<int32_t> clean = c.ints("clean_ids"), corrupt = c.ints("corrupt_ids");
  const int32_t answer = c.id("answer"), wrong = c.id("wrong");
  const int64_t T = int64_t(clean.size()), last = T - 1;
  InterpOptions off;
  off.ablate = {{0, 1}};

  const PatchingResult intact = activation_patching(model, clean, corrupt, answer, wrong);
  const PatchingResult r = activation_patching(model, clean, corrupt, answer, wrong, off);
  // The two plain runs are the ablated forwards.
  const std::vector<float> metrics = {r.clean, r.corrupt};
  const std::vector<float> forwards = {logit_gap(ablated_forward(model, clean, off.ablate), last, answer, wrong),
                                       logit_gap(ablated_forward(model, corrupt, off.ablate), last, answer, wrong)};
  CHECK_CLOSE(metrics, forwards, 1e-5, 1e-5);
  CHECK(r.clean != intact.clean);
  // The switched-off head has no cell; every other head's cell is a patched
  // run of the ablated model, which head 0:1 feeds no longer.
  int64_t moved = 0;
  for (int64_t l = 0; l < L; ++l) {
    for (int64_t h = 0; h < H; ++h) {
      const float cell = r.heads[size_t(l * H + h)];
      if (l == 0 && h == 1) {
        CHECK(std::isnan(cell));
        continue;
      }
      CHECK(std::isfinite(cell));
      if (std::abs(cell - intact.heads[size_t(l * H + h)]) > 1e-4f) ++moved;
    }
  }
  CHECK(moved >= H);
  // One cell recomputed by a whole hooked run with that patch.
  const Activations cl = run_with_hooks(model, clean, off);
  Patches patches;
  patches.heads.push_back({1, 3, cl.head_at(1, 3, H, Dh)});
  const Activations patched = run_with_hooks(model, corrupt, off, patches);
  const int64_t V = model.config().vocab_size;
  const float gap = patched.logits[size_t(last * V + answer)] - patched.logits[size_t(last * V + wrong)];
  CHECK_CLOSE(std::vector<float>{r.heads[size_t(1 * H + 3)]}, std::vector<float>{gap}, 1e-5, 1e-5);
  // The residual sweep as usual: the last residual at the last position is the clean run.
  CHECK_CLOSE(std::vector<float>{r.residual[size_t(L * T + last)]}, std::vector<float>{r.clean}, 1e-5, 1e-5);
  CHECK(std::all_of(r.residual.begin(), r.residual.end(), [](float x) { return std::isfinite(x); }));

  // A patch of a switched-off head is not applied: the head stays zero.
  const Activations plain = run_with_hooks(model, corrupt, off);
  const Activations lit = run_with_hooks(model, clean);
  Patches onto_off;
  onto_off.heads.push_back({0, 1, lit.head_at(0, 1, H, Dh)});
  const Activations still = run_with_hooks(model, corrupt, off, onto_off);
  CHECK(still.logits == plain.logits);
  const float* z = still.head_at(0, 1, H, Dh);
  CHECK(std::all_of(z, z + T * Dh, [](float x) { return x == 0.0f; }));
}

TEST_CASE("interp: a head outside the model is refused as the forward refuses it", "[interp]") {
  const InterpCase c = load_interp_case("gen3_dense");
  const Model& model = *c.golden.model;
  const std::vector<int32_t> ids = c.ints("clean_ids");
  const int64_t last = int64_t(ids.size()) - 1;
  const Activations before = run_with_hooks(model, ids);
  for (const HeadId& bad : std::vector<HeadId>{{2, 0}, {0, 4}, {-1, 0}, {0, -1}}) {
    InterpOptions off;
    off.ablate = {{0, 1}, bad};
    const std::vector<Error> errors = {
        thrown_error([&] { head_ablation_flags(model.config(), off.ablate); }),
        thrown_error([&] { run_with_hooks(model, ids, off); }),
        thrown_error([&] { direct_logit_attribution(model, ids, last, 3, 4, off); }),
        thrown_error([&] { activation_patching(model, ids, ids, 3, 4, off); }),
    };
    for (const Error& e : errors) {
      CHECK(e.kind() == "ablate.head_out_of_range");
      CHECK(int_value(e, "layer") == bad.layer);
      CHECK(int_value(e, "head") == bad.head);
      CHECK(int_value(e, "layers") == 2);
      CHECK(int_value(e, "heads") == 4);
      CHECK_THAT(e.what(), Catch::Contains("cannot ablate layer " + std::to_string(bad.layer)));
    }
  }
  // The model is as it was.
  CHECK(run_with_hooks(model, ids).logits == before.logits);
}

namespace {

// Every read point of ForwardHooks, kept as [L + 1, T, ...] by absolute
// position, with the number of calls of each.
struct ReadingHooks final : ForwardHooks {
  ReadingHooks(const ModelConfig& c, int64_t T)
      : T(T),
        D(c.hidden_size),
        q(c.num_attention_heads * c.head_dim),
        residual_((c.num_hidden_layers + 1) * T * D),
        attn_in(c.num_hidden_layers * T * D),
        z(c.num_hidden_layers * T * q),
        ffn_in(c.num_hidden_layers * T * D),
        ffn_out(c.num_hidden_layers * T * D) {}

  static void put(std::vector<float>& to, int64_t layer, int64_t first, int64_t T, int64_t width, const float* x,
                  int64_t rows) {
    std::copy(x, x + rows * width, to.begin() + (layer * T + first) * width);
  }
  void residual(int64_t l, int64_t first, float* x, int64_t rows) override {
    put(residual_, l, first, T, D, x, rows);
    ++calls;
  }
  void attention_input(int64_t l, int64_t first, const float* x, int64_t rows) override {
    put(attn_in, l, first, T, D, x, rows);
    ++calls;
  }
  void head_outputs(int64_t l, int64_t first, const float* x, int64_t rows) override {
    put(z, l, first, T, q, x, rows);
    ++calls;
  }
  void ffn_input(int64_t l, int64_t first, const float* x, int64_t rows) override {
    put(ffn_in, l, first, T, D, x, rows);
    ++calls;
  }
  void ffn_output(int64_t l, int64_t first, const float* x, int64_t rows) override {
    put(ffn_out, l, first, T, D, x, rows);
    ++calls;
  }

  int64_t T, D, q;
  std::vector<float> residual_;        // [L + 1, T, D]
  std::vector<float> attn_in, z;       // [L, T, D], [L, T, H·Dh]
  std::vector<float> ffn_in, ffn_out;  // [L, T, D] each
  int64_t calls = 0;
};

// Layer l's slice [T, width] of one of ReadingHooks' buffers.
std::vector<float> slice(const std::vector<float>& x, int64_t l, int64_t T, int64_t width) {
  return std::vector<float>(x.begin() + l * T * width, x.begin() + (l + 1) * T * width);
}

// Writes one head's z, as a HeadPatch does.
struct ZHook final : ForwardHooks {
  int64_t layer, head, Dh;
  const float* values;  // [T, Dh]
  ZHook(int64_t layer, int64_t head, int64_t Dh, const float* values)
      : layer(layer), head(head), Dh(Dh), values(values) {}
  const float* head_z(int64_t l, int64_t h, int64_t first, int64_t) override {
    return l == layer && h == head ? values + first * Dh : nullptr;
  }
};

}  // namespace

TEST_CASE("interp: a hook reading every point sees the forward's own values and changes nothing", "[interp]") {
  for (const std::string& name : golden_case_names()) {
    DYNAMIC_SECTION(name) {
      const InterpCase c = load_interp_case(name);
      const Model& model = *c.golden.model;
      const ModelConfig& mc = model.config();
      const int64_t L = mc.num_hidden_layers, D = mc.hidden_size, V = mc.vocab_size;
      const int64_t q = mc.num_attention_heads * mc.head_dim;
      const std::vector<int32_t> ids = c.ints("clean_ids");
      const int64_t T = int64_t(ids.size());
      const Matrix plain = model.forward(ids);

      TraceRequest request;
      for (int64_t l = 0; l < L; ++l) request.layers.push_back(l);
      request.stages = {stage::kBlockInput, stage::kAttnNorm, stage::kAttnConcat,
                        stage::kFfnNorm,    stage::kFfnDown,  stage::kBlockOutput};
      Trace trace(request, 1);
      ReadingHooks hooks(mc, T);
      KVCache cache = model.make_cache();
      ForwardWorkspace workspace;
      std::vector<float> logits(size_t(T * V));  // [T, V]
      model.forward_into(ids.data(), T, cache, workspace, logits.data(), T, nullptr, {}, &trace, 0, &hooks);

      CHECK(logits == std::vector<float>(plain.data(), plain.data() + T * V));
      CHECK(hooks.calls == 1 + 5 * L);  // the first residual, then 5 points a block
      const auto traced = [&](int64_t l, const char* s) { return trace.get(l, s)->data; };
      for (int64_t l = 0; l < L; ++l) {
        CHECK(slice(hooks.residual_, l, T, D) == traced(l, stage::kBlockInput));
        CHECK(slice(hooks.attn_in, l, T, D) == traced(l, stage::kAttnNorm));
        CHECK(slice(hooks.z, l, T, q) == traced(l, stage::kAttnConcat));
        CHECK(slice(hooks.ffn_in, l, T, D) == traced(l, stage::kFfnNorm));
        CHECK(slice(hooks.ffn_out, l, T, D) == traced(l, stage::kFfnDown));
      }
      // The residual after the last block is the forward's final hidden state.
      CHECK(slice(hooks.residual_, L, T, D) == traced(L - 1, stage::kBlockOutput));
      // run_with_hooks reads the same forward.
      const Activations a = run_with_hooks(model, ids);
      CHECK(a.residual == hooks.residual_);
      CHECK(a.logits == logits);
    }
  }
}

TEST_CASE("interp: writing a head's z or its own block input equals patching that head", "[interp]") {
  for (const std::string& name : golden_case_names()) {
    DYNAMIC_SECTION(name) {
      const InterpCase c = load_interp_case(name);
      const Model& model = *c.golden.model;
      const ModelConfig& mc = model.config();
      const int64_t L = mc.num_hidden_layers, D = mc.hidden_size, H = mc.num_attention_heads, Dh = mc.head_dim;
      const std::vector<int32_t> clean = c.ints("clean_ids"), corrupt = c.ints("corrupt_ids");
      const int64_t T = int64_t(clean.size()), V = mc.vocab_size;
      const Activations cl = run_with_hooks(model, clean);
      const Activations co = run_with_hooks(model, corrupt);
      for (const HeadId& id : std::vector<HeadId>{{0, 1}, {L - 1, H - 1}}) {
        const float* clean_z = cl.head_at(id.layer, id.head, H, Dh);  // [T, Dh]
        Patches patches;
        patches.heads.push_back({id.layer, id.head, clean_z});
        const Activations patched = run_with_hooks(model, corrupt, {}, patches);
        REQUIRE(patched.logits != co.logits);

        // A hook object on the model's forward writing that z.
        ZHook hook(id.layer, id.head, Dh, clean_z);
        KVCache cache = model.make_cache();
        ForwardWorkspace workspace;
        std::vector<float> logits(size_t(T * V));  // [T, V]
        model.forward_into(corrupt.data(), T, cache, workspace, logits.data(), T, nullptr, {}, nullptr, 0, &hook);
        CHECK(logits == patched.logits);

        // The head reading the clean run's block input (the other heads the
        // corrupt one's) computes the clean run's z: the same patched run.
        Patches input;
        input.head_inputs.push_back({id.layer, id.head, cl.residual_at(id.layer, D)});
        const Activations given = run_with_hooks(model, corrupt, {}, input);
        CHECK_CLOSE(given.head_outputs, patched.head_outputs, 1e-6, 1e-6);
        CHECK_CLOSE(given.logits, patched.logits, 1e-6, 1e-6);

        // Its own input again changes nothing.
        Patches own;
        own.head_inputs.push_back({id.layer, id.head, co.residual_at(id.layer, D)});
        CHECK(run_with_hooks(model, corrupt, {}, own).logits == co.logits);

        // A switched-off head stays zero whatever it is given.
        InterpOptions off;
        off.ablate = {id};
        const Activations dark = run_with_hooks(model, corrupt, off);
        CHECK(run_with_hooks(model, corrupt, off, input).logits == dark.logits);
      }
      // A resumed, last-row-only run (activation patching's) with a head
      // given its input from position 3 on: keys before it stay the run's.
      const int64_t layer = L - 1, position = 3;
      HookedScratch corrupt_run;
      run_with_hooks(model, corrupt, {}, {}, &corrupt_run);
      corrupt_run.cache.layer(layer).truncate(position);  // rows 0..2, as activation patching leaves them
      Patches input;
      input.head_inputs.push_back({layer, 0, cl.residual_at(layer, D)});
      std::vector<float> h(co.residual_at(layer, D) + position * D, co.residual_at(layer, D) + T * D);
      run_blocks(model, h.data(), T - position, {layer, position, true}, {}, input, corrupt_run);
      // The whole run with that head given clean rows from position 3 only.
      std::vector<float> mixed(co.residual_at(layer, D), co.residual_at(layer, D) + T * D);  // [T, D]
      std::copy(cl.residual_at(layer, D) + position * D, cl.residual_at(layer, D) + T * D,
                mixed.begin() + position * D);
      Patches whole;
      whole.head_inputs.push_back({layer, 0, mixed.data()});
      const Activations expected = run_with_hooks(model, corrupt, {}, whole);
      CHECK_CLOSE(std::vector<float>(h.end() - D, h.end()),
                  std::vector<float>(expected.residual_at(L, D) + (T - 1) * D, expected.residual_at(L, D) + T * D),
                  1e-6, 1e-6);
    }
  }
}
