// Reads the pickle torch.save writes for a state dict (data.pkl inside the
// .pth zip) as data, WITHOUT executing anything: a small interpreter of the
// opcodes torch uses (protocol 2, its default, and protocol 4 for
// torch.save(..., pickle_protocol=4)), where the only callables are an
// allow-list of names mapped to C++ meanings (an empty OrderedDict, a tensor
// view of a storage, an nn.Parameter around a tensor). Plain data (ints,
// floats, strings, None, bools, tuples, lists, dicts) is read as such, so a
// training checkpoint's optimizer state is data too. Any other opcode or
// global is refused with a PickleError naming it, so a hostile file (e.g. one
// whose pickle calls os.system) is data we decline, never code we run.
//
// What torch 1.13 writes for {name: tensor} (pickletools.dis of data.pkl):
//   PROTO 2, GLOBAL 'collections OrderedDict', EMPTY_TUPLE, REDUCE   (or EMPTY_DICT for a plain dict)
//   MARK, then per tensor:
//     BINUNICODE name
//     GLOBAL 'torch._utils _rebuild_tensor_v2', MARK
//       MARK BINUNICODE 'storage', GLOBAL 'torch HalfStorage', BINUNICODE key, BINUNICODE 'cpu',
//            BININT1 numel, TUPLE, BINPERSID                          -> the storage record data/<key>
//       BININT1 offset, (sizes) TUPLE2, (strides) TUPLE2, NEWFALSE (requires_grad),
//       GLOBAL 'collections OrderedDict', EMPTY_TUPLE, REDUCE (backward hooks), TUPLE, REDUCE
//   SETITEMS; for a module's state_dict() also EMPTY_DICT ... SETITEM BUILD (its _metadata)
//   STOP
// with BINPUT / BINGET memoising every repeated object. nn.Parameter values
// (torch.save of model.named_parameters()) wrap each tensor in
// GLOBAL 'torch._utils _rebuild_parameter' (tensor, requires_grad, hooks) REDUCE.
// Protocol 4 adds FRAME, MEMOIZE, SHORT_BINUNICODE and STACK_GLOBAL (the
// module and name pushed as strings; the same allow-list applies).
//
// MiniMind's resume checkpoint (trainer_utils.lm_checkpoint, saved as
// <weight>_<hidden>[_moe]_resume.pth) is a dict {"model": the half-precision
// state dict, "optimizer": AdamW's state_dict() (tensors, floats, lists),
// "epoch", "step", "world_size", "wandb_id"[, "scaler"]}: its "model" entry
// is the state dict read, and its "optimizer" entry AdamW's state (to
// continue the run).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "formats/tensor_source.h"
#include "util/error.h"
#include "util/tensor.h"

namespace minimind {

// Every throw names its own kind ("pickle.<what>") and the values its message is
// made of (util/error.h), so the page can word it in the reader's language.
class PickleError : public Error {
 public:
  PickleError(std::string kind, ErrorValues values, const std::string& message)
      : Error(std::move(kind), std::move(values), message) {}
};

// One entry of the state dict: a view of a storage record.
struct PickledTensor {
  std::string name;
  DType dtype = DType::F32;     // from the storage type (FloatStorage, HalfStorage, BFloat16Storage)
  std::string storage_key;      // the record <archive>/data/<key>
  uint64_t storage_numel = 0;   // elements the storage declares
  uint64_t storage_offset = 0;  // in elements
  Shape shape;
  Shape stride;  // in elements
};

// Dimensions a tensor may declare (PyTorch's own limit is 64; MiniMind's are
// at most 2).
constexpr size_t kMaxPickledDims = 16;

// What the pickled object was.
enum class CheckpointKind {
  StateDict,  // {name: tensor}
  ModelEntry  // a dict whose "model" entry is {name: tensor} (MiniMind's resume checkpoint)
};

// One parameter's entry of AdamW's state_dict()["state"], which torch keys
// by the parameter's place in model.parameters().
struct PickledAdamEntry {
  int64_t index = 0;
  std::optional<double> step;                // a number (PyTorch < 1.12)
  std::optional<PickledTensor> step_tensor;  // a 0-dim float tensor (PyTorch >= 1.12)
  PickledTensor exp_avg, exp_avg_sq;         // [the parameter's shape]
};

// One of state_dict()["param_groups"]: its hyperparameters and parameter indices.
struct PickledParamGroup {
  std::vector<int64_t> params;
  double lr = 0, beta1 = 0, beta2 = 0, eps = 0, weight_decay = 0;
  bool amsgrad = false;
};

// torch.optim.AdamW's state_dict(), as MiniMind's resume checkpoint keeps it
// under "optimizer":
//   {"state": {index: {"step": tensor(float) or a number, "exp_avg": tensor, "exp_avg_sq": tensor}},
//    "param_groups": [{"lr", "betas": (b1, b2), "eps", "weight_decay", "amsgrad", ..., "params": [index, ...]}]}
struct PickledOptimizer {
  std::vector<PickledAdamEntry> state;  // in file order
  std::vector<PickledParamGroup> groups;
};

struct PickledCheckpoint {
  CheckpointKind kind = CheckpointKind::StateDict;
  std::vector<PickledTensor> tensors;  // the state dict, in file order
  // ModelEntry: the outer dict's string keys in file order, and its
  // "epoch", "step", "world_size" when they are ints.
  std::vector<std::string> keys;
  std::optional<int64_t> epoch, step, world_size;
  // ModelEntry with an "optimizer" entry: AdamW's state when it reads as
  // one, else why not (the weights load either way).
  std::optional<PickledOptimizer> optimizer;
  std::string optimizer_problem;
};

// Interprets `bytes` as a state-dict pickle ({name: tensor} in file order),
// or a checkpoint dict holding one under "model". Throws PickleError for
// anything else (message ends with the byte offset).
PickledCheckpoint read_checkpoint_pickle(const uint8_t* bytes, size_t size);

}  // namespace minimind
