#!/usr/bin/env python3
"""QK attribution fixtures: one attention score split into the components that wrote its query
and its key, computed with PyTorch forward hooks on the module-structured MiniMind of
interp_reference.py (MiniMindForCausalLM's modules and names).

The residual stream entering block l is a sum of components, in this order: embed, then for each
earlier block k: L{k}H0 .. L{k}H{H-1} (head h's z through its columns of o_proj) and L{k}ffn (the
FFN's, or the whole MoE's, output). Every one comes from a hook of the run (embed_tokens' output,
o_proj's input, mlp's output), and so do the norms' scales, frozen at the run's values:
input_layernorm's at the query and at the key, q_norm's and k_norm's (generation 3). Each
component then goes through input_layernorm (frozen), head h's q_proj rows or its kv head's k_proj
rows, q_norm / k_norm (frozen) and RoPE (rotate_half, a fixed rotation per position), so
    score = q_i · k_j / √Dh = Σ_a Σ_b q_i(a) · k_j(b) / √Dh
exactly, and the script asserts that its table sums to the score its own forward computed
(Attention.hook_attn_scores), so the reference checks itself.

Writes tests/fixtures/<case>/qk.json for every inference case of make_fixtures.py (GQA, untied,
MoE, YaRN, generations 2 and 3), format 1 (fields in tests/fixtures/README.md; their meaning is
core/interp/qk_attribution.h's). Run from the repository root (make_fixtures.py runs it too):
    /usr/bin/python3 tests/qk_reference.py
"""
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import interp_reference as ir  # noqa: E402  the module tree, its loader and the run's hooks
import make_fixtures as mf  # noqa: E402  the cases and the stage math (rmsnorm, rope, rotate_half)

QK_FORMAT = 1
GENERATOR = "tests/qk_reference.py"
RANK_TOP = 10                 # "ranked": the vocabulary's best keys, block 0 only
SUM_TOL = 1e-5                # |Σ table − score| ≤ SUM_TOL · max(1, Σ|table|), asserted
# (query, key, versus position) per cell: a key before the query, the key on the diagonal, and
# a key after the query (weight 0 under the causal mask; its score is still shown).
CELLS = [(4, 1, 3), (3, 3, 0), (2, 5, 1)]
SIG_DIGITS = 9                # float32 needs 9 significant digits to round-trip


def heads_of(c):
    """Two q heads of the case: head 1 (which shares kv head 0 with head 0 when R > 1) and the
    last head (another kv head when Hkv > 1); with two heads, both (one kv head under GQA)."""
    return [1, c["H"] - 1] if c["H"] > 2 else [0, 1]


def component_names(c, layer):
    """[C] names of the components entering block `layer`, C = 1 + layer·(H + 1)."""
    names = ["embed"]
    for k in range(layer):
        names += [f"L{k}H{h}" for h in range(c["H"])] + [f"L{k}ffn"]
    return names


# ----------------------------------------------------------------------------- the hooked run
def hooked_run(model, ids):
    """interp_reference's cache (residual [L + 1, T, D], z [L, H, T, Dh], ffn [L, T, D]) plus, per
    block, the scores [H, T, T] (after ÷√Dh, before the mask), the softmax pattern [H, T, T] and the
    frozen norms' scales: input_layernorm's [T], q_norm's [T, H] and k_norm's [T, Hkv] (gen 3)."""
    c = model.model.layers[0].self_attn.c
    extra = {"scores": {}, "pattern": {}, "ln_scale": {}, "q_scale": {}, "k_scale": {}}
    handles = []

    def scale_of(x):
        # MiniMind's RMSNorm scale rsqrt(mean(x²) + eps), float32 as the forward computes it.
        return torch.rsqrt(x.pow(2).mean(-1) + c["eps"])

    for l, block in enumerate(model.model.layers):
        attn = block.self_attn

        def keep(name, l=l, scale=False):
            def hook(module, inputs, out):
                value = scale_of(inputs[0][0]) if scale else out[0]
                extra[name][l] = value.detach().clone()
            return hook

        handles += [attn.hook_attn_scores.register_forward_hook(keep("scores")),
                    attn.hook_pattern.register_forward_hook(keep("pattern")),
                    block.input_layernorm.register_forward_hook(keep("ln_scale", scale=True))]
        if c["gen"] == 3:
            handles += [attn.q_norm.register_forward_hook(keep("q_scale", scale=True)),
                        attn.k_norm.register_forward_hook(keep("k_scale", scale=True))]
    try:
        cache = ir.run_with_hooks(model, ids)
    finally:
        for handle in handles:
            handle.remove()
    cache.update(extra)
    return cache


def components(model, cache, layer):
    """The components of the residual entering block `layer`: [C, T, D] (float64), checked to sum
    to the hooked residual there."""
    c = model.model.layers[0].self_attn.c
    H, Dh = c["H"], c["Dh"]
    parts = [cache["residual"][0]]                                     # embed: [T, D]
    for k in range(layer):
        W_O = model.model.layers[k].self_attn.o_proj.weight.detach()  # [D, H·Dh]
        parts += [cache["z"][k, h] @ W_O[:, h * Dh:(h + 1) * Dh].T for h in range(H)]
        parts.append(cache["ffn"][k])
    out = torch.stack(parts).double()                                  # [C, T, D]
    assert torch.allclose(out.sum(0), cache["residual"][layer].double(), atol=1e-5), (c["name"], layer)
    return out


