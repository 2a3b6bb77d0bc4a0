// MiniMind's pretraining loop (trainer/train_pretrain.py) over a Model: the
// same object the forward, the trace and generation use, whose weights are
// rewritten after every optimizer step, so that they show the model as
// trained so far. One call of step() is one batch of the loop:
//
//   lr = get_lr(epoch * iters + step, epochs * iters, learning_rate)
//   loss = model(input_ids, labels).loss / accumulation_steps; backward()
//   every accumulation_steps batches (and for an epoch's remainder):
//     clip_grad_norm_(parameters, grad_clip); AdamW step; zero_grad
//
// Float32 master weights and Adam state; a model whose weights were float16
// starts from their exact float32 values.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "model/model.h"
#include "train/adamw.h"
#include "train/model_backward.h"
#include "train/parameter.h"
#include "train/pretrain_data.h"

namespace minimind {

struct TrainerOptions {
  int64_t epochs = 1;
  int64_t batch_size = 32;
  int64_t accumulation_steps = 8;
  double learning_rate = 5e-4;
  double grad_clip = 1.0;
  uint64_t seed = 42;
  bool shuffle = true;  // false: file order (--order file)
};

// What one batch did (one line of --log).
struct TrainStep {
  int64_t epoch = 0;  // 0-based, as MiniMind counts epochs
  int64_t batch = 0;  // 1-based within the epoch (MiniMind's `step`)
  double loss = 0.0;  // the batch's mean loss, before ÷ accumulation_steps (what MiniMind logs)
  double lr = 0.0;
  bool optimizer_step = false;
  std::optional<double> grad_norm;  // clip_grad_norm_'s value when the optimizer stepped
  int64_t tokens = 0;               // labelled positions in the batch
  int64_t optimizer_steps = 0;      // optimizer steps taken so far
  double ms = 0.0;                  // wall time of this batch
};

// The memory of a training run, in bytes.
struct TrainingMemory {
  size_t weights = 0;             // float32 master weights
  size_t gradients = 0;           // one float per weight
  size_t adam = 0;                // AdamW's two moments
  size_t activations = 0;         // saved activations and their gradients (the largest batch so far)
  size_t transposed_weights = 0;  // Wᵀ packed for the backward's products
  size_t model_weights = 0;       // the model's own packed copy (what forward reads)
  size_t total() const { return weights + gradients + adam + activations + transposed_weights + model_weights; }
};

// What continuing a run needs beside the model's weights, per parameter in
// parameters() order: AdamW's state (torch's optimizer.state_dict()), where
// the loop stands (MiniMind's resume checkpoint keeps epoch and step too),
// and the gradients summed since the last optimizer step (MiniMind's
// checkpoint keeps none: a run saved between accumulation steps and resumed
// there loses them).
struct TrainerState {
  int64_t epoch = 0;                                    // 0-based; epochs when the run is done
  int64_t batch = 0;                                    // batches done in `epoch` (MiniMind's step)
  int64_t optimizer_steps = 0;                          // torch's state['step'], the same for every parameter
  std::vector<std::vector<float>> exp_avg, exp_avg_sq;  // per parameter [numel]
  std::vector<std::vector<float>> grad;                 // per parameter [numel], or empty: all zero
};

class Trainer {
 public:
  // Throws minimind::Error for bad options or data that does not fit
  // the model (ids outside the vocabulary, max_seq_len beyond its positions);
  // throws Error "train.moe_aux_loss_unsupported" for MoE configs (MiniMind's
  // aux_loss is not done). `model` must outlive the trainer.
  Trainer(Model& model, PretrainDataset data, TrainerOptions options = {});

  bool done() const { return epoch_ >= options_.epochs; }
  int64_t batches_per_epoch() const { return iters_; }  // MiniMind's iters
  int64_t total_batches() const { return iters_ * options_.epochs; }
  int64_t batches_done() const { return epoch_ * iters_ + batch_; }
  const TrainerOptions& options() const { return options_; }
  const PretrainDataset& data() const { return data_; }
  const std::vector<Parameter>& parameters() const { return params_; }
  const AdamW& optimizer() const { return adam_; }
  TrainingMemory memory() const;

  // Runs the next batch; throws minimind::Error once done().
  TrainStep step();

  // The state to save; grad is empty when no gradient is pending (after an
  // optimizer step, or before the first batch).
  TrainerState state() const;
  // Continues a saved run: a trainer built over the model as saved (its
  // weights), the same data and options, then restored, runs on exactly as
  // the saved one would have. Throws minimind::Error (and changes
  // nothing) for a position outside the schedule or state of other sizes.
  void restore(TrainerState state);

  // For inspection: the loss and every parameter's gradient for the given
  // samples (indices into the data), as one batch with no ÷ accumulation,
  // leaving the training state untouched. The returned parameters carry the
  // current values and these gradients.
  BatchLoss loss_and_gradients(const std::vector<int64_t>& samples, std::vector<Parameter>& gradients_out);

 private:
  void fill_batch(const int64_t* samples, int64_t B);
  void write_back();

  Model& model_;
  PretrainDataset data_;
  TrainerOptions options_;
  std::vector<Parameter> params_;
  AdamW adam_;
  ModelBackward backward_;
  std::vector<WeightSlot> slots_;  // the model's weights, in params_ order
  int64_t iters_ = 0;
  int64_t epoch_ = 0, batch_ = 0;      // position: batches done in the current epoch
  std::vector<int64_t> order_;         // [n] this epoch's sample order
  std::vector<int32_t> ids_, labels_;  // [B, T] the current batch
};

}  // namespace minimind
