// Step-by-step generation with the KV cache (MiniMind's generate): a prefill
// of the prompt, then one token per step, each step feeding only the new token.
#pragma once

#include <cstdint>
#include <vector>

#include "model/model.h"
#include "model/sampler.h"

namespace minimind {

struct GenerationStep {
  int32_t token = 0;    // the token chosen at this step
  bool is_eos = false;  // token == eos_token_id: generation is over
};

class Generator {
 public:
  // Runs the prefill of `prompt` (non-empty) into a fresh cache. The cache
  // and the scratch memory make room for `reserve_tokens` tokens in all
  // (prompt + generated; 0: the prompt + kDefaultRoom, and never more than
  // max_position_embeddings): untraced steps up to there allocate nothing.
  // Later steps still run; their cache grows as it goes.
  Generator(const Model& model, std::vector<int32_t> prompt, const SamplingParams& params,
            Trace* prefill_trace = nullptr, int64_t reserve_tokens = 0);
  static constexpr int64_t kDefaultRoom = 64;

  // Chooses the next token from the last logits, then feeds it through the
  // model (so the following step's logits are ready). `trace` receives that
  // one-token forward: its attention rows are [H, 1, Tk].
  GenerationStep step(Trace* trace = nullptr);
  // The last step of a run: chooses the next token without feeding it
  // through the model (nobody will read the logits after it), and ends the
  // generation.
  GenerationStep final_step();

  const std::vector<int32_t>& ids() const { return ids_; }  // prompt + generated
  const KVCache& cache() const { return cache_; }
  // [V] the logits the last step's token was chosen from.
  const std::vector<float>& chosen_logits() const { return chosen_logits_; }
  bool finished() const { return finished_; }
  // The distribution the next step samples from: [V].
  std::vector<float> next_probabilities() const;

 private:
  GenerationStep choose();  // samples the next token from next_logits_ and appends it

  const Model& model_;
  Sampler sampler_;
  KVCache cache_;
  ForwardWorkspace workspace_;
  std::vector<int32_t> ids_;
  std::vector<float> next_logits_;    // [V]
  std::vector<float> chosen_logits_;  // [V]
  bool finished_ = false;
};

// Generates up to max_new_tokens (stops after eos). Returns the new tokens.
std::vector<int32_t> generate(const Model& model, const std::vector<int32_t>& prompt, int64_t max_new_tokens,
                              const SamplingParams& params);

}  // namespace minimind
