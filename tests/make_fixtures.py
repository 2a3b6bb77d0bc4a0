#!/usr/bin/env python3
"""Golden fixtures for the C++ MiniMind core, computed by a plain-PyTorch reference.

What it makes (under tests/fixtures/):
  <case>/config.json          Hugging Face style config (MiniMind key names).
  <case>/model.safetensors    random weights, already rounded to the case's storage dtype.
  <case>/expected.safetensors logits, per-layer attention weights, layer-0 stage traces and
                              greedy-generation ids (tensor list in tests/fixtures/README.md).
  random_init.json            first values and sums of the C++ seeded random initialisation
                              (preset lab-a, seed 42), re-implemented here in numpy.
  <case>/model.pth            gen3_dense, gen2_dense, gen2_moe: the same weights as torch.save
                              writes a state dict (three styles, see PTH_STYLES).
  pth/*.pth                   small torch.save files for the .pth reader: views with storage
                              offsets (BF16), a transposed (non-contiguous) tensor, a
                              hostile pickle that would call os.system if unpickled, a
                              protocol-4 state dict, a state dict of nn.Parameters, and
                              MiniMind's resume checkpoint of gen2_dense (pretrain_32_resume.pth:
                              its half-precision state dict under "model", AdamW's state).
  train/<case>/               training fixtures (own "train_format_version"): float32 initial
                              weights, 20 token sequences, one batch's loss and autograd
                              gradients, and two runs of MiniMind's pretraining loop (per-batch
                              loss, lr, grad norm; final weights); see "training" below.

The reference is written from the MiniMind spec (MINIMIND.md) in plain torch ops, float32
on CPU, one function per stage. Weights are drawn with a fixed torch seed per case and rounded
to the storage dtype first, so the loader's widening to float32 is exact and the reference
sees exactly the numbers the C++ side will see.

Re-run from the repository root (deterministic, byte-identical output):
    /usr/bin/python3 tests/make_fixtures.py
Bump FORMAT_VERSION when the layout of the files changes.
"""
import collections
import json
import math
import os

import numpy as np
import torch

FORMAT_VERSION = 1
GENERATOR = "tests/make_fixtures.py"
FIXTURES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")

BATCH, SEQ = 2, 6                 # input_ids: [B, T]
GREEDY_PROMPT_LEN = 4             # greedy prompt = input_ids[0, :4]
GREEDY_MAX_NEW_TOKENS = 8
REPETITION_PENALTY = 1.3
TEMPERATURE = 1.0
BOS_ID, EOS_ID = 1, 2
MAX_POSITION_EMBEDDINGS = 32768
# MiniMind's fixed YaRN settings, switched on by config "inference_rope_scaling": true.
YARN = {"beta_fast": 32, "beta_slow": 1, "factor": 16,
        "original_max_position_embeddings": 2048, "attention_factor": 1.0}

# ----------------------------------------------------------------------------- cases
# Shape legend: T tokens, D hidden, H q heads, Hkv kv heads, Dh head_dim, R = H / Hkv,
# F intermediate size, V vocab, L layers, E routed experts.
# Seeds were picked (by scanning) so that: the repetition penalty changes the greedy ids in
# every case; every MoE expert is chosen by some token in layer 0; greedy stops on eos in
# gen2_dense (penalty run), gen3_moe (both runs) and gen2_moe (no-penalty run), while the
# other runs go the full GREEDY_MAX_NEW_TOKENS.
BASE = dict(D=32, L=2, V=64, tied=True, yarn=False, moe=None, mask=False)
CASES = [
    dict(BASE, name="gen3_dense", seed=101, gen=3, dtype="F32", H=4, Hkv=2, Dh=8, F=96,
         eps=1e-6, theta=1e6, mask=True),
    dict(BASE, name="gen2_dense", seed=108, gen=2, dtype="F16", H=4, Hkv=1, Dh=8, F=96,
         eps=1e-5, theta=1e6),
    dict(BASE, name="gen3_moe", seed=188, gen=3, dtype="BF16", H=4, Hkv=2, Dh=8, F=96,
         eps=1e-6, theta=1e6, moe=dict(E=4, top_k=1, F=48, shared=0, norm=True)),
    dict(BASE, name="gen2_moe", seed=139, gen=2, dtype="F16", H=4, Hkv=2, Dh=8, F=64,
         eps=1e-5, theta=1e6, moe=dict(E=4, top_k=2, F=64, shared=1, norm=True)),
    dict(BASE, name="untied_theta1e4", seed=103, gen=3, dtype="F32", H=4, Hkv=4, Dh=16, F=64,
         eps=1e-6, theta=1e4, tied=False),
    dict(BASE, name="gen3_yarn", seed=103, gen=3, dtype="F32", H=2, Hkv=1, Dh=16, F=96,
         eps=1e-6, theta=1e6, yarn=True),
]


def hf_config(c):
    """config.json dict with MiniMind's Hugging Face key names."""
    cfg = {"hidden_size": c["D"], "num_hidden_layers": c["L"],
           "num_attention_heads": c["H"], "num_key_value_heads": c["Hkv"]}
    if c["gen"] == 3:                       # generation 2 derives head_dim = D / H
        cfg["head_dim"] = c["Dh"]
    cfg.update({"intermediate_size": c["F"], "vocab_size": c["V"],
                "rms_norm_eps": c["eps"], "rope_theta": float(c["theta"]),
                "max_position_embeddings": MAX_POSITION_EMBEDDINGS,
                "tie_word_embeddings": c["tied"], "use_moe": c["moe"] is not None,
                "hidden_act": "silu", "bos_token_id": BOS_ID, "eos_token_id": EOS_ID})
    m = c["moe"]
    if m and c["gen"] == 3:
        cfg.update({"num_experts": m["E"], "num_experts_per_tok": m["top_k"],
                    "moe_intermediate_size": m["F"], "norm_topk_prob": m["norm"]})
    if m and c["gen"] == 2:
        cfg.update({"n_routed_experts": m["E"], "n_shared_experts": m["shared"],
                    "num_experts_per_tok": m["top_k"], "norm_topk_prob": m["norm"],
                    "scoring_func": "softmax"})
    if c["yarn"]:
        cfg["inference_rope_scaling"] = True
    return cfg