def rope_at(x, cos, sin, position):
    """RoPE of x [..., Dh] at one position, as MiniMind's apply_rotary_pos_emb (rotate_half)."""
    return x * cos[position] + mf.rotate_half(x) * sin[position]


class Reader:
    """One head's frozen read of the residual: parts [C, D] at a position -> pre-RoPE q or k parts
    [C, Dh] (input_layernorm and q_norm / k_norm at the run's scales), and the RoPE'd ones."""

    def __init__(self, model, cache, layer, head):
        self.c = model.model.layers[0].self_attn.c
        c, Dh = self.c, self.c["Dh"]
        block = model.model.layers[layer]
        attn = block.self_attn
        self.cache, self.layer, self.head = cache, layer, head
        self.kv = head // (c["H"] // c["Hkv"])                         # repeat_kv: kv head h / R
        self.ln_w = block.input_layernorm.weight.detach().double()     # [D]
        self.Wq = attn.q_proj.weight.detach()[head * Dh:(head + 1) * Dh].double()         # [Dh, D]
        self.Wk = attn.k_proj.weight.detach()[self.kv * Dh:(self.kv + 1) * Dh].double()   # [Dh, D]
        self.qn_w = attn.q_norm.weight.detach().double() if c["gen"] == 3 else None       # [Dh]
        self.kn_w = attn.k_norm.weight.detach().double() if c["gen"] == 3 else None
        cos, sin = model.model.rope
        self.cos, self.sin = cos.double(), sin.double()                # [max_pos, Dh]
        self.s = 1.0 / math.sqrt(Dh)

    def query(self, parts, i):
        """parts [C, D] at position i -> (pre-RoPE q parts [C, Dh], RoPE'd [C, Dh])."""
        a = self.ln_w * parts * float(self.cache["ln_scale"][self.layer][i])           # [C, D]
        q = a @ self.Wq.T                                                               # [C, Dh]
        if self.qn_w is not None:
            q = self.qn_w * q * float(self.cache["q_scale"][self.layer][i, self.head])
        return q, rope_at(q, self.cos, self.sin, i)

    def key(self, parts, j, ln_scale=None, k_scale=None):
        """parts [N, D] at position j -> (pre-RoPE k parts [N, Dh], RoPE'd [N, Dh]). The scales are
        the run's at j unless given as [N] (each vocabulary token's own, for the ranking)."""
        if ln_scale is None:
            ln_scale = torch.full((parts.shape[0],), float(self.cache["ln_scale"][self.layer][j]), dtype=torch.float64)
        k = (self.ln_w * parts * ln_scale[:, None]) @ self.Wk.T                          # [N, Dh]
        if self.kn_w is not None:
            if k_scale is None:
                k_scale = torch.full((parts.shape[0],), float(self.cache["k_scale"][self.layer][j, self.kv]),
                                     dtype=torch.float64)
            k = self.kn_w * k * k_scale[:, None]
        return k, rope_at(k, self.cos, self.sin, j)


# ----------------------------------------------------------------------------- one cell
def rounded(x):
    """Every float of a JSON tree to SIG_DIGITS significant digits; ints and bools stay."""
    if isinstance(x, dict):
        return {k: rounded(v) for k, v in x.items()}
    if isinstance(x, list):
        return [rounded(v) for v in x]
    return float(f"{x:.{SIG_DIGITS}g}") if isinstance(x, float) else x


