// Training as JS sees it (NativeTrainer).
#pragma once

#include <emscripten/val.h>

#include <memory>
#include <string>
#include <vector>

#include "formats/safetensors.h"
#include "js_options.h"
#include "js_values.h"
#include "model/model.h"
#include "train/trainer.h"

namespace minimind::wasm {

// MiniMind's pretraining loop over a model, one batch per step(); keeps the
// model alive, and writes each optimizer step into it.
class WasmTrainer {
 public:
  // weights_version: the model's counter (WasmModel::weights_version), moved on every step.
  WasmTrainer(std::shared_ptr<Model> model, PretrainDataset data, const TrainerOptions& options,
              std::shared_ptr<uint64_t> weights_version)
      : model_(std::move(model)),
        trainer_(std::make_unique<Trainer>(*model_, std::move(data), options)),
        weights_version_(std::move(weights_version)) {}

  // {epoch, batch, loss, lr, gradNorm (null when the optimizer did not
  // step), tokens, optimizerStep, optimizerSteps, ms}
  val step() {
    return guarded([&] {
      ++*weights_version_;  // first: a step that throws may have written some weights
      const TrainStep s = trainer_->step();
      val out = val::object();
      out.set("epoch", double(s.epoch));
      out.set("batch", double(s.batch));
      out.set("loss", s.loss);
      out.set("lr", s.lr);
      out.set("gradNorm", s.grad_norm ? val(*s.grad_norm) : val::null());
      out.set("tokens", double(s.tokens));
      out.set("optimizerStep", s.optimizer_step);
      out.set("optimizerSteps", double(s.optimizer_steps));
      out.set("ms", s.ms);
      return out;
    });
  }

  // samples: Int32Array of sample indices. {loss, tokens, gradients:
  // [{name, shape, data: Float32Array}], safetensors: Uint8Array (F32,
  // gradients keyed by parameter name)}.
  val loss_and_gradients(const val& samples) {
    return guarded([&] {
      std::vector<int64_t> indices;
      for (const int32_t i : to_ids(samples)) indices.push_back(i);
      std::vector<Parameter> grads;
      const BatchLoss loss = trainer_->loss_and_gradients(indices, grads);
      val out = val::object();
      out.set("loss", loss.loss);
      out.set("tokens", double(loss.tokens));
      val list = val::array();
      std::vector<NamedTensor> tensors;
      for (const Parameter& p : grads) {
        val entry = val::object();
        entry.set("name", p.name);
        entry.set("shape", shape_array(p.shape));
        entry.set("data", typed_copy(p.grad.data(), p.grad.size()));
        list.call<void>("push", entry);
        tensors.push_back({p.name, DType::F32, p.shape, p.grad});
      }
      out.set("gradients", list);
      const std::vector<uint8_t> file = write_safetensors(tensors, {{"format", "pt"}});
      out.set("safetensors", typed_copy(file.data(), file.size()));
      return out;
    });
  }

  // {epoch, batch, optimizerSteps, parameters: [{name, shape, expAvg,
  // expAvgSq: Float32Array, grad: Float32Array or null}]}: Trainer::state()
  // with each parameter's name and shape (parameters() order).
  val state() const {
    return guarded([&] {
      const TrainerState s = trainer_->state();
      val out = val::object();
      out.set("epoch", double(s.epoch));
      out.set("batch", double(s.batch));
      out.set("optimizerSteps", double(s.optimizer_steps));
      val list = val::array();
      const std::vector<Parameter>& params = trainer_->parameters();
      for (size_t i = 0; i < params.size(); ++i) {
        val entry = val::object();
        entry.set("name", params[i].name);
        entry.set("shape", shape_array(params[i].shape));
        entry.set("expAvg", typed_copy(s.exp_avg[i].data(), s.exp_avg[i].size()));
        entry.set("expAvgSq", typed_copy(s.exp_avg_sq[i].data(), s.exp_avg_sq[i].size()));
        entry.set("grad", s.grad.empty() ? val::null() : typed_copy(s.grad[i].data(), s.grad[i].size()));
        list.call<void>("push", entry);
      }
      out.set("parameters", list);
      return out;
    });
  }

  // [{name, shape}] of every parameter, in the order state() lists them.
  val parameters() const {
    return guarded([&] {
      val list = val::array();
      for (const Parameter& p : trainer_->parameters()) {
        val entry = val::object();
        entry.set("name", p.name);
        entry.set("shape", shape_array(p.shape));
        list.call<void>("push", entry);
      }
      return list;
    });
  }

  // state() of a saved run (the JS API has checked names and sizes; the core
  // checks them again and the position against the schedule).
  void restore(const val& state) {
    guarded([&] {
      TrainerState s;
      s.epoch = int64_t(state["epoch"].as<double>());
      s.batch = int64_t(state["batch"].as<double>());
      s.optimizer_steps = int64_t(state["optimizerSteps"].as<double>());
      const val list = state["parameters"];
      const size_t n = list["length"].as<size_t>();
      check_size("parameters", trainer_->parameters().size(), n);
      const bool with_grad = n > 0 && !list[0]["grad"].isNull();
      for (size_t i = 0; i < n; ++i) {
        const val entry = list[i];
        s.exp_avg.push_back(emscripten::convertJSArrayToNumberVector<float>(entry["expAvg"]));
        s.exp_avg_sq.push_back(emscripten::convertJSArrayToNumberVector<float>(entry["expAvgSq"]));
        if (with_grad) s.grad.push_back(emscripten::convertJSArrayToNumberVector<float>(entry["grad"]));
      }
      trainer_->restore(std::move(s));
    });
  }

  std::string info() const {
    return guarded([&] {
      const TrainingMemory m = trainer_->memory();
      return json{{"samples", trainer_->data().size()},
                  {"maxSeqLen", trainer_->data().options().max_seq_len},
                  {"batchesPerEpoch", trainer_->batches_per_epoch()},
                  {"totalBatches", trainer_->total_batches()},
                  {"batchesDone", trainer_->batches_done()},
                  {"optimizerSteps", trainer_->optimizer().steps()},
                  {"done", trainer_->done()},
                  {"memory",
                   {{"weights", m.weights},
                    {"gradients", m.gradients},
                    {"adam", m.adam},
                    {"activations", m.activations},
                    {"transposedWeights", m.transposed_weights},
                    {"modelWeights", m.model_weights},
                    {"total", m.total()}}}}
          .dump();
    });
  }

 private:
  std::shared_ptr<Model> model_;
  std::unique_ptr<Trainer> trainer_;
  std::shared_ptr<uint64_t> weights_version_;
};

}  // namespace minimind::wasm
