#include "util/tensor.h"

#include <string>

namespace minimind {

Tensor::Tensor(Shape s) : shape(std::move(s)), data(static_cast<size_t>(shape_numel(shape)), 0.0f) {}

int64_t Tensor::numel() const { return shape_numel(shape); }

int64_t shape_numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string shape_to_string(const Shape& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

}  // namespace minimind
