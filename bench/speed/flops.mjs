// The work of one forward pass of a MiniMind config c = {D, H, Hkv, Dh, F, V, L}
// (bench/speed/make_onnx.py's names): its FLOPs and the weight bytes it reads.

// FLOPs of one forward of T new tokens after P cached ones: 2·m·n·k for every
// matrix product, attention included (full T × Tk score matrices, as a dense
// matmul computes them), elementwise work (norms, RoPE, softmax, SiLU) not counted.
export function forwardFlops(c, T, P = 0) {
  const { D, H, Hkv, Dh, F, V, L } = c;
  const Tk = P + T;
  const projections = 2 * T * D * H * Dh + 2 * 2 * T * D * Hkv * Dh + 2 * T * H * Dh * D; // q, k, v, o
  const attention = 2 * H * T * Tk * Dh + 2 * H * T * Tk * Dh; // q·kᵀ, P·v
  const ffn = 3 * 2 * T * D * F; // gate, up, down
  return L * (projections + attention + ffn) + 2 * T * D * V; // + lm_head
}

// Weights a decode step streams through the matrix products: every layer's
// q, k, v, o and SwiGLU matrices and the (tied) output head, each once.
// Norm weights and the one embedding row read are left out (under 0.1%).
export function matrixWeights(c) {
  const { D, H, Hkv, Dh, F, V, L } = c;
  return L * (D * H * Dh + 2 * D * Hkv * Dh + H * Dh * D + 3 * D * F) + V * D;
}
