// One head's share of a block's projections, without copying when the
// packed layout allows it: head h's rows of q_proj (its kv head's rows of
// k_proj and v_proj) and head h's columns of o_proj. QK attribution reads a
// head's query and keys through them; the circuit runs each head on its own
// receiver inputs and writes each head's output through its o_proj columns.
// Shapes: D hidden, H heads, Hkv kv heads, Dh head_dim.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "tensors/model_config.h"
#include "tensors/weights.h"

namespace minimind {

// Rows first..first+count-1 of W [rows, cols] (one head's rows of q_proj or
// k_proj): a view into W when they are whole panels, else a float32 copy in
// `storage`. Either way linear_rows sums each output in the same order as
// with the whole W, so the head's q equals the forward's to the bit.
PanelsView head_rows(const WeightMatrix& W, int64_t first, int64_t count, WeightMatrix& storage);

// Every head's slices of one block.
struct BlockHeadWeights {
  std::vector<PanelsView> q;        // [H] views, each [Dh, D]: head h's q_proj rows
  std::vector<PanelsView> k, v;     // [Hkv] views, each [Dh, D]: kv head j's k_proj / v_proj rows
  std::vector<WeightMatrix> o;      // [H] float32 [D, Dh]: o_proj's columns h·Dh .. (h+1)·Dh-1
  std::deque<WeightMatrix> copies;  // rows that were not whole panels (a deque: views stay valid)
};

BlockHeadWeights block_head_weights(const ModelConfig& config, const LayerWeights& w);

// Head h's columns of x [T, width] (row stride width: q, k, v or z side by side) -> out [T, Dh].
void head_columns(const float* x, int64_t T, int64_t width, int64_t h, int64_t Dh, float* out);

// W [rows, cols] as row-major float32 (widened exactly from float16 / bfloat16).
void dense_f32(const WeightMatrix& W, std::vector<float>& out);

}  // namespace minimind
