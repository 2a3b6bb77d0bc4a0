#include "train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

#include "train/lr_schedule.h"
#include "util/error.h"

namespace minimind {

namespace {

const TrainerOptions& checked(const TrainerOptions& o) {
  const auto at_least_one = [](const char* key, int64_t value) {
    if (value < 1) {
      throw Error("train.option_below_one", {{"key", std::string(key)}, {"value", value}},
                  std::string(key) + " must be at least 1, got " + std::to_string(value));
    }
  };
  at_least_one("epochs", o.epochs);
  at_least_one("batch_size", o.batch_size);
  at_least_one("accumulation_steps", o.accumulation_steps);
  if (!(o.learning_rate > 0.0) || !std::isfinite(o.learning_rate)) {
    throw Error("train.learning_rate", {{"value", double(o.learning_rate)}},
                "learning_rate must be a positive number, got " + std::to_string(o.learning_rate));
  }
  if (!(o.grad_clip > 0.0) || std::isnan(o.grad_clip)) {
    throw Error("train.grad_clip", {{"value", double(o.grad_clip)}},
                "grad_clip must be positive (clip_grad_norm_ with 0 would zero every gradient), got " +
                    std::to_string(o.grad_clip));
  }
  return o;
}

// The data, checked against the model, handed on without a copy.
PretrainDataset fitting(PretrainDataset data, const ModelConfig& c) {
  if (c.use_moe) {
    // MiniMind adds the router's load-balancing aux_loss to the loss when it
    // trains a MoE; without it the run would not be MiniMind's. The gradient
    // of the language-model loss alone is ModelBackward's (model_backward.h).
    throw Error("train.moe_aux_loss_unsupported", {{"num_experts", c.num_experts}},
                "training a MoE model (use_moe: true) is not supported: MiniMind adds the router's auxiliary "
                "load-balancing loss (aux_loss) when training a MoE, and it is not implemented here; train a dense "
                "config (use_moe: false)");
  }
  if (data.size() == 0) throw Error("train.no_samples", {}, "no training samples");
  if (data.max_id() >= c.vocab_size) {
    throw Error("train.data_id_out_of_range", {{"id", int64_t(data.max_id())}, {"last", c.vocab_size - 1}},
                "the data holds token id " + std::to_string(data.max_id()) + ", outside the model's vocabulary (0.." +
                    std::to_string(c.vocab_size - 1) + ")");
  }
  if (data.options().max_seq_len > c.max_position_embeddings) {
    throw Error("train.seq_len_too_long",
                {{"max_seq_len", int64_t(data.options().max_seq_len)}, {"limit", c.max_position_embeddings}},
                "max_seq_len " + std::to_string(data.options().max_seq_len) +
                    " exceeds the model's max_position_embeddings " + std::to_string(c.max_position_embeddings));
  }
  return data;
}

}  // namespace

Trainer::Trainer(Model& model, PretrainDataset data, TrainerOptions options)
    : model_(model),
      data_(fitting(std::move(data), model.config())),
      options_(checked(options)),
      params_(model_parameters(model)),
      adam_(params_),
      backward_(model, params_),
      slots_(weight_slots(model.config(), model.weights_for_update())),
      iters_((data_.size() + options_.batch_size - 1) / options_.batch_size),
      order_(size_t(data_.size())) {
  epoch_order(data_.size(), options_.seed, 0, options_.shuffle, order_.data());
  const int64_t T = data_.options().max_seq_len;
  ids_.resize(size_t(options_.batch_size * T));
  labels_.resize(size_t(options_.batch_size * T));
}

TrainingMemory Trainer::memory() const {
  TrainingMemory m;
  for (const Parameter& p : params_) {
    m.weights += p.value.capacity() * sizeof(float);
    m.gradients += p.grad.capacity() * sizeof(float);
  }
  m.adam = adam_.state_bytes();
  m.activations = backward_.activation_bytes();
  m.transposed_weights = backward_.transposed_weight_bytes();
  m.model_weights = stored_weights(model_.config(), model_.weights()).bytes;
  return m;
}

void Trainer::fill_batch(const int64_t* samples, int64_t B) {
  const int64_t T = data_.options().max_seq_len;
  for (int64_t b = 0; b < B; ++b) data_.sample(samples[b], ids_.data() + b * T, labels_.data() + b * T);
}

// The optimizer's new values into the model's packed weights (float32 from
// now on) and into the backward's transposed copies.
void Trainer::write_back() {
  for (size_t i = 0; i < slots_.size(); ++i) {
    const WeightSlot& slot = slots_[i];
    const float* values = params_[i].value.data();
    if (slot.matrix) {
      slot.matrix->assign_f32(values);
    } else {
      std::copy(values, values + params_[i].numel(), slot.vector->data());
    }
  }
  backward_.weights_changed(params_);
}

TrainStep Trainer::step() {
  if (done()) throw Error("train.done", {}, "training is done: every epoch has run");
  const auto start = std::chrono::steady_clock::now();
  const int64_t T = data_.options().max_seq_len, K = options_.accumulation_steps;
  const int64_t first = batch_ * options_.batch_size;
  const int64_t B = std::min(options_.batch_size, data_.size() - first);  // the last batch may be shorter
  TrainStep s;
  s.epoch = epoch_;
  s.batch = batch_ + 1;
  s.lr = minimind_lr(epoch_ * iters_ + s.batch, options_.epochs * iters_, options_.learning_rate);
  fill_batch(order_.data() + first, B);
  const BatchLoss loss = backward_.run(model_, ids_.data(), labels_.data(), B, T, K, params_);
  s.loss = loss.loss;
  s.tokens = loss.tokens;
  // Every K batches, and once more for an epoch's remainder.
  s.optimizer_step = s.batch % K == 0 || s.batch == iters_;
  if (s.optimizer_step) {
    s.grad_norm = clip_grad_norm(params_, options_.grad_clip);
    adam_.step(params_, s.lr);
    zero_grad(params_);
    write_back();
  }
  s.optimizer_steps = adam_.steps();
  if (++batch_ == iters_) {
    batch_ = 0;
    if (++epoch_ < options_.epochs) epoch_order(data_.size(), options_.seed, epoch_, options_.shuffle, order_.data());
  }
  s.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return s;
}

TrainerState Trainer::state() const {
  TrainerState s;
  s.epoch = epoch_;
  s.batch = batch_;
  s.optimizer_steps = adam_.steps();
  s.exp_avg = adam_.exp_avg();
  s.exp_avg_sq = adam_.exp_avg_sq();
  if (batch_ % options_.accumulation_steps != 0) {
    for (const Parameter& p : params_) s.grad.push_back(p.grad);
  }
  return s;
}

void Trainer::restore(TrainerState s) {
  const auto fail = [](const char* kind, ErrorValues values, const std::string& what) {
    throw Error(kind, std::move(values), "restore: " + what);
  };
  const std::string schedule = std::to_string(options_.epochs) + " epochs of " + std::to_string(iters_) + " batches";
  if (s.epoch < 0 || s.epoch > options_.epochs || s.batch < 0 || s.batch >= iters_ ||
      (s.epoch == options_.epochs && s.batch != 0)) {
    fail("train.restore_outside_schedule",
         {{"epoch", s.epoch}, {"batch", s.batch}, {"epochs", options_.epochs}, {"batches", iters_}},
         "epoch " + std::to_string(s.epoch) + ", batch " + std::to_string(s.batch) + " is outside the schedule (" +
             schedule + ")");
  }
  if (!s.grad.empty()) {
    if (s.grad.size() != params_.size()) {
      fail("train.restore_gradient_count", {{"got", int64_t(s.grad.size())}, {"expected", int64_t(params_.size())}},
           std::to_string(s.grad.size()) + " gradients for " + std::to_string(params_.size()) + " parameters");
    }
    for (size_t i = 0; i < params_.size(); ++i) {
      if (s.grad[i].size() != params_[i].grad.size()) {
        fail("train.restore_gradient_size",
             {{"parameter", params_[i].name},
              {"expected", int64_t(params_[i].grad.size())},
              {"got", int64_t(s.grad[i].size())}},
             params_[i].name + " has " + std::to_string(params_[i].grad.size()) + " elements, its gradient " +
                 std::to_string(s.grad[i].size()));
      }
    }
  }
  adam_.restore(s.optimizer_steps, std::move(s.exp_avg), std::move(s.exp_avg_sq));  // checks its own sizes first
  for (size_t i = 0; i < params_.size(); ++i) {
    if (s.grad.empty()) {
      std::fill(params_[i].grad.begin(), params_[i].grad.end(), 0.0f);
    } else {
      std::copy(s.grad[i].begin(), s.grad[i].end(), params_[i].grad.begin());
    }
  }
  epoch_ = s.epoch;
  batch_ = s.batch;
  // The order of the epoch it stands in: epoch_order is a function of seed and epoch alone.
  if (epoch_ < options_.epochs) epoch_order(data_.size(), options_.seed, epoch_, options_.shuffle, order_.data());
}

BatchLoss Trainer::loss_and_gradients(const std::vector<int64_t>& samples, std::vector<Parameter>& out) {
  if (samples.empty()) throw Error("train.no_samples", {}, "loss_and_gradients needs at least one sample");
  for (const int64_t i : samples) {
    if (i < 0 || i >= data_.size()) {
      throw Error("train.sample_out_of_range", {{"sample", i}, {"last", int64_t(data_.size() - 1)}},
                  "sample " + std::to_string(i) + " is outside the data (0.." + std::to_string(data_.size() - 1) + ")");
    }
  }
  const int64_t B = int64_t(samples.size()), T = data_.options().max_seq_len;
  out = params_;
  zero_grad(out);
  std::vector<int32_t> ids(size_t(B * T)), labels(size_t(B * T));
  for (int64_t b = 0; b < B; ++b) data_.sample(samples[size_t(b)], ids.data() + b * T, labels.data() + b * T);
  return backward_.run(model_, ids.data(), labels.data(), B, T, 1, out);
}

}  // namespace minimind
