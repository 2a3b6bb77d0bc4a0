// Interpretability hooks on one forward: what TransformerLens's HookedTransformer
// caches (the residual stream, each head's output z before o_proj, each FFN's
// output, the final norm's scale) and the forward that takes patches (a head's
// z, one position of the residual stream, or a head's own block input,
// replaced by values from another run). Every run is the model's own
// forward (Model::forward_into, or Model::forward_blocks to resume at the
// first patched layer) with a ForwardHooks object (model/forward_hooks.h).
//
// Shapes: T tokens, D hidden, L layers, H heads, Dh head_dim, V vocab.
#pragma once

#include <cstdint>
#include <vector>

#include "model/forward_workspace.h"
#include "model/model.h"
#include "tensors/kv_cache.h"

namespace minimind {

// The switches a learner can flip (both on and no head off is MiniMind's forward).
struct InterpOptions {
  bool causal_mask = true;
  bool scale_scores = true;
  // Heads switched off, as ForwardOptions::ablated_heads does it: z zeroed
  // before o_proj; a head patch of a switched-off head is not applied.
  std::vector<HeadId> ablate;
};

// Replaces head `head` of block `layer`'s output z (before o_proj), every position.
struct HeadPatch {
  int64_t layer = 0, head = 0;
  const float* values = nullptr;  // [T, Dh]
};

// Replaces the residual stream at one position: layer 0 is the embedding's
// output, layer l (1..L) block l-1's output (the "residual after block l" of
// the lens, counted from 1).
struct ResidualPatch {
  int64_t layer = 0, position = 0;
  const float* values = nullptr;  // [D]
};

// Gives head `head` of block `layer` its own block input: the residual
// stream it reads (through input_layernorm, its q_proj rows and its kv
// head's k_proj and v_proj rows) in place of the block's, every position;
// the other heads read the block's. The receiver side of path patching: a
// residual in which one sender's output was swapped, for one head alone.
struct HeadInputPatch {
  int64_t layer = 0, head = 0;
  const float* values = nullptr;  // [T, D]
};

struct Patches {
  std::vector<HeadPatch> heads;
  std::vector<ResidualPatch> residual;
  std::vector<HeadInputPatch> head_inputs;  // a head's z patch, if any, overrides its input patch
};

// What the hooks saw in one forward (after any patch was applied).
struct Activations {
  int64_t T = 0;
  std::vector<float> residual;      // [L + 1, T, D]: embedding, then each block's output
  std::vector<float> head_outputs;  // [L, H, T, Dh]: z, o_proj's input split by head
  std::vector<float> ffn_outputs;   // [L, T, D]: each block's FFN (or whole MoE) output
  std::vector<float> final_scale;   // [T]: the final RMSNorm's rsqrt(mean(x²) + eps)
  std::vector<float> logits;        // [T, V]

  const float* residual_at(int64_t layer, int64_t D) const { return residual.data() + layer * T * D; }
  const float* head_at(int64_t layer, int64_t head, int64_t H, int64_t Dh) const {
    return head_outputs.data() + (layer * H + head) * T * Dh;
  }
};

// Scratch of run_blocks, kept between calls (one per thread).
struct HookedScratch {
  ForwardWorkspace forward;
  KVCache cache{0, 0, 0};
};

// Checks ids against the vocabulary and the positions (minimind::Error).
void check_interp_ids(const Model& model, const std::vector<int32_t>& ids);

// Checks every patch's layer, head and position for T tokens (minimind::Error).
void check_patches(const Model& model, int64_t T, const Patches& patches);

// Where a run starts: block `layer` (its input is residual layer `layer`),
// at token `position`. A run from position P > 0 feeds only rows P..T-1: the
// scratch's cache must hold the keys and values of rows 0..P-1 of every
// block from `layer` on (rows before P are what a causal run left there).
// last_row_only: only the last row is wanted (a patching metric), so the
// last block's o_proj and FFN run on it alone.
struct Resume {
  int64_t layer = 0, position = 0;
  bool last_row_only = false;
};

// Runs blocks from.layer..L-1 on h [T', D], the residual stream entering
// block from.layer at positions from.position..from.position+T'-1, in place:
// h ends as the last block's output (only its last row with last_row_only).
// Applies the residual patches of layers from.layer..L (those of from.layer
// to h first) and the head patches of those blocks; patch positions and
// values are absolute ([T, ...]); a patch of a head in options.ablate is
// left out (the head stays zero). options.ablate is checked as the forward
// checks it (head_ablation_flags). capture (optional, sized as
// run_with_hooks sizes it) receives what the hooks see in these blocks, at
// the positions run (with last_row_only, the last block's FFN and output
// only at the last one).
void run_blocks(const Model& model, float* h, int64_t rows, const Resume& from, const InterpOptions& options,
                const Patches& patches, HookedScratch& scratch, Activations* capture = nullptr);

// One whole forward with every hook: embedding, the L blocks, final norm and
// lm_head, with options.ablate's heads switched off. ids: [T]. scratch (optional): where to run, so that its cache
// holds every block's keys and values of the run afterwards.
Activations run_with_hooks(const Model& model, const std::vector<int32_t>& ids, const InterpOptions& options = {},
                           const Patches& patches = {}, HookedScratch* scratch = nullptr);

// The final norm's scale of one residual row x [D]: rsqrt(mean(x²) + eps).
float final_norm_scale(const Model& model, const float* x);

}  // namespace minimind
