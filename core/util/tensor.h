// Shape legend used in every comment of the core:
//   B batch, T tokens of this call, P tokens already cached, Tk = P + T keys,
//   D hidden_size, H q heads, Hkv kv heads, Dh head_dim, R = H / Hkv,
//   F intermediate size, E experts, V vocab, L layers.
//
// PyTorch tensors are row-major; Eigen defaults to column-major. Every matrix
// in the core mirrors a PyTorch tensor, so this header fixes the layout once:
// a Matrix [rows, cols] is row-major and its data() is laid out exactly like
// the PyTorch tensor of the same shape. A linear weight W is [out, in] and is
// applied as y = x · Wᵀ, as nn.Linear does.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

namespace minimind {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::Matrix<float, Eigen::Dynamic, 1>;
using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic>;
using MatrixMap = Eigen::Map<Matrix>;
using ConstMatrixMap = Eigen::Map<const Matrix>;

using Shape = std::vector<int64_t>;

// A dense float32 tensor with an explicit shape: what the trace hands out.
struct Tensor {
  Shape shape;
  std::vector<float> data;  // row-major, size = product of shape

  Tensor() = default;
  explicit Tensor(Shape s);
  int64_t numel() const;
};

// The first n elements of a scratch buffer, grown if it holds fewer. A
// buffer that is reused only grows, so a loop over calls of one size stops
// allocating after its first call.
template <typename T>
T* scratch(std::vector<T>& buffer, int64_t n) {
  if (buffer.size() < size_t(n)) buffer.resize(size_t(n));
  return buffer.data();
}

int64_t shape_numel(const Shape& shape);
std::string shape_to_string(const Shape& shape);  // "(2, 5, 64)", as PyTorch prints

}  // namespace minimind