def tensor_table(c):
    """[(name, shape)] in model order: embed, per layer (attention, then FFN), norm, lm_head."""
    D, H, Hkv, Dh, F = c["D"], c["H"], c["Hkv"], c["Dh"], c["F"]
    table = [("model.embed_tokens.weight", [c["V"], D])]
    for i in range(c["L"]):
        p = f"model.layers.{i}."
        table += [(p + "input_layernorm.weight", [D]),
                  (p + "self_attn.q_proj.weight", [H * Dh, D]),
                  (p + "self_attn.k_proj.weight", [Hkv * Dh, D]),
                  (p + "self_attn.v_proj.weight", [Hkv * Dh, D]),
                  (p + "self_attn.o_proj.weight", [D, H * Dh])]
        if c["gen"] == 3:
            table += [(p + "self_attn.q_norm.weight", [Dh]), (p + "self_attn.k_norm.weight", [Dh])]
        table.append((p + "post_attention_layernorm.weight", [D]))
        m = c["moe"]
        experts = [("mlp.", F)] if m is None else \
            [(f"mlp.experts.{e}.", m["F"]) for e in range(m["E"])] + \
            [(f"mlp.shared_experts.{e}.", F) for e in range(m["shared"])]
        if m is not None:
            table.append((p + "mlp.gate.weight", [m["E"], D]))   # router
        for prefix, f in experts:
            table += [(p + prefix + "gate_proj.weight", [f, D]),
                      (p + prefix + "up_proj.weight", [f, D]),
                      (p + prefix + "down_proj.weight", [D, f])]
    table.append(("model.norm.weight", [D]))
    if not c["tied"]:
        table.append(("lm_head.weight", [c["V"], D]))
    return table


TORCH_DTYPE = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


def random_weights(c, gen):
    """name -> float32 tensor, exactly representable in the case's storage dtype."""
    weights = {}
    for name, shape in tensor_table(c):
        x = torch.randn(shape, generator=gen)
        if name.endswith("norm.weight"):          # all RMSNorm weights: near 1, not 1
            w = 1.0 + 0.2 * x
        elif name in ("model.embed_tokens.weight", "lm_head.weight"):
            w = x
        else:                                     # linear [out, in]: std gain/sqrt(in)
            # gain 2 (std 0.35 at in=32); generation 2 has no q/k norm to tame q.k, so its
            # q/k projections use gain 1: attention then is neither uniform nor one-hot.
            untamed_qk = c["gen"] == 2 and name.endswith(("q_proj.weight", "k_proj.weight"))
            w = x * ((1.0 if untamed_qk else 2.0) / math.sqrt(shape[1]))
        weights[name] = w.to(TORCH_DTYPE[c["dtype"]]).float()
    return weights


# ----------------------------------------------------------------------------- math
def rmsnorm(x, w, eps):
    # x: [..., n], w: [n]; RMS over the last dim, as MiniMind's RMSNorm.
    return w * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))


