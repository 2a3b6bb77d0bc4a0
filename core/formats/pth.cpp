#include "formats/pth.h"

#include <algorithm>
#include <cstring>

#include "formats/zip_reader.h"

namespace minimind {

namespace {

// "model.layers.0..." from "module._orig_mod.model.layers.0...": the
// prefixes DistributedDataParallel and torch.compile add to every name.
std::string strip_wrapper_prefixes(std::string name) {
  for (bool again = true; again;) {
    again = false;
    for (const char* prefix : {"module.", "_orig_mod."}) {
      const size_t n = std::strlen(prefix);
      if (name.size() > n && name.compare(0, n, prefix) == 0) {
        name.erase(0, n);
        again = true;
      }
    }
  }
  return name;
}

bool starts_with(const uint8_t* bytes, size_t size, const char* magic, size_t offset = 0) {
  const size_t n = std::strlen(magic);
  return size >= offset + n && std::memcmp(bytes + offset, magic, n) == 0;
}

// Elements of `shape`, or -1 when a product of its leading dimensions exceeds
// 2^48 (as the safetensors reader limits them: shape_numel cannot overflow).
int64_t checked_numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d != 0 && n > (int64_t{1} << 48) / d) return -1;
    n *= d;
  }
  return n;
}

// Row-major contiguity as PyTorch's is_contiguous() judges it: the stride of
// a dimension of size 1 does not matter.
bool is_contiguous(const Shape& shape, const Shape& stride) {
  int64_t expected = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] != 1 && stride[i] != expected) return false;
    expected *= shape[i];  // bounded by the storage's element count, checked before
  }
  return true;
}

}  // namespace

PthFile::PthFile(const uint8_t* bytes, size_t size, const std::string& label) : label_(label) {
  if (!starts_with(bytes, size, "PK\x03\x04")) {
    if (size >= 2 && bytes[0] == 0x80 && bytes[1] <= 5) {
      fail("pth.legacy_format", {},
           "this is the legacy torch.save format (PyTorch < 1.6 or _use_new_zipfile_serialization=False), "
           "which is not supported: re-save it with torch.save in a recent PyTorch");
    }
    if (starts_with(bytes, size, "ustar", 257))
      fail("pth.legacy_format", {}, "this is the tar-based torch.save format, which is not supported");
    fail("pth.not_zip", {}, "not a torch.save checkpoint: the file does not start like a zip (PK\\x03\\x04)");
  }
  try {
    const ZipReader zip(bytes, size);
    const ZipEntry* pickle = nullptr;
    for (const ZipEntry& e : zip.entries()) {
      const size_t slash = e.name.find('/');
      if (slash == std::string::npos || e.name.compare(slash, std::string::npos, "/data.pkl") != 0) continue;
      if (pickle)
        fail("pth.two_pickles", {{"first", pickle->name}, {"second", e.name}},
             "the zip holds two pickles, " + pickle->name + " and " + e.name);
      pickle = &e;
      archive_ = e.name.substr(0, slash);
    }
    if (!pickle)
      fail("pth.no_pickle", {}, "the zip has no <archive>/data.pkl record: not a checkpoint written by torch.save");
    if (const ZipEntry* order = zip.find(archive_ + "/byteorder")) {  // written by PyTorch >= 2.1
      if (order->size != 6 || std::memcmp(zip.data(*order), "little", 6) != 0) {
        fail("pth.big_endian", {{"record", archive_ + "/byteorder"}},
             "the tensors are stored big-endian (" + archive_ + "/byteorder); only little-endian files are supported");
      }
    }
    if (pickle->size > kMaxPickleBytes) {
      fail("pth.pickle_too_large",
           {{"record", pickle->name}, {"bytes", int64_t(pickle->size)}, {"limit", int64_t(kMaxPickleBytes)}},
           pickle->name + " is " + std::to_string(pickle->size) + " bytes, over the limit of " +
               std::to_string(kMaxPickleBytes) + " (a state dict's pickle is a few tens of KB)");
    }
    const PickledCheckpoint pickled = read_checkpoint_pickle(zip.data(*pickle), size_t(pickle->size));
    kind_ = pickled.kind;
    checkpoint_keys_ = pickled.keys;
    epoch_ = pickled.epoch;
    step_ = pickled.step;
    world_size_ = pickled.world_size;

    // A tensor's bytes inside its storage record, checked.
    const auto resolve = [&](const PickledTensor& p, const std::string& name) {
      PthTensor t;
      t.name = name;
      t.dtype = p.dtype;
      t.shape = p.shape;
      const std::string where = "tensor \"" + t.name + "\"";
      const std::string record_name = archive_ + "/data/" + p.storage_key;
      const ZipEntry* record = zip.find(record_name);
      if (!record)
        fail("pth.record_missing", {{"tensor", t.name}, {"record", record_name}},
             where + ": its storage has no record " + record_name + " in the zip");
      const uint8_t* storage = zip.data(*record);
      const uint64_t item = dtype_size(p.dtype);
      if (p.storage_numel > record->size / item) {
        fail("pth.storage_too_small",
             {{"tensor", t.name},
              {"elements", int64_t(p.storage_numel)},
              {"dtype", dtype_name(p.dtype)},
              {"record", record_name},
              {"bytes", int64_t(record->size)}},
             where + ": its storage declares " + std::to_string(p.storage_numel) + " elements of " +
                 dtype_name(p.dtype) + " but record " + record_name + " holds only " + std::to_string(record->size) +
                 " bytes");
      }
      const int64_t numel = checked_numel(p.shape);
      if (numel < 0)
        fail("pth.shape_too_large", {{"tensor", t.name}, {"shape", shape_to_string(p.shape)}},
             where + ": shape " + shape_to_string(p.shape) + " is too large");
      if (p.storage_offset > p.storage_numel || uint64_t(numel) > p.storage_numel - p.storage_offset) {
        fail("pth.past_storage",
             {{"tensor", t.name},
              {"shape", shape_to_string(p.shape)},
              {"offset", int64_t(p.storage_offset)},
              {"elements", int64_t(p.storage_numel)}},
             where + ": shape " + shape_to_string(p.shape) + " at storage offset " + std::to_string(p.storage_offset) +
                 " runs past its storage of " + std::to_string(p.storage_numel) + " elements");
      }
      if (numel > 0 && !is_contiguous(p.shape, p.stride)) {
        fail("pth.not_contiguous",
             {{"tensor", t.name}, {"stride", shape_to_string(p.stride)}, {"shape", shape_to_string(p.shape)}},
             where + ": stride " + shape_to_string(p.stride) + " for shape " + shape_to_string(p.shape) +
                 " is not contiguous row-major; save tensors made contiguous (tensor.contiguous())");
      }
      t.data = storage + p.storage_offset * item;
      t.nbytes = size_t(uint64_t(numel) * item);
      return t;
    };
    for (const PickledTensor& p : pickled.tensors) {
      PthTensor t = resolve(p, strip_wrapper_prefixes(p.name));
      if (!by_name_.emplace(t.name, entries_.size()).second) {
        fail("pth.duplicate_tensor", {{"tensor", t.name}},
             "the state dict names " + t.name + " twice (once with a module. or _orig_mod. prefix?)");
      }
      entries_.push_back(std::move(t));
    }
    optimizer_problem_ = pickled.optimizer_problem;
    if (pickled.optimizer) read_optimizer(*pickled.optimizer, resolve);
  } catch (const PthError&) {
    throw;
  } catch (const Error& e) {  // ZipError, PickleError: the file's label in front, their kind and values kept
    throw PthError(e.kind(), e.values(), label_ + ": " + e.what());
  }
}

