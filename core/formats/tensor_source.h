// TensorSource: named tensors of a weight file, whatever the container
// (safetensors, PyTorch .pth), so that weight loading and config inference
// read both through one interface.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "util/error.h"
#include "util/tensor.h"

namespace minimind {

// Element types a weight file may store. Floating-point data is widened to
// float32 exactly; I32 only appears in test fixtures (token ids).
enum class DType { F32, F16, BF16, I32 };

const char* dtype_name(DType dtype);  // "F32", "F16", "BF16", "I32", as safetensors spells them
size_t dtype_size(DType dtype);       // bytes per element

// Widens `count` little-endian F32/F16/BF16 values at `bytes` to float32
// (exact: every F16 and BF16 value is a float32). I32 is refused by the
// callers before they get here.
void widen_to_f32(DType dtype, const uint8_t* bytes, size_t count, float* out);

struct TensorInfo {
  std::string name;  // MiniMind's state-dict name
  DType dtype = DType::F32;
  Shape shape;
};

class TensorSource {
 public:
  virtual ~TensorSource() = default;

  // Every tensor's name, in file order.
  virtual std::vector<std::string> tensor_names() const = 0;
  // Name, dtype and shape of one tensor; nullptr when the file has none of
  // that name.
  virtual const TensorInfo* tensor_info(const std::string& name) const = 0;
  // Widens the named tensor to float32 into out (its element count); throws
  // when it is missing or not floating point.
  virtual void read_tensor(const std::string& name, float* out) const = 0;
  // What the file is, when that is worth adding to a message about it (a
  // training checkpoint rather than a plain state dict); empty otherwise.
  virtual std::string description() const { return {}; }
  // The same as a config problem with a kind and values, so the page can word
  // it; kind "" when there is no description.
  virtual Problem description_problem() const { return {}; }
};

}  // namespace minimind