def qk_cell(model, ids, cache, comps, layer, head, i, j, j2):
    c = model.model.layers[0].self_attn.c
    reader = Reader(model, cache, layer, head)
    T, half = len(ids), c["Dh"] // 2
    q_pre, q = reader.query(comps[:, i], i)                             # [C, Dh] each
    keys = [reader.key(comps[:, t], t) for t in range(T)]               # per position: [C, Dh] ×2
    table_at = [q @ keys[t][1].T * reader.s for t in range(T)]          # [C, C] per key position
    score = float(cache["scores"][layer][head, i, j])                   # the forward's own score
    table = table_at[j]
    total, magnitude = float(table.sum()), float(table.abs().sum())
    assert abs(total - score) <= SUM_TOL * max(1.0, magnitude), (c["name"], layer, head, i, j, total, score)
    # Every key of the row sums to the forward's score too (the contrast uses them all).
    for t in range(T):
        forward = float(cache["scores"][layer][head, i, t])
        assert abs(float(table_at[t].sum()) - forward) <= SUM_TOL * max(1.0, float(table_at[t].abs().sum()))

    # rope_pairs[p]: the score's part from dims p and p + Dh/2 (rotate_half turns them together);
    # unrotated: the same from the pre-RoPE vectors (as if both tokens stood at one position).
    def pairs(qv, kv):
        prod = qv.sum(0) * kv.sum(0) * reader.s                         # [Dh]
        return (prod[:half] + prod[half:]).tolist()                     # [Dh/2]

    k_pre, k = keys[j]
    rope_pairs, unrotated = pairs(q, k), pairs(q_pre, k_pre)
    assert abs(sum(rope_pairs) - score) <= SUM_TOL * max(1.0, magnitude)
    if i == j:                                       # one position: the rotation changes nothing
        assert max(abs(a - b) for a, b in zip(rope_pairs, unrotated)) <= SUM_TOL

    # The contrast: score(i, j) − score(i, j′), j′ a position or the row's attention-weighted
    # mean over its keys t ≤ i (softmax ignores a shift shared by the row).
    P = cache["pattern"][layer][head, i].double()                       # [T], 0 after the query
    mean_table = sum(P[t] * table_at[t] for t in range(i + 1))
    mean_score = sum(float(P[t]) * float(cache["scores"][layer][head, i, t]) for t in range(i + 1))
    versus_mean = {"score": score - mean_score, "table": (table - mean_table).tolist()}
    versus_position = {"key": j2, "score": score - float(cache["scores"][layer][head, i, j2]),
                       "table": (table - table_at[j2]).tolist()}

    cell = {"layer": layer, "head": head, "query": i, "key": j, "score": score,
            "weight": float(P[j]), "masked": j > i, "components": component_names(c, layer),
            "table": table.tolist(), "rope_pairs": rope_pairs, "rope_pairs_unrotated": unrotated,
            "versus_mean": versus_mean, "versus_position": versus_position}
    assert (float(P[j]) == 0.0) == (j > i)
    if layer == 0:
        cell["ranked"] = rank_keys(model, reader, q, j, ids, score)
    return rounded(cell)


def rank_keys(model, reader, q, j, ids, score):
    """Block 0: every vocabulary token's key at position j from its embedding alone (its own
    input_layernorm and k_norm scales), scored against the run's query; the best RANK_TOP."""
    c = reader.c
    E = model.model.embed_tokens.weight.detach()                        # [V, D]
    ln = torch.rsqrt(E.pow(2).mean(-1) + c["eps"]).double()             # [V] each token's own scale
    k_scale = None
    if reader.kn_w is not None:                                         # k_norm's scale of each token's own k
        block = model.model.layers[0]
        k32 = block.self_attn.k_proj(block.input_layernorm(E))[:, reader.kv * c["Dh"]:(reader.kv + 1) * c["Dh"]]
        k_scale = torch.rsqrt(k32.detach().pow(2).mean(-1) + c["eps"]).double()  # [V]
    _, k = reader.key(E.double(), j, ln_scale=ln, k_scale=k_scale)      # [V, Dh]
    scores = k @ q.sum(0) * reader.s                                    # [V]
    # The token that stands at j gets the run's own score.
    assert abs(float(scores[ids[j]]) - score) <= SUM_TOL * max(1.0, abs(score)), (c["name"], j)
    order = sorted(range(c["V"]), key=lambda t: (-float(scores[t]), t))
    top = order[:RANK_TOP + 1]
    # The order is a fact the tests compare: no two of the top differ by float32 rounding.
    gaps = [float(scores[a] - scores[b]) for a, b in zip(top, top[1:])]
    assert min(gaps) > 1e-4, (c["name"], min(gaps))
    return [{"id": t, "score": float(scores[t])} for t in top[:RANK_TOP]]


# ----------------------------------------------------------------------------- cases
def make_qk_case(c):
    model = ir.load_model(c, {"causal": True, "scale": True})
    ids, _ = ir.choose_inputs(c)                                        # input_ids[0]: [T]
    cache = hooked_run(model, ids)
    cells = []
    for layer in sorted({0, c["L"] - 1}):
        comps = components(model, cache, layer)
        for head in heads_of(c):
            for i, j, j2 in CELLS:
                cells.append(qk_cell(model, ids, cache, comps, layer, head, i, j, j2))
    doc = {"format": QK_FORMAT, "generator": GENERATOR, "ids": ids, "cases": cells}
    path = os.path.join(mf.FIXTURES_DIR, c["name"], "qk.json")
    with open(path, "w") as f:
        f.write(dumps(doc))
    return len(cells)


def dumps(doc):
    """JSON with one cell per line, so a diff shows which cell changed."""
    head = {k: v for k, v in doc.items() if k != "cases"}
    body = ",\n".join("  " + json.dumps(cell, ensure_ascii=False, separators=(",", ":")) for cell in doc["cases"])
    return json.dumps(head, separators=(", ", ": "))[:-1] + ',\n "cases": [\n' + body + "\n ]}\n"


def main():
    torch.set_num_threads(1)
    for c in mf.CASES:
        n = make_qk_case(c)
        print(f"  {c['name']}: {n} cells")
    print("wrote qk.json for", ", ".join(c["name"] for c in mf.CASES))


if __name__ == "__main__":
    main()
