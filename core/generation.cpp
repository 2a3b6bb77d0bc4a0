#include "generation.h"

#include <stdexcept>

namespace minimind {

Generator::Generator(const Model& model, std::vector<int32_t> prompt, const SamplingParams& params,
                     Trace* prefill_trace)
    : model_(model), sampler_(params), cache_(model.make_cache()), ids_(std::move(prompt)) {
  if (ids_.empty()) throw std::invalid_argument("the prompt is empty: generation needs at least one token");
  const Matrix logits = model_.forward(ids_, &cache_, {}, {}, prefill_trace);  // [T, V]
  next_logits_.assign(logits.row(logits.rows() - 1).data(), logits.row(logits.rows() - 1).data() + logits.cols());
}

GenerationStep Generator::choose() {
  if (finished_) throw std::logic_error("generation already ended (the eos token, the position limit or a final step)");
  GenerationStep out;
  out.logits = next_logits_;
  out.token = sampler_.next(next_logits_.data(), int64_t(next_logits_.size()), ids_);
  out.is_eos = out.token == model_.config().eos_token_id;
  ids_.push_back(out.token);
  return out;
}

GenerationStep Generator::final_step() {
  GenerationStep out = choose();
  finished_ = true;
  return out;
}

GenerationStep Generator::step(Trace* trace) {
  GenerationStep out = choose();
  if (out.is_eos || int64_t(ids_.size()) >= model_.config().max_position_embeddings) {
    finished_ = true;
    return out;
  }
  const Matrix logits = model_.forward({out.token}, &cache_, {}, {}, trace);  // [1, V]
  next_logits_.assign(logits.data(), logits.data() + logits.size());
  return out;
}

std::vector<float> Generator::next_probabilities() const {
  return sampler_.probabilities(next_logits_.data(), int64_t(next_logits_.size()), ids_);
}

std::vector<int32_t> generate(const Model& model, const std::vector<int32_t>& prompt, int64_t max_new_tokens,
                              const SamplingParams& params) {
  if (max_new_tokens < 0) throw std::invalid_argument("max_new_tokens must not be negative");
  Generator generator(model, prompt, params);
  std::vector<int32_t> tokens;
  // The last token is chosen without feeding it: its logits would go unused.
  while (int64_t(tokens.size()) + 1 < max_new_tokens && !generator.finished()) tokens.push_back(generator.step().token);
  if (int64_t(tokens.size()) < max_new_tokens && !generator.finished()) tokens.push_back(generator.final_step().token);
  return tokens;
}

}  // namespace minimind
