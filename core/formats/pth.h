// Reader for PyTorch checkpoints written by torch.save(model.state_dict(),
// path), as MiniMind's trainer saves them (float16, or float32 / bfloat16),
// and for MiniMind's resume checkpoint (*_resume.pth), whose "model" entry is
// that state dict (the optimizer state and the counters beside it are read
// as data and not used):
// a zip (zip_reader.h) holding <archive>/data.pkl, the pickled dict
// {name: tensor} (read as data, never executed: pickle_reader.h), and one
// record <archive>/data/<key> of raw little-endian bytes per storage.
// Names lose the "module." (DistributedDataParallel) and "_orig_mod."
// (torch.compile) prefixes a wrapped model adds.
//
// Every tensor must be a contiguous row-major view inside its storage
// record; anything else is rejected with a PthError naming the tensor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "formats/pickle_reader.h"
#include "formats/tensor_source.h"
#include "util/error.h"

namespace minimind {

// Every throw names its own kind ("pth.<what>") and the values its message is
// made of (util/error.h), so the page can word it in the reader's language.
class PthError : public Error {
 public:
  PthError(std::string kind, ErrorValues values, const std::string& message)
      : Error(std::move(kind), std::move(values), message) {}
};

struct PthTensor : TensorInfo {   // name (prefixes stripped), dtype, shape
  const uint8_t* data = nullptr;  // first element, inside the file's bytes
  size_t nbytes = 0;              // numel * dtype_size(dtype)
};

// One parameter's AdamW state in a resume checkpoint (index: its place in
// MiniMind's model.parameters()).
struct PthAdamEntry {
  int64_t index = 0;
  double step = 0;                // torch's state['step']
  PthTensor exp_avg, exp_avg_sq;  // F32, [the parameter's shape]
};

struct PthOptimizer {
  std::vector<PthAdamEntry> state;  // in file order
  std::vector<PickledParamGroup> groups;
};

// A parsed view of .pth bytes. Does not copy the bytes: they must outlive
// the object.
class PthFile : public TensorSource {
 public:
  // data.pkl larger than this is refused before it is read: a state dict's
  // pickle takes ~100 bytes per tensor (a few tens of KB for MiniMind).
  static constexpr size_t kMaxPickleBytes = 4u << 20;

  // `label` starts every error message (the file's name, as the user knows it).
  PthFile(const uint8_t* bytes, size_t size, const std::string& label = "model.pth");

  const std::vector<PthTensor>& entries() const { return entries_; }
  const PthTensor* find(const std::string& name) const;
  // The folder inside the zip (torch names it after the file: "model" for model.pth).
  const std::string& archive_name() const { return archive_; }

  // A state dict, or a checkpoint dict whose "model" entry is one.
  bool is_training_checkpoint() const { return kind_ == CheckpointKind::ModelEntry; }
  // MiniMind's resume checkpoint: a "model" entry and an "optimizer" beside it.
  bool is_resume_checkpoint() const;
  // A training checkpoint's counters, when they were pickled as ints.
  std::optional<int64_t> epoch() const { return epoch_; }
  std::optional<int64_t> step() const { return step_; }
  std::optional<int64_t> world_size() const { return world_size_; }
  // A resume checkpoint's AdamW state, when its "optimizer" entry reads as
  // one (float32 moments); else nullopt, and optimizer_problem() says why.
  const std::optional<PthOptimizer>& optimizer() const { return optimizer_; }
  const std::string& optimizer_problem() const { return optimizer_problem_; }

  // Widens the tensor's F32/F16/BF16 data to float32 into out (its element count).
  void read_floats(const PthTensor& tensor, float* out) const;

  // TensorSource
  std::vector<std::string> tensor_names() const override;
  const TensorInfo* tensor_info(const std::string& name) const override { return find(name); }
  void read_tensor(const std::string& name, float* out) const override;
  // For a training checkpoint: what it is and which part was read.
  std::string description() const override;
  Problem description_problem() const override;

 private:
  template <typename Resolve>
  void read_optimizer(const PickledOptimizer& pickled, const Resolve& resolve);
  // Throws a PthError of `kind` with its values, the file's label before `what`.
  [[noreturn]] void fail(const char* kind, ErrorValues values, const std::string& what) const;

  std::string label_;
  std::string archive_;
  std::vector<PthTensor> entries_;
  std::unordered_map<std::string, size_t> by_name_;
  CheckpointKind kind_ = CheckpointKind::StateDict;
  std::vector<std::string> checkpoint_keys_;  // the outer dict's keys (training checkpoints)
  std::optional<int64_t> epoch_, step_, world_size_;
  std::optional<PthOptimizer> optimizer_;
  std::string optimizer_problem_;
};

}  // namespace minimind
