// KV cache: per layer, k after q/k norm and RoPE and raw v, [Tk, Hkv, Dh],
// before head repetition (MiniMind's past_key_value). A new step appends.
#pragma once

#include <vector>

#include "tensor.h"

namespace minimind {

struct LayerKVCache {
  std::vector<float> k;  // [Tk, Hkv·Dh] row-major
  std::vector<float> v;  // [Tk, Hkv·Dh]
};

class KVCache {
 public:
  KVCache(int64_t num_layers, int64_t kv_dim) : layers_(size_t(num_layers)), kv_dim_(kv_dim) {}

  int64_t length() const { return length_; }  // P: tokens cached so far
  int64_t kv_dim() const { return kv_dim_; }  // Hkv·Dh
  int64_t num_layers() const { return int64_t(layers_.size()); }
  int64_t bytes() const { return 2 * length_ * kv_dim_ * int64_t(sizeof(float)) * num_layers(); }

  LayerKVCache& layer(int64_t i) { return layers_[size_t(i)]; }
  const LayerKVCache& layer(int64_t i) const { return layers_[size_t(i)]; }

  // Called once per forward after every layer appended `tokens` rows.
  void advance(int64_t tokens) { length_ += tokens; }
  void clear();

 private:
  std::vector<LayerKVCache> layers_;
  int64_t kv_dim_;
  int64_t length_ = 0;
};

}  // namespace minimind
