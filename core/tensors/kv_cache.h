// KV cache: per layer, k after q/k norm and RoPE and raw v, [Tk, Hkv, Dh],
// before head repetition (MiniMind's past_key_value). A new step appends.
// Each kv head's keys are also kept packed in panels (weight_matrix.h), the
// layout the score kernel reads, so a decode step packs only its own key.
#pragma once

#include <vector>

#include "tensors/weight_matrix.h"
#include "util/tensor.h"

namespace minimind {

class LayerKVCache {
 public:
  LayerKVCache(int64_t kv_heads, int64_t head_dim);

  int64_t length() const { return length_; }  // Tk: tokens cached so far
  int64_t kv_dim() const { return kv_heads_ * head_dim_; }
  const float* k() const { return k_.data(); }  // [Tk, Hkv·Dh] row-major
  const float* v() const { return v_.data(); }  // [Tk, Hkv·Dh]
  // Kv head `kv_head`'s keys [Tk, Dh], packed (float32).
  PanelsView keys(int64_t kv_head) const;

  // Appends T tokens: k and v are [T, Hkv·Dh].
  void append(const float* k, const float* v, int64_t T);
  // Drops every token after the first `tokens`.
  void truncate(int64_t tokens);
  // Makes room for `tokens` tokens in all, so that appending up to there
  // allocates nothing.
  void reserve(int64_t tokens);

 private:
  int64_t kv_heads_, head_dim_;
  int64_t length_ = 0;
  std::vector<float> k_, v_;                    // [Tk, Hkv·Dh]
  std::vector<std::vector<float>> key_panels_;  // [Hkv] of [⌈Tk/8⌉, Dh, 8], zero-padded
};

class KVCache {
 public:
  KVCache(int64_t num_layers, int64_t kv_heads, int64_t head_dim)
      : layers_(size_t(num_layers), LayerKVCache(kv_heads, head_dim)), kv_dim_(kv_heads * head_dim) {}

  int64_t length() const { return length_; }  // P: tokens cached so far
  int64_t kv_dim() const { return kv_dim_; }  // Hkv·Dh
  int64_t num_layers() const { return int64_t(layers_.size()); }
  // The bytes of k and v as PyTorch holds them (the packed copy of the keys
  // is not counted).
  int64_t bytes() const { return 2 * length_ * kv_dim_ * int64_t(sizeof(float)) * num_layers(); }

  LayerKVCache& layer(int64_t i) { return layers_[size_t(i)]; }
  const LayerKVCache& layer(int64_t i) const { return layers_[size_t(i)]; }

  // Called once per forward after every layer appended `tokens` rows.
  void advance(int64_t tokens) { length_ += tokens; }
  // Drops every token after the first `tokens` in every layer.
  void truncate(int64_t tokens);
  void clear() { truncate(0); }
  // Room for `tokens` tokens in every layer (see LayerKVCache::reserve).
  void reserve(int64_t tokens);

 private:
  std::vector<LayerKVCache> layers_;
  int64_t kv_dim_;
  int64_t length_ = 0;
};

}  // namespace minimind
