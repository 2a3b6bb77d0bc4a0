#!/usr/bin/env python3
"""Interpretability fixtures: the logit lens, activation patching and direct logit attribution,
computed with PyTorch forward hooks on a module-structured MiniMind (MiniMindForCausalLM's
modules and names: model.embed_tokens, model.layers[l].self_attn.o_proj, .mlp, model.norm,
lm_head), as TransformerLens-style hooks on MiniMind's PyTorch model see it.

Writes tests/fixtures/<case>/interp.safetensors for every inference case of make_fixtures.py
(GQA, untied, MoE, YaRN), reading the case's committed model.safetensors, so the expected values
belong to exactly the weights the C++ side loads (tensor list in tests/fixtures/README.md).
Run from the repository root (make_fixtures.py runs it too):
    /usr/bin/python3 tests/interp_reference.py
"""
import json
import math
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_fixtures as mf  # noqa: E402  the cases, the stage math and the safetensors writer

INTERP_FORMAT_VERSION = 1
GENERATOR = "tests/interp_reference.py"
TOP_K = 5
CORRUPT_POSITION = 2          # corrupt = clean with this position's token changed
DLA_POSITION = 3              # attribution at a position that is not the last


# ----------------------------------------------------------------------------- the model
# MiniMind's module tree, each forward one stage of mf.forward (the spec's math), so hooks on
# o_proj, on each block and on mlp see what they see on MiniMind's own model.
class RMSNorm(torch.nn.Module):
    def __init__(self, n, eps):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.ones(n))

    def forward(self, x):
        return mf.rmsnorm(x, self.weight, self.eps)


class Attention(torch.nn.Module):
    def __init__(self, c, switches):
        super().__init__()
        D, H, Hkv, Dh = c["D"], c["H"], c["Hkv"], c["Dh"]
        self.c, self.switches = c, switches
        self.q_proj = torch.nn.Linear(D, H * Dh, bias=False)
        self.k_proj = torch.nn.Linear(D, Hkv * Dh, bias=False)
        self.v_proj = torch.nn.Linear(D, Hkv * Dh, bias=False)
        self.o_proj = torch.nn.Linear(H * Dh, D, bias=False)
        if c["gen"] == 3:
            self.q_norm, self.k_norm = RMSNorm(Dh, c["eps"]), RMSNorm(Dh, c["eps"])
        # Hook points (TransformerLens's hook_attn_scores, hook_pattern): identities that a
        # forward hook reads. scores: [B, H, T, T] after ÷√Dh, before the mask; pattern: softmax.
        self.hook_attn_scores, self.hook_pattern = torch.nn.Identity(), torch.nn.Identity()

    def forward(self, x, cos, sin):
        # x: [B, T, D] -> [B, T, D]; o_proj's input [B, T, H·Dh] holds head h at h·Dh..(h+1)·Dh.
        B, T, _ = x.shape
        H, Hkv, Dh = self.c["H"], self.c["Hkv"], self.c["Dh"]
        q = self.q_proj(x).view(B, T, H, Dh)
        k = self.k_proj(x).view(B, T, Hkv, Dh)
        v = self.v_proj(x).view(B, T, Hkv, Dh)
        if self.c["gen"] == 3:
            q, k = self.q_norm(q), self.k_norm(k)
        q, k = mf.apply_rope(q, cos, sin), mf.apply_rope(k, cos, sin)
        R = H // Hkv
        qh = q.transpose(1, 2)                                            # [B, H, T, Dh]
        kh = k.repeat_interleave(R, dim=2).transpose(1, 2)
        vh = v.repeat_interleave(R, dim=2).transpose(1, 2)
        scores = qh @ kh.transpose(-2, -1)                                # [B, H, T, T]
        if self.switches["scale"]:
            scores = scores / math.sqrt(Dh)
        scores = self.hook_attn_scores(scores)
        if self.switches["causal"]:
            scores = scores + torch.full((T, T), float("-inf")).triu(1)
        heads = self.hook_pattern(torch.softmax(scores.float(), dim=-1)) @ vh   # [B, H, T, Dh]
        return self.o_proj(heads.transpose(1, 2).reshape(B, T, H * Dh))


class FeedForward(torch.nn.Module):
    def __init__(self, D, F):
        super().__init__()
        self.gate_proj = torch.nn.Linear(D, F, bias=False)
        self.down_proj = torch.nn.Linear(F, D, bias=False)
        self.up_proj = torch.nn.Linear(D, F, bias=False)

    def forward(self, x):
        return self.down_proj(torch.nn.functional.silu(self.gate_proj(x)) * self.up_proj(x))