def rope_table(Dh, theta, yarn, end=MAX_POSITION_EMBEDDINGS):
    """cos, sin: [end, Dh] for positions 0..end-1, built like MiniMind's precompute_freqs_cis."""
    inv_freq = 1.0 / (theta ** (torch.arange(0, Dh, 2)[: Dh // 2].float() / Dh))  # [Dh/2]
    attention_factor = 1.0
    if yarn:
        orig_max, factor = YARN["original_max_position_embeddings"], YARN["factor"]
        attention_factor = YARN["attention_factor"]
        if end / orig_max > 1.0:
            def inv_dim(b):  # dimension index whose wavelength makes b turns in orig_max
                return (Dh * math.log(orig_max / (b * 2 * math.pi))) / (2 * math.log(theta))
            low = max(math.floor(inv_dim(YARN["beta_fast"])), 0)
            high = min(math.ceil(inv_dim(YARN["beta_slow"])), Dh // 2 - 1)
            ramp = torch.clamp((torch.arange(Dh // 2).float() - low) / max(high - low, 0.001), 0, 1)
            inv_freq = inv_freq * (1 - ramp + ramp / factor)
    angles = torch.outer(torch.arange(end).float(), inv_freq)                     # [end, Dh/2]
    cos = torch.cat([torch.cos(angles), torch.cos(angles)], dim=-1) * attention_factor
    sin = torch.cat([torch.sin(angles), torch.sin(angles)], dim=-1) * attention_factor
    return cos, sin


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat([-x[..., half:], x[..., :half]], dim=-1)


def apply_rope(x, cos, sin):
    # x: [B, T, heads, Dh]; cos, sin: [T, Dh] broadcast over batch and heads.
    return x * cos[None, :, None, :] + rotate_half(x) * sin[None, :, None, :]


def attention(a, lw, c, cos, sin, mask):
    """a: [B, T, D] -> (o_proj output [B, T, D], softmax weights [B, H, T, T], stages)."""
    B, T, _ = a.shape
    H, Hkv, Dh = c["H"], c["Hkv"], c["Dh"]
    q = (a @ lw["self_attn.q_proj.weight"].T).view(B, T, H, Dh)      # [B, T, H, Dh]
    k = (a @ lw["self_attn.k_proj.weight"].T).view(B, T, Hkv, Dh)    # [B, T, Hkv, Dh]
    v = (a @ lw["self_attn.v_proj.weight"].T).view(B, T, Hkv, Dh)    # [B, T, Hkv, Dh]
    q_proj = q
    if c["gen"] == 3:                                # q_norm / k_norm over Dh, before RoPE
        q = rmsnorm(q, lw["self_attn.q_norm.weight"], c["eps"])
        k = rmsnorm(k, lw["self_attn.k_norm.weight"], c["eps"])
    q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
    R = H // Hkv                                     # repeat_kv: q head h uses kv head h // R
    qh = q.transpose(1, 2)                                            # [B, H, T, Dh]
    kh = k.repeat_interleave(R, dim=2).transpose(1, 2)                # [B, H, T, Dh]
    vh = v.repeat_interleave(R, dim=2).transpose(1, 2)                # [B, H, T, Dh]
    scores_raw = qh @ kh.transpose(-2, -1)                            # [B, H, T, T]
    scores = scores_raw / math.sqrt(Dh)
    scores = scores + torch.full((T, T), float("-inf")).triu(1)       # causal: key j > query i
    if mask is not None:                             # padding: -1e9 added where the key is padding
        scores = scores + (1.0 - mask[:, None, None, :].float()) * -1e9
    probs = torch.softmax(scores.float(), dim=-1)                     # [B, H, T, T]
    heads = probs @ vh                                                # [B, H, T, Dh]
    out = heads.transpose(1, 2).reshape(B, T, H * Dh) @ lw["self_attn.o_proj.weight"].T
    stages = {"q_proj": q_proj, "q_rope": q, "k_rope": k, "v_proj": v,
              "scores_raw": scores_raw, "head_outputs": heads, "o_proj": out}
    return out, probs, stages


def swiglu(x, lw, prefix):
    # x: [N, D] -> [N, D]; down(silu(x gate^T) * (x up^T)).
    g = x @ lw[prefix + "gate_proj.weight"].T                         # [N, f]
    u = x @ lw[prefix + "up_proj.weight"].T                           # [N, f]
    return (torch.nn.functional.silu(g) * u) @ lw[prefix + "down_proj.weight"].T


def ffn(b, lw, c):
    """b: [B, T, D] -> (FFN output [B, T, D], router probabilities [B, T, E] or None)."""
    m = c["moe"]
    if m is None:
        return swiglu(b, lw, "mlp."), None
    x = b.reshape(-1, b.shape[-1])                                    # [N, D], N = B*T
    probs = torch.softmax(x @ lw["mlp.gate.weight"].T, dim=-1)        # [N, E]
    top_w, top_idx = torch.topk(probs, k=m["top_k"], dim=-1)          # [N, k]
    renormalise = m["norm"] and (c["gen"] == 3 or m["top_k"] > 1)     # gen 2: only when k > 1
    if renormalise:
        top_w = top_w / (top_w.sum(dim=-1, keepdim=True) + 1e-20)
    dense_w = torch.zeros_like(probs).scatter(1, top_idx, top_w)      # [N, E], 0 if not chosen
    y = torch.zeros_like(x)
    for e in range(m["E"]):                          # weighted sum, experts in ascending id
        y = y + dense_w[:, e:e + 1] * swiglu(x, lw, f"mlp.experts.{e}.")
    for e in range(m["shared"]):                     # gen 2 shared experts: always on, unweighted
        y = y + swiglu(x, lw, f"mlp.shared_experts.{e}.")
    return y.view(b.shape), probs.view(b.shape[0], b.shape[1], -1)


def forward(weights, c, rope, ids, mask=None):
    """ids: [B, T] int64 -> (logits [B, T, V], [attn weights [B, H, T, T]] per layer, layer-0 trace)."""
    T = ids.shape[1]
    cos, sin = rope[0][:T], rope[1][:T]              # positions 0..T-1 (left padding not shifted)
    h = weights["model.embed_tokens.weight"][ids]                     # [B, T, D]
    all_probs, trace = [], {}
    for i in range(c["L"]):
        lw = {n[len(f"model.layers.{i}."):]: w for n, w in weights.items()
              if n.startswith(f"model.layers.{i}.")}
        a = rmsnorm(h, lw["input_layernorm.weight"], c["eps"])
        attn_out, probs, stages = attention(a, lw, c, cos, sin, mask)
        h = h + attn_out
        b = rmsnorm(h, lw["post_attention_layernorm.weight"], c["eps"])
        ffn_out, router_probs = ffn(b, lw, c)
        h = h + ffn_out                                               # [B, T, D]
        all_probs.append(probs)
        if i == 0:
            trace = dict(stages, block_output=h)
            if router_probs is not None:
                trace["router_probs"] = router_probs
    h = rmsnorm(h, weights["model.norm.weight"], c["eps"])
    lm_head = weights["model.embed_tokens.weight" if c["tied"] else "lm_head.weight"]
    return h @ lm_head.T, all_probs, trace


def greedy(weights, c, rope, prompt, penalty):
    """New token ids, recomputing the whole prefix each step (no cache); eos is kept."""
    ids, new = list(prompt), []
    for _ in range(GREEDY_MAX_NEW_TOKENS):
        logits = forward(weights, c, rope, torch.tensor([ids]))[0][0, -1] / TEMPERATURE  # [V]
        if penalty != 1.0:                           # on every id seen so far, prompt included
            seen = torch.unique(torch.tensor(ids))
            s = logits[seen]
            logits[seen] = torch.where(s > 0, s / penalty, s * penalty)
        token = int(torch.argmax(logits))
        ids.append(token)
        new.append(token)
        if token == EOS_ID:
            break
    return new


# ----------------------------------------------------------------------------- files
def tensor_bytes(dtype, t):
    """Little-endian bytes of a tensor stored as dtype ("F32", "F16", "BF16", "I32")."""
    a = t.detach().cpu().numpy()
    if dtype == "F32":
        return a.astype("<f4").tobytes()
    if dtype == "F16":
        return a.astype("<f2").tobytes()
    if dtype == "BF16":     # upper half of the float32 bits (value already bf16-rounded)
        return (a.astype("<f4").view("<u4") >> 16).astype("<u2").tobytes()
    if dtype == "I32":
        return a.astype("<i4").tobytes()
    raise ValueError(dtype)


def write_safetensors(path, tensors, metadata):
    """tensors: name -> (dtype, tensor). Data packed in sorted name order, no gaps."""
    header, blobs, offset = {"__metadata__": metadata}, [], 0
    for name in sorted(tensors):
        dtype, t = tensors[name]
        data = tensor_bytes(dtype, t)
        header[name] = {"dtype": dtype, "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)                  # pad the header to a multiple of 8 bytes
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little"))
        f.write(text)
        for data in blobs:
            f.write(data)


def make_case(c):
    torch.manual_seed(c["seed"])
    gen = torch.Generator().manual_seed(c["seed"])
    weights = random_weights(c, gen)
    ids = torch.randint(3, c["V"], (BATCH, SEQ), generator=gen)       # [B, T], no bos/eos inside
    mask = torch.tensor([[1] * SEQ, [0, 0] + [1] * (SEQ - 2)]) if c["mask"] else None
    rope = rope_table(c["Dh"], c["theta"], c["yarn"])
    logits, probs, trace = forward(weights, c, rope, ids, mask)
    prompt = ids[0, :GREEDY_PROMPT_LEN].tolist()

    expected = {"input_ids": ("I32", ids), "logits": ("F32", logits),
                "greedy.prompt": ("I32", torch.tensor(prompt)),
                "greedy.ids": ("I32", torch.tensor(greedy(weights, c, rope, prompt, 1.0))),
                "greedy_penalty.ids": ("I32", torch.tensor(
                    greedy(weights, c, rope, prompt, REPETITION_PENALTY)))}
    if mask is not None:
        expected["attention_mask"] = ("I32", mask)
    for i, p in enumerate(probs):
        expected[f"attn_weights.{i}"] = ("F32", p)
    for stage, t in trace.items():
        expected[f"trace.0.{stage}"] = ("F32", t.contiguous())

    out = os.path.join(FIXTURES_DIR, c["name"])
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(hf_config(c), f, indent=2)
        f.write("\n")
    write_safetensors(os.path.join(out, "model.safetensors"),
                      {n: (c["dtype"], w) for n, w in weights.items()}, {"format": "pt"})
    if c["name"] in PTH_STYLES:
        write_pth(os.path.join(out, "model.pth"), c, weights)
    if c["name"] == RESUME_CASE:
        write_resume_pth(os.path.join(FIXTURES_DIR, "pth", f"pretrain_{c['D']}_resume.pth"), c, weights)
    write_safetensors(os.path.join(out, "expected.safetensors"), expected, {
        "format_version": str(FORMAT_VERSION), "generator": GENERATOR, "case": c["name"],
        "greedy_max_new_tokens": str(GREEDY_MAX_NEW_TOKENS),
        "repetition_penalty": str(REPETITION_PENALTY)})


# ----------------------------------------------------------------------------- .pth
# How MiniMind users get .pth files, one style per case; the values are exactly the case's
# model.safetensors values (F16 cases were rounded to F16 before, gen3_dense stays float32).
PTH_STYLES = {
    # model.state_dict() of a tied float32 model: an OrderedDict with _metadata (pickled with
    # BUILD), lm_head.weight listed too and sharing the embedding's storage.
    "gen3_dense": "state_dict",
    # MiniMind's trainer: torch.save({k: v.half() for k, v in state_dict.items()}): a plain
    # dict; .half() makes lm_head.weight a separate copy of the embedding.
    "gen2_dense": "trainer",
    # A DistributedDataParallel + torch.compile model: every name prefixed "module._orig_mod.".
    "gen2_moe": "wrapped",
}


def write_pth(path, c, weights):
    """weights: name -> float32 tensor (already rounded to the case's dtype)."""
    style = PTH_STYLES[c["name"]]
    names = list(weights) + ([] if not c["tied"] else ["lm_head.weight"])
    source = dict(weights, **({"lm_head.weight": weights["model.embed_tokens.weight"]} if c["tied"] else {}))
    if style == "trainer":
        state = {n: source[n].half() for n in names}
    else:
        prefix = "module._orig_mod." if style == "wrapped" else ""
        state = collections.OrderedDict((prefix + n, source[n].to(TORCH_DTYPE[c["dtype"]])) for n in names)
        state._metadata = collections.OrderedDict([("", {"version": 1})])
    torch.save(state, path)


# MiniMind's resume checkpoint (trainer_utils.lm_checkpoint) of this case's weights.
RESUME_CASE = "gen2_dense"


def write_resume_pth(path, c, weights):
    """<weight>_<hidden>_resume.pth as lm_checkpoint writes it: {"model": the trainer's
    {k: v.half()} state dict, "optimizer": AdamW's state_dict() after one step, "epoch", "step",
    "world_size", "wandb_id", "scaler"}. The weights are the case's own (F16 already), so the
    "model" entry holds exactly its model.safetensors values."""
    names = list(weights) + (["lm_head.weight"] if c["tied"] else [])
    source = dict(weights, **({"lm_head.weight": weights["model.embed_tokens.weight"]} if c["tied"] else {}))
    state = {n: source[n].half() for n in names}
    # The parameters in model order (a tied embedding is one parameter), one AdamW step on
    # gradients drawn from their own generator (the global RNG and the case stay untouched).
    params = [torch.nn.Parameter(w.clone()) for w in weights.values()]
    grads = torch.Generator().manual_seed(c["seed"] + 1)
    for p in params:
        p.grad = torch.randn(p.shape, generator=grads) * 0.01
    optimizer = torch.optim.AdamW(params, lr=5e-4)
    optimizer.step()
    resume = {"model": state, "optimizer": optimizer.state_dict(), "epoch": 0, "step": 7,
              "world_size": 1, "wandb_id": None,
              # torch.cuda.amp.GradScaler().state_dict() of a float16 run (MiniMind passes scaler=).
              "scaler": {"scale": 65536.0, "growth_factor": 2.0, "backoff_factor": 0.5,
                         "growth_interval": 2000, "_growth_tracker": 0}}
    os.makedirs(os.path.dirname(path), exist_ok=True)
    torch.save(resume, path)


class CallsOsSystem:
    """Unpickling this runs os.system: the reader must refuse it, never execute it."""

    def __reduce__(self):
        return (os.system, ("echo pwned",))


def make_pth_extras():
    """Small .pth files for reader edge cases (tests/fixtures/pth/)."""
    out = os.path.join(FIXTURES_DIR, "pth")
    os.makedirs(out, exist_ok=True)
    base = torch.arange(12, dtype=torch.float32).to(torch.bfloat16)              # one storage of 12
    grid = base.view(3, 4)
    torch.save(collections.OrderedDict([
        ("grid", grid),                          # offset 0, [3, 4]
        ("row1", grid[1]),                       # offset 4, [4]
        ("tail", grid[1:]),                      # offset 4, [2, 4]
        ("one", grid[2:3, 1:2]),                 # offset 9, [1, 1], strides (4, 1)
        ("empty", grid[3:]),                     # offset 12, [0, 4]
    ]), os.path.join(out, "views_bf16.pth"))
    torch.save({"t": torch.arange(6, dtype=torch.float16).view(2, 3).t()},           # strides (1, 3)
               os.path.join(out, "transposed.pth"))
    torch.save({"model.embed_tokens.weight": CallsOsSystem()}, os.path.join(out, "hostile_os_system.pth"))
    # Protocol 4 (FRAME, MEMOIZE, SHORT_BINUNICODE, STACK_GLOBAL; BINUNICODE for a name of 256+
    # bytes): a module-style state dict with _metadata, views of one storage and three dtypes.
    grid4 = torch.arange(12, dtype=torch.float32).view(3, 4)
    state4 = collections.OrderedDict([
        ("grid", grid4),                                      # F32, offset 0
        ("row2", grid4[2]),                                   # offset 8
        ("half", torch.arange(6, dtype=torch.float16).view(2, 3) / 4),
        ("bf16", torch.tensor([1.5, -2.0], dtype=torch.bfloat16)),
        ("n" * 300, torch.tensor([7.0])),
    ])
    state4._metadata = collections.OrderedDict([("", {"version": 1})])
    torch.save(state4, os.path.join(out, "protocol4.pth"), pickle_protocol=4)
    # nn.Parameter values (torch._utils._rebuild_parameter), as torch.save(dict(model.named_parameters())).
    torch.save({"weight": torch.nn.Parameter(torch.arange(6, dtype=torch.float32).view(2, 3)),
                "frozen": torch.nn.Parameter(torch.tensor([0.5, 0.25]).half(), requires_grad=False)},
               os.path.join(out, "parameters.pth"))


# ----------------------------------------------------------------------------- random init
MASK64 = 2**64 - 1


def fnv1a64(text):
    h = 0xCBF29CE484222325
    for byte in text.encode("utf-8"):
        h = ((h ^ byte) * 0x100000001B3) & MASK64
    return h


def splitmix64_draws(state, n):
    """n outputs of SplitMix64 started at state, as Python ints."""
    out = []
    for _ in range(n):
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        out.append(z ^ (z >> 31))
    return out


def init_tensor(name, shape, seed):
    """The C++ core's seeded initialisation of one tensor, as float32 [shape]."""
    if name.endswith("norm.weight"):
        return np.ones(shape, dtype=np.float32)
    n = int(np.prod(shape))
    draws = splitmix64_draws((seed & MASK64) ^ fnv1a64(name), n)
    m = np.array([d >> 40 for d in draws], dtype=np.float32)         # 24 bits, exact
    u = m * np.float32(2.0 ** -23) - np.float32(1.0)                  # exact, in [-1, 1)
    if name == "model.embed_tokens.weight":
        bound = np.float32(1.0)
    else:                                                             # linear [out, in]
        bound = np.float32(1.0) / np.sqrt(np.float32(shape[1]))
    value = (u * bound).astype(np.float32)
    return value.astype(np.float16).astype(np.float32).reshape(shape)  # round to f16 (RNE)


LAB_A = dict(BASE, name="lab-a", gen=3, D=64, L=2, V=128, H=4, Hkv=2, Dh=16,
             F=math.ceil(64 * math.pi / 64) * 64)


def make_random_init(preset=LAB_A, seed=42):
    tensors = {}
    for name, shape in tensor_table(preset):
        w = init_tensor(name, shape, seed)
        # Values are multiples of 2^-24 with |w| <= 1, so the float64 sum is exact in any order.
        tensors[name] = {"shape": shape, "first": [float(v) for v in w.reshape(-1)[:8]],
                         "sum": math.fsum(float(v) for v in w.reshape(-1))}
    head = json.dumps({"format_version": FORMAT_VERSION, "preset": preset["name"], "seed": seed})
    rows = [f"  {json.dumps(n)}: {json.dumps(t)}" for n, t in tensors.items()]  # one line each
    with open(os.path.join(FIXTURES_DIR, "random_init.json"), "w") as f:
        f.write(head[:-1] + ', "tensors": {\n' + ",\n".join(rows) + "\n}}\n")


# ----------------------------------------------------------------------------- training
# Fixtures for the C++ trainer (tests/fixtures/train/<case>/), from MiniMind's pretraining
# recipe (trainer/train_pretrain.py, model/model_minimind.py) as MINIMIND.md "Training" states
# it. Versioned on their own: "train_format_version" in every JSON and safetensors metadata.
TRAIN_FORMAT_VERSION = 1
TRAIN_DIR = os.path.join(FIXTURES_DIR, "train")
TRAIN_MAX_SEQ_LEN = 12            # --max_seq_len: every sample is padded to this length
PAD_ID = 0                        # <|endoftext|>
IGNORE_INDEX = -100               # F.cross_entropy's ignore_index
TRAIN_GRAD_BATCH = 4              # gradients.safetensors: the first 4 sequences, one batch
# Lengths (bos and eos included) of the 20 sequences of data.json, in file order: 3..12, each
# batch of 2 and the batch of 4 mixes lengths, so every batch but the all-12 one holds padding.
TRAIN_LENGTHS = [12, 5, 3, 9, 7, 12, 4, 10, 11, 6, 3, 8, 12, 12, 5, 9, 10, 4, 6, 11]
TRAIN_EMBED_STD = 0.1             # embeddings N(0, 1) * 0.1: initial loss near log(64)
                                  # (0.5 puts the tied cases' initial loss near 13)
TRAIN_BASE = dict(BASE, F=64, theta=1e6, dtype="F32")
TRAIN_CASES = [
    dict(TRAIN_BASE, name="gen3_r2_tied", seed=301, gen=3, H=4, Hkv=2, Dh=8, eps=1e-6),
    dict(TRAIN_BASE, name="gen2_r4_tied", seed=302, gen=2, H=4, Hkv=1, Dh=8, eps=1e-5),
    dict(TRAIN_BASE, name="gen3_r1_untied", seed=303, gen=3, H=4, Hkv=4, Dh=8, eps=1e-6,
         tied=False),
    # head_dim above hidden / heads (H * Dh = 64 > D = 32), as config.json's head_dim may set
    dict(TRAIN_BASE, name="gen3_wide_heads", seed=304, gen=3, H=4, Hkv=2, Dh=16, eps=1e-6),
]
# Two runs of train_pretrain.py's loop on each case's initial weights and data, file order.
RECIPES = [
    dict(name="a", batch_size=2, accumulation_steps=1, epochs=2, learning_rate=5e-3, grad_clip=0.5),
    dict(name="b", batch_size=2, accumulation_steps=3, epochs=2, learning_rate=5e-3, grad_clip=0.5),
]


class RefRMSNorm(torch.nn.Module):
    """model_minimind.py RMSNorm: only `weight` [n] is state (eps comes from the config)."""

    def __init__(self, n):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(n))


class RefAttention(torch.nn.Module):
    """Attention's parameters, in MiniMind's __init__ order (q, k, v, o, then q_norm, k_norm)."""

    def __init__(self, c):
        super().__init__()
        D, H, Hkv, Dh = c["D"], c["H"], c["Hkv"], c["Dh"]
        self.q_proj = torch.nn.Linear(D, H * Dh, bias=False)            # weight [H*Dh, D]
        self.k_proj = torch.nn.Linear(D, Hkv * Dh, bias=False)          # weight [Hkv*Dh, D]
        self.v_proj = torch.nn.Linear(D, Hkv * Dh, bias=False)          # weight [Hkv*Dh, D]
        self.o_proj = torch.nn.Linear(H * Dh, D, bias=False)            # weight [D, H*Dh]
        if c["gen"] == 3:                            # generation 2 has no q/k norm
            self.q_norm, self.k_norm = RefRMSNorm(Dh), RefRMSNorm(Dh)


class RefFeedForward(torch.nn.Module):
    """FeedForward: gate_proj, down_proj, up_proj (MiniMind's order)."""

    def __init__(self, c):
        super().__init__()
        self.gate_proj = torch.nn.Linear(c["D"], c["F"], bias=False)   # [F, D]
        self.down_proj = torch.nn.Linear(c["F"], c["D"], bias=False)   # [D, F]
        self.up_proj = torch.nn.Linear(c["D"], c["F"], bias=False)     # [F, D]


class RefBlock(torch.nn.Module):
    """MiniMindBlock: self_attn, input_layernorm, post_attention_layernorm, mlp."""

    def __init__(self, c):
        super().__init__()
        self.self_attn = RefAttention(c)
        self.input_layernorm = RefRMSNorm(c["D"])
        self.post_attention_layernorm = RefRMSNorm(c["D"])
        self.mlp = RefFeedForward(c)


class RefModel(torch.nn.Module):
    """MiniMindModel: embed_tokens, layers, norm (freqs_cos/sin are persistent=False buffers)."""

    def __init__(self, c):
        super().__init__()
        self.embed_tokens = torch.nn.Embedding(c["V"], c["D"])
        self.layers = torch.nn.ModuleList([RefBlock(c) for _ in range(c["L"])])
        self.norm = RefRMSNorm(c["D"])


class RefCausalLM(torch.nn.Module):
    """MiniMindForCausalLM's parameter names and tying, for state_dict() and parameters().

    The math is not here: the loss uses forward() above on dict(named_parameters()).
    """

    def __init__(self, c):
        super().__init__()
        self.model = RefModel(c)
        self.lm_head = torch.nn.Linear(c["D"], c["V"], bias=False)
        if c["tied"]:   # `self.model.embed_tokens.weight = self.lm_head.weight`: one Parameter
            self.model.embed_tokens.weight = self.lm_head.weight


def train_init_weights(c, gen):
    """name -> float32 tensor (tensor_table names, so tied: no lm_head.weight), not rounded."""
    weights = {}
    for name, shape in tensor_table(c):
        u = 2.0 * torch.rand(shape, generator=gen) - 1.0                  # U(-1, 1)
        if name.endswith("norm.weight"):                                  # 1 + U(-0.2, 0.2)
            w = 1.0 + 0.2 * u
        elif name == "model.embed_tokens.weight":                         # N(0, 1) * 0.1
            w = torch.randn(shape, generator=gen) * TRAIN_EMBED_STD
        else:                                        # linear [out, in], lm_head included
            w = u / math.sqrt(shape[1])                                   # U(±1/sqrt(in))
        weights[name] = w.float()
    return weights


def build_ref_model(c, weights):
    """A RefCausalLM holding `weights` (tied: lm_head.weight is the embedding Parameter)."""
    model = RefCausalLM(c)
    state = dict(weights)
    if c["tied"]:                                    # what MiniMind's state_dict() lists
        state["lm_head.weight"] = weights["model.embed_tokens.weight"]
    model.load_state_dict(state, strict=True)
    names = [n for n, _ in model.named_parameters()]
    assert sorted(names) == sorted(n for n, _ in tensor_table(c)), names
    return model


def train_sequences(c, gen):
    """The 20 samples of data.json: [bos] + ids in 3..V-1 + [eos], lengths TRAIN_LENGTHS."""
    return [[BOS_ID] + torch.randint(3, c["V"], (n - 2,), generator=gen).tolist() + [EOS_ID]
            for n in TRAIN_LENGTHS]


def pad_batch(seqs):
    """PretrainDataset.__getitem__ per sample -> (input_ids [B, T], labels [B, T]), T = 12."""
    cut = [s[:TRAIN_MAX_SEQ_LEN] for s in seqs]                      # truncated to max_seq_len
    input_ids = torch.tensor([s + [PAD_ID] * (TRAIN_MAX_SEQ_LEN - len(s)) for s in cut])
    labels = input_ids.clone()                                        # [B, T] int64
    labels[input_ids == PAD_ID] = IGNORE_INDEX                        # labels[ids == pad] = -100
    return input_ids, labels


def label_tokens(labels):
    """The number of targets the loss averages over: labels[:, 1:] that are not -100."""
    return int((labels[:, 1:] != IGNORE_INDEX).sum())


def pretrain_loss(weights, c, rope, input_ids, labels):
    """MiniMindForCausalLM.forward(input_ids, labels=labels).loss (+ aux_loss 0, dense); no mask."""
    logits = forward(weights, c, rope, input_ids)[0]                  # [B, T, V]
    x, y = logits[:, :-1, :], labels[:, 1:]                           # row i predicts token i+1
    return torch.nn.functional.cross_entropy(x.reshape(-1, x.shape[-1]), y.reshape(-1),
                                             ignore_index=IGNORE_INDEX)


def get_lr(current_step, total_steps, lr):
    """trainer_utils.get_lr: cosine from lr down to 0.1 * lr, in Python floats."""
    return lr * (0.1 + 0.45 * (1 + math.cos(math.pi * current_step / total_steps)))


def batch_gradients(c, rope, init, seqs):
    """gradients.safetensors tensors for one batch of the first TRAIN_GRAD_BATCH samples."""
    model = build_ref_model(c, init)
    input_ids, labels = pad_batch(seqs[:TRAIN_GRAD_BATCH])            # [4, 12]
    loss = pretrain_loss(dict(model.named_parameters()), c, rope, input_ids, labels)
    loss.backward()                                  # tied: embedding + lm_head grads summed
    out = {"loss": ("F32", loss.detach().reshape(1)),
           "tokens": ("F32", torch.tensor([float(label_tokens(labels))]))}
    for name, p in model.named_parameters():
        out["grad." + name] = ("F32", p.grad)
    return out, float(loss)


def train_run(c, rope, init, seqs, r):
    """train_pretrain.py's train_epoch loop, file order -> (run record, final weights)."""
    model = build_ref_model(c, init)
    params = list(model.parameters())                # model.parameters(): tied embedding once
    optimizer = torch.optim.AdamW(params, lr=r["learning_rate"])      # betas, eps, wd: defaults
    bs, acc, epochs = r["batch_size"], r["accumulation_steps"], r["epochs"]
    iters = math.ceil(len(seqs) / bs)                # len(loader); a last short batch is kept
    batches = []
    for epoch in range(epochs):
        for step in range(1, iters + 1):             # enumerate(loader, start=1)
            input_ids, labels = pad_batch(seqs[(step - 1) * bs: step * bs])
            lr = get_lr(epoch * iters + step, epochs * iters, r["learning_rate"])
            for group in optimizer.param_groups:
                group["lr"] = lr
            loss = pretrain_loss(dict(model.named_parameters()), c, rope, input_ids, labels)
            (loss / acc).backward()                  # `loss = loss / args.accumulation_steps`
            # `step % accumulation_steps == 0 or step == iters`: the epoch's remainder steps too.
            stepped = step % acc == 0 or step == iters
            grad_norm = None
            if stepped:
                grad_norm = float(torch.nn.utils.clip_grad_norm_(params, r["grad_clip"]))
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
            batches.append({"epoch": epoch, "batch": step, "loss": loss.item(), "lr": lr,
                            "optimizer_step": stepped, "grad_norm": grad_norm,
                            "tokens": label_tokens(labels)})
    record = {k: r[k] for k in ("name", "batch_size", "accumulation_steps", "epochs",
                                "learning_rate", "grad_clip")}
    record.update(order="file", iters_per_epoch=iters,
                  final_weights=f"recipe_{r['name']}_final.safetensors", batches=batches)
    final = {n: p.detach().clone() for n, p in model.named_parameters()}
    return record, final


def read_safetensors_f32(path):
    """name -> float32 tensor of an F32 safetensors file (to check what we wrote)."""
    with open(path, "rb") as f:
        blob = f.read()
    n = int.from_bytes(blob[:8], "little")
    header = json.loads(blob[8:8 + n])
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        assert e["dtype"] == "F32", (name, e["dtype"])
        begin, end = e["data_offsets"]
        data = np.frombuffer(blob[8 + n + begin: 8 + n + end], dtype="<f4").copy()
        out[name] = torch.from_numpy(data).reshape(e["shape"])
    return out


def check_strict_load(c, path, weights):
    """MiniMind's load_state_dict(strict=True) takes the file (+ an lm_head copy if tied)."""
    state = read_safetensors_f32(path)
    if c["tied"]:
        state["lm_head.weight"] = state["model.embed_tokens.weight"].clone()
    model = RefCausalLM(c)
    model.load_state_dict(state, strict=True)
    for name, p in model.named_parameters():
        assert torch.equal(p.detach(), weights[name]), name
    if c["tied"]:
        assert model.lm_head.weight is model.model.embed_tokens.weight


def write_json_lines(path, head, key, rows):
    """head's fields, then key: [rows], one row per line (small, diff-friendly files)."""
    text = json.dumps(head)[:-1] + f', "{key}": [\n'
    text += ",\n".join("  " + json.dumps(row) for row in rows) + "\n]}\n"
    with open(path, "w") as f:
        f.write(text)


def write_recipes_json(path, head, runs):
    """{head..., "runs": [{run fields..., "batches": [one batch per line]}]}."""
    parts = []
    for run in runs:
        fields = json.dumps({k: v for k, v in run.items() if k != "batches"})[:-1]
        rows = ",\n".join("    " + json.dumps(b) for b in run["batches"])
        parts.append("  " + fields + ', "batches": [\n' + rows + "\n  ]}")
    with open(path, "w") as f:
        f.write(json.dumps(head)[:-1] + ', "runs": [\n' + ",\n".join(parts) + "\n]}\n")


def write_state_dict_keys(path, c, init, version):
    """MiniMindForCausalLM.state_dict() keys and shapes (tied: lm_head.weight listed too)."""
    model = build_ref_model(c, init)
    tied_keys = {"lm_head.weight": "model.embed_tokens.weight"} if c["tied"] else {}
    head = dict(version, case=c["name"], tied=c["tied"], tied_keys=tied_keys,
                parameters=[n for n, _ in model.named_parameters()])   # model.parameters() order
    write_json_lines(path, head, "state_dict",
                     [[n, list(t.shape)] for n, t in model.state_dict().items()])


def make_train_case(c):
    gen = torch.Generator().manual_seed(c["seed"])
    init = train_init_weights(c, gen)
    seqs = train_sequences(c, gen)
    rope = rope_table(c["Dh"], c["theta"], c["yarn"])
    version = {"train_format_version": TRAIN_FORMAT_VERSION}
    meta = {"format": "pt", "train_format_version": str(TRAIN_FORMAT_VERSION),
            "generator": GENERATOR, "case": c["name"]}

    out = os.path.join(TRAIN_DIR, c["name"])
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(hf_config(c), f, indent=2)
        f.write("\n")
    model_path = os.path.join(out, "model.safetensors")
    write_safetensors(model_path, {n: ("F32", w) for n, w in init.items()}, {"format": "pt"})
    check_strict_load(c, model_path, init)

    write_json_lines(os.path.join(out, "data.json"),
                     dict(version, max_seq_len=TRAIN_MAX_SEQ_LEN, bos_id=BOS_ID, eos_id=EOS_ID,
                          pad_id=PAD_ID), "sequences", seqs)

    grads, loss0 = batch_gradients(c, rope, init, seqs)
    write_safetensors(os.path.join(out, "gradients.safetensors"), grads,
                      dict(meta, batch_size=str(TRAIN_GRAD_BATCH)))

    runs = []
    for r in RECIPES:
        record, final = train_run(c, rope, init, seqs, r)
        final_path = os.path.join(out, record["final_weights"])
        write_safetensors(final_path, {n: ("F32", w) for n, w in final.items()},
                          dict(meta, recipe=r["name"]))
        check_strict_load(c, final_path, final)
        runs.append(record)
        b = record["batches"]
        clipped = sum(1 for x in b if x["optimizer_step"] and x["grad_norm"] > r["grad_clip"])
        steps = sum(1 for x in b if x["optimizer_step"])
        print(f"  {c['name']} recipe {r['name']}: loss {b[0]['loss']:.4f} -> "
              f"{b[-1]['loss']:.4f}, {clipped}/{steps} steps clipped")
    write_recipes_json(os.path.join(out, "recipes.json"), dict(version, case=c["name"]), runs)
    write_state_dict_keys(os.path.join(out, "state_dict_keys.json"), c, init, version)
    print(f"  {c['name']}: batch-of-{TRAIN_GRAD_BATCH} loss {loss0:.4f} "
          f"(log V = {math.log(c['V']):.4f})")


def main():
    torch.set_num_threads(1)                         # same summation order on every run
    os.makedirs(FIXTURES_DIR, exist_ok=True)
    for c in CASES:
        make_case(c)
    make_random_init()
    make_pth_extras()
    for c in TRAIN_CASES:
        make_train_case(c)
    import interp_reference             # interp.safetensors per case, hooks on the weights just written
    interp_reference.main()
    import qk_reference                 # qk.json per case: QK attribution by the same hooks
    qk_reference.main()
    import circuit_reference            # circuit.json per dense case: every edge, EAP and path patching
    circuit_reference.main()
    import resume_reference             # resume/: MiniMind's resume checkpoint of a train case
    resume_reference.write()
    import moe_backward_reference       # train/<moe case>/: MoE gradients by autograd
    moe_backward_reference.main()
    print("wrote fixtures to", FIXTURES_DIR)


if __name__ == "__main__":
    main()