template <typename Resolve>
void PthFile::read_optimizer(const PickledOptimizer& pickled, const Resolve& resolve) {
  PthOptimizer out;
  out.groups = pickled.groups;
  for (const PickledAdamEntry& p : pickled.state) {
    PthAdamEntry e;
    e.index = p.index;
    e.exp_avg = resolve(p.exp_avg, p.exp_avg.name);
    e.exp_avg_sq = resolve(p.exp_avg_sq, p.exp_avg_sq.name);
    if (p.step_tensor) {
      const PthTensor step = resolve(*p.step_tensor, p.step_tensor->name);
      if (step.nbytes != dtype_size(step.dtype)) {
        optimizer_problem_ = "the 'optimizer' entry's " + step.name + " is not one number";
        return;
      }
      float value = 0;
      widen_to_f32(step.dtype, step.data, 1, &value);
      e.step = value;
    } else {
      e.step = p.step.value_or(0);
    }
    if (e.exp_avg.dtype != DType::F32 || e.exp_avg_sq.dtype != DType::F32 || e.exp_avg.shape != e.exp_avg_sq.shape) {
      optimizer_problem_ =
          "the 'optimizer' entry's state " + std::to_string(p.index) + " is not two float32 tensors of one shape";
      return;
    }
    out.state.push_back(std::move(e));
  }
  optimizer_ = std::move(out);
}

void PthFile::fail(const char* kind, ErrorValues values, const std::string& what) const {
  throw PthError(kind, std::move(values), label_ + ": " + what);
}

const PthTensor* PthFile::find(const std::string& name) const {
  const auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &entries_[it->second];
}

void PthFile::read_floats(const PthTensor& tensor, float* out) const {
  widen_to_f32(tensor.dtype, tensor.data, tensor.nbytes / dtype_size(tensor.dtype), out);
}

std::vector<std::string> PthFile::tensor_names() const {
  std::vector<std::string> names;
  for (const PthTensor& t : entries_) names.push_back(t.name);
  return names;
}

bool PthFile::is_resume_checkpoint() const {
  return is_training_checkpoint() &&
         std::find(checkpoint_keys_.begin(), checkpoint_keys_.end(), "optimizer") != checkpoint_keys_.end();
}

std::string PthFile::description() const {
  if (!is_training_checkpoint()) return {};
  std::string keys, counters;
  for (const std::string& key : checkpoint_keys_) keys += (keys.empty() ? "" : ", ") + key;
  for (const auto& [name, value] : {std::pair{"epoch", epoch_}, {"step", step_}, {"world_size", world_size_}}) {
    if (value) counters += std::string(counters.empty() ? "; " : ", ") + name + " " + std::to_string(*value);
  }
  if (is_resume_checkpoint()) {
    return label_ + " is MiniMind's resume checkpoint (a dict of " + keys + counters +
           "): its weights are the 'model' entry; the optimizer state is not used";
  }
  return label_ + " is a checkpoint dict (" + keys + counters + "): its weights are the 'model' entry";
}

Problem PthFile::description_problem() const {
  if (!is_training_checkpoint()) return {};
  std::string keys;
  for (const std::string& key : checkpoint_keys_) keys += (keys.empty() ? "" : ", ") + key;
  if (is_resume_checkpoint())
    return {"pth.resume_checkpoint", {{"file", label_}, {"keys", keys}}, "(" + description() + ")"};
  return {"pth.checkpoint_dict", {{"file", label_}, {"keys", keys}}, "(" + description() + ")"};
}

void PthFile::read_tensor(const std::string& name, float* out) const {
  const PthTensor* t = find(name);
  if (!t) throw PthError("pth.missing_tensor", {{"tensor", name}}, label_ + ": no tensor \"" + name + "\" in the file");
  read_floats(*t, out);
}

}  // namespace minimind
