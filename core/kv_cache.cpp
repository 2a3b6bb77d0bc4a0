#include "kv_cache.h"

namespace minimind {

void KVCache::clear() {
  for (LayerKVCache& layer : layers_) {
    layer.k.clear();
    layer.v.clear();
  }
  length_ = 0;
}

}  // namespace minimind