class MOEFeedForward(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        m = c["moe"]
        self.c = c
        self.gate = torch.nn.Linear(c["D"], m["E"], bias=False)          # router [E, D]
        self.experts = torch.nn.ModuleList([FeedForward(c["D"], m["F"]) for _ in range(m["E"])])
        self.shared_experts = torch.nn.ModuleList([FeedForward(c["D"], c["F"]) for _ in range(m["shared"])])

    def forward(self, b):
        lw = {n: p for n, p in self.named_parameters()}
        lw = {"mlp." + n: p for n, p in lw.items()}
        return mf.ffn(b, lw, self.c)[0]


class MiniMindBlock(torch.nn.Module):
    def __init__(self, c, switches):
        super().__init__()
        self.self_attn = Attention(c, switches)
        self.input_layernorm = RMSNorm(c["D"], c["eps"])
        self.post_attention_layernorm = RMSNorm(c["D"], c["eps"])
        self.mlp = FeedForward(c["D"], c["F"]) if c["moe"] is None else MOEFeedForward(c)

    def forward(self, h, cos, sin):
        h = h + self.self_attn(self.input_layernorm(h), cos, sin)
        h = h + self.mlp(self.post_attention_layernorm(h))
        return h, None                               # MiniMind returns (hidden_states, present_kv)


class MiniMindModel(torch.nn.Module):
    def __init__(self, c, switches):
        super().__init__()
        self.embed_tokens = torch.nn.Embedding(c["V"], c["D"])
        self.layers = torch.nn.ModuleList([MiniMindBlock(c, switches) for _ in range(c["L"])])
        self.norm = RMSNorm(c["D"], c["eps"])
        self.rope = mf.rope_table(c["Dh"], c["theta"], c["yarn"])

    def forward(self, ids):
        T = ids.shape[1]
        cos, sin = self.rope[0][:T], self.rope[1][:T]
        h = self.embed_tokens(ids)
        for layer in self.layers:
            h, _ = layer(h, cos, sin)
        return self.norm(h)


class MiniMindForCausalLM(torch.nn.Module):
    def __init__(self, c, switches):
        super().__init__()
        self.model = MiniMindModel(c, switches)
        self.lm_head = torch.nn.Linear(c["D"], c["V"], bias=False)
        if c["tied"]:
            self.model.embed_tokens.weight = self.lm_head.weight

    def forward(self, ids):
        return self.lm_head(self.model(ids))


def load_model(c, switches):
    """The case's committed model.safetensors in a MiniMindForCausalLM (strict load)."""
    weights = read_weights(os.path.join(mf.FIXTURES_DIR, c["name"], "model.safetensors"))
    if c["tied"]:
        weights["lm_head.weight"] = weights["model.embed_tokens.weight"]
    model = MiniMindForCausalLM(c, switches)
    model.load_state_dict(weights, strict=True)
    return model.eval()


def read_weights(path):
    """name -> float32 tensor of a safetensors file in F32, F16 or BF16."""
    with open(path, "rb") as f:
        blob = f.read()
    n = int.from_bytes(blob[:8], "little")
    header = json.loads(blob[8:8 + n])
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        begin, end = e["data_offsets"]
        raw = blob[8 + n + begin: 8 + n + end]
        if e["dtype"] == "F32":
            a = np.frombuffer(raw, dtype="<f4")
        elif e["dtype"] == "F16":
            a = np.frombuffer(raw, dtype="<f2").astype("<f4")
        else:                                        # BF16: the upper half of float32
            a = (np.frombuffer(raw, dtype="<u2").astype("<u4") << 16).view("<f4")
        out[name] = torch.from_numpy(a.copy()).reshape(e["shape"])
    return out


# ----------------------------------------------------------------------------- hooks
def run_with_hooks(model, ids, head_patch=None, residual_patch=None):
    """One forward of ids [T] with caching hooks and optional patches.

    head_patch (layer, head, z [T, Dh]) replaces o_proj's input slice of that head (a forward
    pre-hook); residual_patch (layer, position, x [D]) replaces the output of embed_tokens
    (layer 0) or of block layer-1 at one position (a forward hook). Returns the cache:
    residual [L + 1, T, D], z [L, H, T, Dh], ffn [L, T, D], final_scale [T], logits [T, V].
    """
    c = model.model.layers[0].self_attn.c
    H, Dh = c["H"], c["Dh"]
    cache = {"residual": [], "z": [], "ffn": []}
    handles = []

    def replace_position(out, layer):
        if residual_patch is None or residual_patch[0] != layer:
            return out
        out = out.clone()
        out[0, residual_patch[1]] = residual_patch[2]
        return out

    def on_embed(module, inputs, out):
        out = replace_position(out, 0)
        cache["residual"].append(out[0].detach().clone())
        return out

    handles.append(model.model.embed_tokens.register_forward_hook(on_embed))
    for l, block in enumerate(model.model.layers):
        def on_block(module, inputs, out, l=l):
            h = replace_position(out[0], l + 1)
            cache["residual"].append(h[0].detach().clone())
            return (h,) + tuple(out[1:])

        def before_o_proj(module, inputs, l=l):
            x = inputs[0]
            if head_patch is not None and head_patch[0] == l:
                x = x.clone()
                x[0, :, head_patch[1] * Dh:(head_patch[1] + 1) * Dh] = head_patch[2]
            return (x,)

        def on_o_proj(module, inputs, out):
            z = inputs[0][0].reshape(-1, H, Dh).transpose(0, 1)         # [H, T, Dh]
            cache["z"].append(z.detach().clone())

        def on_mlp(module, inputs, out):
            cache["ffn"].append(out[0].detach().clone())

        handles += [block.register_forward_hook(on_block),
                    block.self_attn.o_proj.register_forward_pre_hook(before_o_proj),
                    block.self_attn.o_proj.register_forward_hook(on_o_proj),
                    block.mlp.register_forward_hook(on_mlp)]

    def on_norm(module, inputs, out):
        x = inputs[0][0]
        cache["final_scale"] = torch.rsqrt(x.pow(2).mean(-1) + c["eps"])

    handles.append(model.model.norm.register_forward_hook(on_norm))
    with torch.no_grad():
        cache["logits"] = model(torch.tensor([ids]))[0]
    for handle in handles:
        handle.remove()
    return {k: torch.stack(v) if isinstance(v, list) else v for k, v in cache.items()}


def unembed(model, x):
    """lm_head(norm(x)) of residual rows x [..., D]: the logit lens's readout."""
    with torch.no_grad():
        return model.lm_head(model.model.norm(x))


def logit_lens(model, cache, token):
    probs = torch.softmax(unembed(model, cache["residual"]), dim=-1)       # [L + 1, T, V]
    top_p, top_ids = torch.topk(probs, TOP_K, dim=-1)                      # [L + 1, T, k]
    return top_ids, top_p, probs[..., token]


def metric(logits, answer, wrong):
    return float(logits[-1, answer] - logits[-1, wrong])


def patching(model, clean, corrupt, answer, wrong):
    """Raw metrics: heads [L, H] and residual [L + 1, T] patched from clean into corrupt."""
    c = model.model.layers[0].self_attn.c
    L, H, T = c["L"], c["H"], len(clean)
    clean_cache = run_with_hooks(model, clean)
    heads = torch.zeros(L, H)
    residual = torch.zeros(L + 1, T)
    for l in range(L):
        for h in range(H):
            patched = run_with_hooks(model, corrupt, head_patch=(l, h, clean_cache["z"][l, h]))
            heads[l, h] = metric(patched["logits"], answer, wrong)
    for l in range(L + 1):
        for t in range(T):
            patched = run_with_hooks(model, corrupt, residual_patch=(l, t, clean_cache["residual"][l, t]))
            residual[l, t] = metric(patched["logits"], answer, wrong)
    corrupt_cache = run_with_hooks(model, corrupt)
    metrics = torch.tensor([metric(clean_cache["logits"], answer, wrong),
                            metric(corrupt_cache["logits"], answer, wrong)])
    return metrics, heads, residual


def attribution(model, cache, position, answer, wrong):
    """Direct logit attribution at `position`, the final norm's scale held at the run's value."""
    c = model.model.layers[0].self_attn.c
    H, Dh = c["H"], c["Dh"]
    W_U = model.lm_head.weight.detach()
    direction = cache["final_scale"][position] * model.model.norm.weight.detach() * (W_U[answer] - W_U[wrong])
    heads = torch.zeros(c["L"], H)
    with torch.no_grad():
        for l, block in enumerate(model.model.layers):
            W_O = block.self_attn.o_proj.weight                            # [D, H·Dh]
            for h in range(H):
                heads[l, h] = (W_O[:, h * Dh:(h + 1) * Dh] @ cache["z"][l, h, position]) @ direction
    logits = cache["logits"][position]
    return {"total": (logits[answer] - logits[wrong]).reshape(1),
            "embedding": (cache["residual"][0, position] @ direction).reshape(1),
            "heads": heads, "ffn": cache["ffn"][:, position] @ direction}


# ----------------------------------------------------------------------------- cases
def choose_inputs(c):
    """clean: the case's input_ids[0]; corrupt: the same with one token changed.
    (answer: the clean run's top next token; wrong: the corrupt run's other than answer.)"""
    expected = read_weights_i32(os.path.join(mf.FIXTURES_DIR, c["name"], "expected.safetensors"))
    clean = expected["input_ids"][0].tolist()
    corrupt = list(clean)
    corrupt[CORRUPT_POSITION] = (clean[CORRUPT_POSITION] - 3 + 7) % (c["V"] - 3) + 3
    return clean, corrupt


def read_weights_i32(path):
    with open(path, "rb") as f:
        blob = f.read()
    n = int.from_bytes(blob[:8], "little")
    header = json.loads(blob[8:8 + n])
    e = header["input_ids"]
    begin, end = e["data_offsets"]
    a = np.frombuffer(blob[8 + n + begin: 8 + n + end], dtype="<i4").copy()
    return {"input_ids": torch.from_numpy(a).reshape(e["shape"])}


def make_interp_case(c):
    clean, corrupt = choose_inputs(c)
    out = {"clean_ids": ("I32", torch.tensor(clean)), "corrupt_ids": ("I32", torch.tensor(corrupt))}
    for prefix, switches in (("", {"causal": True, "scale": True}),
                             ("switches_off.", {"causal": False, "scale": False})):
        model = load_model(c, switches)
        cache = run_with_hooks(model, clean)
        if not prefix:                               # the hooked model is the spec's forward
            expected_logits = mf.forward({n: p.detach() for n, p in model.named_parameters()} |
                                         {"model.embed_tokens.weight": model.model.embed_tokens.weight.detach()},
                                         c, model.model.rope, torch.tensor([clean]))[0][0]
            assert torch.allclose(cache["logits"], expected_logits, atol=1e-5), c["name"]
        answer = int(torch.argmax(cache["logits"][-1]))
        corrupt_logits = run_with_hooks(model, corrupt)["logits"][-1].clone()
        corrupt_logits[answer] = float("-inf")
        wrong = int(torch.argmax(corrupt_logits))
        top_ids, top_p, token_p = logit_lens(model, cache, answer)
        metrics, heads, residual = patching(model, clean, corrupt, answer, wrong)
        dla = attribution(model, cache, DLA_POSITION, answer, wrong)
        out.update({
            prefix + "answer": ("I32", torch.tensor([answer])),
            prefix + "wrong": ("I32", torch.tensor([wrong])),
            prefix + "hooks.residual": ("F32", cache["residual"]),
            prefix + "hooks.head_outputs": ("F32", cache["z"]),
            prefix + "hooks.final_scale": ("F32", cache["final_scale"]),
            prefix + "lens.top_ids": ("I32", top_ids),
            prefix + "lens.top_p": ("F32", top_p),
            prefix + "lens.token_p": ("F32", token_p),
            prefix + "patch.metric": ("F32", metrics),
            prefix + "patch.heads": ("F32", heads),
            prefix + "patch.residual": ("F32", residual),
            prefix + "dla.total": ("F32", dla["total"]),
            prefix + "dla.embedding": ("F32", dla["embedding"]),
            prefix + "dla.heads": ("F32", dla["heads"]),
            prefix + "dla.ffn": ("F32", dla["ffn"]),
        })
    out = {k: (dtype, t.detach().contiguous()) for k, (dtype, t) in out.items()}
    mf.write_safetensors(os.path.join(mf.FIXTURES_DIR, c["name"], "interp.safetensors"), out, {
        "interp_format_version": str(INTERP_FORMAT_VERSION), "generator": GENERATOR, "case": c["name"],
        "top_k": str(TOP_K), "dla_position": str(DLA_POSITION)})


def main():
    torch.set_num_threads(1)
    for c in mf.CASES:
        make_interp_case(c)
    print("wrote interp.safetensors for", ", ".join(c["name"] for c in mf.CASES))


if __name__ == "__main__":
    main()
