#include "tensors/kv_cache.h"

#include <algorithm>

namespace minimind {

namespace {
constexpr int64_t kCachePanel = PanelsView::kPanelRows;
int64_t panels_for(int64_t tokens) { return (tokens + kCachePanel - 1) / kCachePanel; }
}  // namespace

LayerKVCache::LayerKVCache(int64_t kv_heads, int64_t head_dim)
    : kv_heads_(kv_heads), head_dim_(head_dim), key_panels_(size_t(kv_heads)) {}

PanelsView LayerKVCache::keys(int64_t kv_head) const {
  PanelsView view;
  view.rows = length_;
  view.cols = head_dim_;
  view.f32 = key_panels_[size_t(kv_head)].data();
  return view;
}

void LayerKVCache::append(const float* k, const float* v, int64_t T) {
  const int64_t Dh = head_dim_, D = kv_dim();
  k_.insert(k_.end(), k, k + T * D);
  v_.insert(v_.end(), v, v + T * D);
  for (int64_t kv = 0; kv < kv_heads_; ++kv) {
    std::vector<float>& panels = key_panels_[size_t(kv)];
    // Whole panels, zero-padded: a new panel starts as 8 zero keys.
    panels.resize(size_t(panels_for(length_ + T) * Dh * kCachePanel), 0.0f);
    for (int64_t t = 0; t < T; ++t) {
      const int64_t j = length_ + t;  // key j sits in panel j/8, lane j%8
      float* lane = panels.data() + (j / kCachePanel) * Dh * kCachePanel + j % kCachePanel;
      const float* key = k + t * D + kv * Dh;  // [Dh]
      for (int64_t d = 0; d < Dh; ++d) lane[d * kCachePanel] = key[d];
    }
  }
  length_ += T;
}

void LayerKVCache::truncate(int64_t tokens) {
  if (tokens >= length_) return;
  const int64_t Dh = head_dim_;
  k_.resize(size_t(tokens * kv_dim()));
  v_.resize(size_t(tokens * kv_dim()));
  for (std::vector<float>& panels : key_panels_) {
    panels.resize(size_t(panels_for(tokens) * Dh * kCachePanel));
    // The dropped keys of the last kept panel go back to zero padding.
    if (tokens % kCachePanel != 0) {
      float* last = panels.data() + (tokens / kCachePanel) * Dh * kCachePanel;
      for (int64_t d = 0; d < Dh; ++d)
        std::fill(last + d * kCachePanel + tokens % kCachePanel, last + (d + 1) * kCachePanel, 0.0f);
    }
  }
  length_ = tokens;
}

void LayerKVCache::reserve(int64_t tokens) {
  k_.reserve(size_t(tokens * kv_dim()));
  v_.reserve(size_t(tokens * kv_dim()));
  for (std::vector<float>& panels : key_panels_) panels.reserve(size_t(panels_for(tokens) * head_dim_ * kCachePanel));
}

void KVCache::truncate(int64_t tokens) {
  for (LayerKVCache& layer : layers_) layer.truncate(tokens);
  length_ = std::min(length_, tokens);
}

void KVCache::reserve(int64_t tokens) {
  for (LayerKVCache& layer : layers_) layer.reserve(tokens);
}

}  // namespace minimind
