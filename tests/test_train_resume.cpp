// A saved run continues exactly: a trainer captured after k batches
// (Trainer::state and the model's float32 weights), rebuilt over the same
// data and options and restored, runs the remaining batches to the same
// losses and the same final weights, bit for bit, as the run that never
// stopped. k covers a pending gradient (between accumulation steps), an
// epoch's last batch and a run that is done; bad states change nothing.
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "checkpoint/model_export.h"
#include "checkpoint/model_loader.h"
#include "compare.h"
#include "train/trainer.h"
#include "util/error.h"
#include "util/random.h"

using namespace minimind;
using minimind::testing::message_contains;

namespace {

ModelConfig small_config() {
  ModelConfig c;
  c.hidden_size = 32;
  c.num_hidden_layers = 2;
  c.num_attention_heads = 4;
  c.num_key_value_heads = 2;
  c.head_dim = 8;
  c.intermediate_size = 64;
  c.vocab_size = 48;
  c.max_position_embeddings = 64;
  return c;
}

// 11 samples of 3..12 ids in 3..47 from a fixed stream: 4 batches of 3 per epoch (the last one of 2).
PretrainDataset small_data() {
  SplitMix64 rng(7);
  std::vector<std::vector<int32_t>> sequences;
  for (int i = 0; i < 11; ++i) {
    std::vector<int32_t> s = {1};
    const int n = 1 + int(rng.next() % 10);
    for (int k = 0; k < n; ++k) s.push_back(3 + int32_t(rng.next() % 45));
    s.push_back(2);
    sequences.push_back(s);
  }
  DataOptions o;
  o.max_seq_len = 12;
  return PretrainDataset::from_sequences(sequences, o);
}

TrainerOptions recipe() {
  TrainerOptions o;
  o.epochs = 2;
  o.batch_size = 3;
  o.accumulation_steps = 3;  // 4 batches per epoch: steps after batches 3 and 4 (the remainder)
  o.learning_rate = 1e-2;
  o.grad_clip = 0.5;
  return o;
}

struct Run {
  std::vector<double> losses;
  std::vector<std::vector<float>> weights;
};

Run finish(Trainer& trainer, Run run = {}) {
  while (!trainer.done()) run.losses.push_back(trainer.step().loss);
  for (const Parameter& p : trainer.parameters()) run.weights.push_back(p.value);
  return run;
}

}  // namespace

TEST_CASE("a restored trainer continues the saved run bit for bit", "[train][resume]") {
  const ModelConfig config = small_config();
  Model whole = Model::random(config, 5);
  const std::vector<uint8_t> initial = model_safetensors(whole, DType::F32);
  Trainer uninterrupted(whole, small_data(), recipe());
  const Run reference = finish(uninterrupted);
  REQUIRE(reference.losses.size() == 8);

  // k = 2: a gradient pending; 4: an epoch's last batch (the remainder step); 5: one into epoch 2; 8: done.
  for (const int k : {0, 2, 4, 5, 8}) {
    DYNAMIC_SECTION("saved after " << k << " batches") {
      Model first = model_from_safetensors(config, initial.data(), initial.size());
      Trainer before(first, small_data(), recipe());
      Run run;
      for (int i = 0; i < k; ++i) run.losses.push_back(before.step().loss);
      const TrainerState saved = before.state();
      CHECK(saved.grad.empty() == (k % 3 == 0 || k == 4 || k == 8));
      CHECK(saved.epoch * 4 + saved.batch == k);
      const std::vector<uint8_t> weights = model_safetensors(first, DType::F32);

      Model second = model_from_safetensors(config, weights.data(), weights.size());
      Trainer after(second, small_data(), recipe());
      after.restore(saved);
      CHECK(after.batches_done() == k);
      CHECK(after.optimizer().steps() == saved.optimizer_steps);
      const Run resumed = finish(after, run);
      CHECK(resumed.losses == reference.losses);
      REQUIRE(resumed.weights.size() == reference.weights.size());
      for (size_t i = 0; i < reference.weights.size(); ++i) CHECK(resumed.weights[i] == reference.weights[i]);
    }
  }
}

TEST_CASE("restore refuses a state that does not fit, and changes nothing", "[train][resume]") {
  const ModelConfig config = small_config();
  Model model = Model::random(config, 5);
  Trainer trainer(model, small_data(), recipe());
  trainer.step();
  const TrainerState good = trainer.state();
  REQUIRE(good.grad.size() == trainer.parameters().size());

  TrainerState past = good;
  past.epoch = 2;
  past.batch = 1;
  REQUIRE_THROWS_MATCHES(trainer.restore(past), Error, message_contains("outside the schedule"));
  TrainerState mid = good;
  mid.batch = 4;
  REQUIRE_THROWS_MATCHES(trainer.restore(mid), Error, message_contains("2 epochs of 4 batches"));
  TrainerState fewer = good;
  fewer.exp_avg.pop_back();
  REQUIRE_THROWS_MATCHES(trainer.restore(fewer), Error, message_contains("restored with"));
  TrainerState shorter = good;
  shorter.grad[1].pop_back();
  REQUIRE_THROWS_MATCHES(trainer.restore(shorter), Error, message_contains("its gradient"));
  TrainerState negative = good;
  negative.optimizer_steps = -1;
  REQUIRE_THROWS_MATCHES(trainer.restore(negative), Error, message_contains("negative step"));

  const TrainerState now = trainer.state();
  CHECK(now.epoch == good.epoch);
  CHECK(now.batch == good.batch);
  CHECK(now.exp_avg == good.exp_avg);
  CHECK(now.grad == good.grad);
}
