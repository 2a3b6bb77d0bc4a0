#include "model/generation.h"

#include <algorithm>
#include <stdexcept>

#include "util/error.h"

namespace minimind {

Generator::Generator(const Model& model, std::vector<int32_t> prompt, const SamplingParams& params,
                     Trace* prefill_trace, int64_t reserve_tokens)
    : model_(model), sampler_(params), cache_(model.make_cache()), ids_(std::move(prompt)) {
  if (ids_.empty())
    throw Error("generation.empty_prompt", {}, "the prompt is empty: generation needs at least one token");
  const ModelConfig& c = model_.config();
  const int64_t T = int64_t(ids_.size()), V = c.vocab_size;
  const int64_t room =
      std::min(c.max_position_embeddings, std::max(T, reserve_tokens > 0 ? reserve_tokens : T + kDefaultRoom));
  cache_.reserve(room);
  workspace_.reserve(c, 1, room);  // the one-token steps; the prefill grows it for T
  ids_.reserve(size_t(room));
  next_logits_.resize(size_t(V));
  chosen_logits_.resize(size_t(V));
  sampler_.reserve(V);
  // Only the last token's logits: they choose the first new token.
  model_.forward_into(ids_.data(), T, cache_, workspace_, next_logits_.data(), 1, nullptr, {}, prefill_trace);
}

GenerationStep Generator::choose() {
  if (finished_)
    throw Error("generation.ended", {}, "generation already ended (the eos token, the position limit or a final step)");
  GenerationStep out;
  chosen_logits_.swap(next_logits_);  // both hold [V]: no copy
  out.token = sampler_.next(chosen_logits_.data(), int64_t(chosen_logits_.size()), ids_);
  out.is_eos = out.token == model_.config().eos_token_id;
  ids_.push_back(out.token);
  return out;
}

// After the last step, the next distribution is the one the last token came
// from (nothing follows it).
GenerationStep Generator::final_step() {
  GenerationStep out = choose();
  finished_ = true;
  next_logits_ = chosen_logits_;
  return out;
}

GenerationStep Generator::step(Trace* trace) {
  GenerationStep out = choose();
  if (out.is_eos || int64_t(ids_.size()) >= model_.config().max_position_embeddings) {
    finished_ = true;
    next_logits_ = chosen_logits_;
    return out;
  }
  model_.forward_into(&out.token, 1, cache_, workspace_, next_logits_.data(), 1, nullptr, {}, trace);  // [1, V]
  return out;
}

std::vector<float> Generator::next_probabilities() const {
  return sampler_.probabilities(next_logits_.data(), int64_t(next_logits_.size()), ids_);
}

std::vector<int32_t> generate(const Model& model, const std::vector<int32_t>& prompt, int64_t max_new_tokens,
                              const SamplingParams& params) {
  if (max_new_tokens < 0)
    throw Error("generation.negative_max_new_tokens", {{"value", max_new_tokens}},
                "max_new_tokens must not be negative");
  Generator generator(model, prompt, params, nullptr, int64_t(prompt.size()) + max_new_tokens);
  std::vector<int32_t> tokens;
  // The last token is chosen without feeding it: its logits would go unused.
  while (int64_t(tokens.size()) + 1 < max_new_tokens && !generator.finished()) tokens.push_back(generator.step().token);
  if (int64_t(tokens.size()) < max_new_tokens && !generator.finished()) tokens.push_back(generator.final_step().token);
  return tokens;
}

}  // namespace minimind
