// Reader for PyTorch checkpoints written by torch.save(model.state_dict(),
// path), as MiniMind's trainer saves them (float16, or float32 / bfloat16):
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
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/tensor_source.h"

namespace minimind {

class PthError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct PthTensor : TensorInfo {   // name (prefixes stripped), dtype, shape
  const uint8_t* data = nullptr;  // first element, inside the file's bytes
  size_t nbytes = 0;              // numel * dtype_size(dtype)
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

  // Widens the tensor's F32/F16/BF16 data to float32 into out (its element count).
  void read_floats(const PthTensor& tensor, float* out) const;

  // TensorSource
  std::vector<std::string> tensor_names() const override;
  const TensorInfo* tensor_info(const std::string& name) const override { return find(name); }
  void read_tensor(const std::string& name, float* out) const override;

 private:
  [[noreturn]] void fail(const std::string& what) const;

  std::string label_;
  std::string archive_;
  std::vector<PthTensor> entries_;
  std::map<std::string, size_t> by_name_;
};

}  // namespace minimind
