#!/usr/bin/env python3
"""ONNX graphs of MiniMind-shaped models, for comparing our Wasm module with ONNX Runtime Web.

For each preset (lab-a, minimind2-small, minimind-3) it builds a plain-PyTorch MiniMind from the
spec (MINIMIND.md: RMSNorm, q/k norm in generation 3, rotate-half RoPE, GQA by repeat_kv, causal
mask, SwiGLU, tied lm_head) with OUR seeded random weights (the C++ core's recipe, see docs/api.md,
"Seeded random weights"), so that both runtimes compute with the same numbers, and exports two
graphs with torch.onnx.export (opset 17, the sequence length dynamic):

  bench/models/<preset>.prefill.onnx  input_ids [1, T] int64
                                      -> logits [1, T, V], present_key_i / present_value_i
                                         [1, Hkv, T, Dh] per layer i
  bench/models/<preset>.decode.onnx   input_ids [1, 1] int64, past_key_i / past_value_i
                                      [1, Hkv, P, Dh] -> logits [1, 1, V], present_* [1, Hkv, P+1, Dh]
  bench/models/<preset>.json          the config, seed, file sizes and each graph's operator counts

The causal mask is built out of place (torch.where on position comparisons, then added to the
scores): an in-place slice update would export as ScatterND, which ONNX Runtime runs slowly.
Every exported graph is checked to contain no ScatterND.

Run from the repository root with Debian's Python (bench/run.mjs does it when a model is missing):
    /usr/bin/python3 bench/speed/make_onnx.py [--preset NAME ...] [--seed N] [--init minimind|playground]
Needs python3-torch and python3-numpy (apt-get install python3-torch python3-numpy).
"""
import argparse
import collections
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests"))

try:
    import numpy as np
    import torch
    from torch import nn
except ImportError as error:
    sys.exit(f"make_onnx.py: {error}: this script needs PyTorch and numpy "
             "(apt-get install python3-torch python3-numpy; run it with /usr/bin/python3)")

# The fixture generator already re-implements the core's initialisation: reuse its tensor table,
# fnv1a64 and (as the check of the vectorised version below) its per-element init_tensor.
from make_fixtures import BASE, MASK64, fnv1a64, init_tensor, rmsnorm, rotate_half, splitmix64_draws, \
    tensor_table  # noqa: E402

GENERATOR_VERSION = 2        # bump when the graphs change; run.mjs then regenerates them
OPSET = 17
MODELS_DIR = os.path.join(HERE, "..", "models")
DEFAULT_SEED = 0

# Shape legend: T tokens, P cached tokens, D hidden, H q heads, Hkv kv heads, Dh head_dim,
# R = H / Hkv, F intermediate size, V vocab, L layers. Shapes from MINIMIND.md's table.
PRESETS = {
    "lab-a": dict(BASE, name="lab-a", gen=3, D=64, L=2, H=4, Hkv=2, Dh=16, F=256, V=128,
                  eps=1e-6, theta=1e6),
    "minimind2-small": dict(BASE, name="minimind2-small", gen=2, D=512, L=8, H=8, Hkv=2, Dh=64,
                            F=1408, V=6400, eps=1e-5, theta=1e6),
    "minimind-3": dict(BASE, name="minimind-3", gen=3, D=768, L=8, H=8, Hkv=4, Dh=96, F=2432,
                       V=6400, eps=1e-6, theta=1e6),
}


# ----------------------------------------------------------------------------- weights
def embedding_bound(shape, init):
    """The seeded embedding's scale (the core's RandomInit): "playground" U(-1, 1), the page's
    random presets; "minimind" U(±1/sqrt(D)), what MiniMind's tied embedding (lm_head's
    nn.Linear) starts from. The bench uses "minimind": with U(-1, 1) the tied lm_head maps every
    position back to its own token, and agreeing on such logits proves little."""
    return np.float32(1.0) if init == "playground" else np.float32(1.0) / np.sqrt(np.float32(shape[1]))


def init_tensor_fast(name, shape, seed, init="playground"):
    """init_tensor (tests/make_fixtures.py) vectorised: SplitMix64's k-th output only depends on
    state + k·golden, so all draws of a tensor are computed at once in wrapping uint64."""
    if name.endswith("norm.weight"):
        return np.ones(shape, dtype=np.float32)
    n = int(np.prod(shape))
    state = np.uint64((seed & MASK64) ^ fnv1a64(name))
    with np.errstate(over="ignore"):
        z = state + np.arange(1, n + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    u = (z >> np.uint64(40)).astype(np.float32) * np.float32(2.0 ** -23) - np.float32(1.0)
    bound = embedding_bound(shape, init) if name == "model.embed_tokens.weight" else \
        np.float32(1.0) / np.sqrt(np.float32(shape[1]))
    value = (u * bound).astype(np.float32)
    return value.astype(np.float16).astype(np.float32).reshape(shape)


def check_init_fast(seed, init):
    """The vectorised init equals the reference one: every lab-a tensor in full (init_tensor),
    and the first 16 elements of every tensor of the big presets (splitmix64_draws)."""
    for name, shape in tensor_table(PRESETS["lab-a"]):
        if not np.array_equal(init_tensor_fast(name, shape, seed), init_tensor(name, shape, seed)):
            sys.exit(f"make_onnx.py: vectorised init differs from tests/make_fixtures.py for {name}")
    for c in PRESETS.values():
        for name, shape in tensor_table(c):
            if name.endswith("norm.weight"):
                continue
            draws = splitmix64_draws((seed & MASK64) ^ fnv1a64(name), 16)
            u = np.array([d >> 40 for d in draws], dtype=np.float32) * np.float32(2.0 ** -23) - np.float32(1.0)
            bound = embedding_bound(shape, init) if name == "model.embed_tokens.weight" else \
                np.float32(1.0) / np.sqrt(np.float32(shape[1]))
            expect = (u * bound).astype(np.float32).astype(np.float16).astype(np.float32)
            if not np.array_equal(init_tensor_fast(name, shape, seed, init).reshape(-1)[:16], expect):
                sys.exit(f"make_onnx.py: vectorised init differs from SplitMix64 for {c['name']} {name}")


# ----------------------------------------------------------------------------- model
class RMSNorm(nn.Module):
    def __init__(self, n, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(n))  # [n]

    def forward(self, x):  # x: [..., n]
        return rmsnorm(x, self.weight, self.eps)


def repeat_kv(x, R):
    """x: [1, Hkv, Tk, Dh] -> [1, Hkv·R, Tk, Dh]; q head h reads kv head h // R (MiniMind's
    repeat_kv, here on the head-first cache layout)."""
    if R == 1:
        return x
    _, Hkv, _, Dh = x.shape
    return x[:, :, None, :, :].expand(-1, -1, R, -1, -1).reshape(1, Hkv * R, -1, Dh)


class Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        D, self.H, self.Hkv, self.Dh = c["D"], c["H"], c["Hkv"], c["Dh"]
        self.q_proj = nn.Linear(D, self.H * self.Dh, bias=False)    # [H·Dh, D]
        self.k_proj = nn.Linear(D, self.Hkv * self.Dh, bias=False)  # [Hkv·Dh, D]
        self.v_proj = nn.Linear(D, self.Hkv * self.Dh, bias=False)  # [Hkv·Dh, D]
        self.o_proj = nn.Linear(self.H * self.Dh, D, bias=False)    # [D, H·Dh]
        self.qk_norm = c["gen"] == 3
        if self.qk_norm:
            self.q_norm = RMSNorm(self.Dh, c["eps"])
            self.k_norm = RMSNorm(self.Dh, c["eps"])

    def forward(self, x, cos, sin, mask, past_k=None, past_v=None):
        """x: [1, T, D]; cos, sin: [T, Dh]; mask: [T, Tk]; past_*: [1, Hkv, P, Dh] or None.
        Returns (o_proj output [1, T, D], k and v [1, Hkv, Tk, Dh] for the cache)."""
        T = x.shape[1]
        q = self.q_proj(x).view(1, T, self.H, self.Dh)       # [1, T, H, Dh]
        k = self.k_proj(x).view(1, T, self.Hkv, self.Dh)     # [1, T, Hkv, Dh]
        v = self.v_proj(x).view(1, T, self.Hkv, self.Dh)     # [1, T, Hkv, Dh]
        if self.qk_norm:                                     # generation 3, before RoPE
            q, k = self.q_norm(q), self.k_norm(k)
        cos, sin = cos[None, :, None, :], sin[None, :, None, :]
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)  # heads first
        if past_k is not None:
            k = torch.cat([past_k, k], dim=2)                # [1, Hkv, P + T, Dh]
            v = torch.cat([past_v, v], dim=2)
        R = self.H // self.Hkv
        scores = (q @ repeat_kv(k, R).transpose(-2, -1)) / math.sqrt(self.Dh)  # [1, H, T, Tk]
        probs = torch.softmax(scores + mask, dim=-1)         # out-of-place mask: no ScatterND
        heads = probs @ repeat_kv(v, R)                      # [1, H, T, Dh]
        out = self.o_proj(heads.transpose(1, 2).reshape(1, T, self.H * self.Dh))
        return out, k, v


class FeedForward(nn.Module):  # SwiGLU
    def __init__(self, c):
        super().__init__()
        self.gate_proj = nn.Linear(c["D"], c["F"], bias=False)  # [F, D]
        self.up_proj = nn.Linear(c["D"], c["F"], bias=False)    # [F, D]
        self.down_proj = nn.Linear(c["F"], c["D"], bias=False)  # [D, F]

    def forward(self, x):
        return self.down_proj(nn.functional.silu(self.gate_proj(x)) * self.up_proj(x))


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.input_layernorm = RMSNorm(c["D"], c["eps"])
        self.self_attn = Attention(c)
        self.post_attention_layernorm = RMSNorm(c["D"], c["eps"])
        self.mlp = FeedForward(c)

    def forward(self, h, cos, sin, mask, past_k=None, past_v=None):
        o, k, v = self.self_attn(self.input_layernorm(h), cos, sin, mask, past_k, past_v)
        h = h + o
        return h + self.mlp(self.post_attention_layernorm(h)), k, v


class MiniMind(nn.Module):
    """MiniMindForCausalLM, dense, tied embeddings; forward(input_ids, *past) -> (logits, *present)."""

    def __init__(self, c):
        super().__init__()
        self.c = c
        self.embed_tokens = nn.Embedding(c["V"], c["D"])     # [V, D]
        self.layers = nn.ModuleList(Block(c) for _ in range(c["L"]))
        self.norm = RMSNorm(c["D"], c["eps"])
        Dh = c["Dh"]
        inv_freq = 1.0 / (c["theta"] ** (torch.arange(0, Dh, 2)[: Dh // 2].float() / Dh))
        self.register_buffer("inv_freq", inv_freq, persistent=False)  # [Dh/2]
        self.register_buffer("neg_inf", torch.tensor(float("-inf")), persistent=False)
        self.register_buffer("zero", torch.tensor(0.0), persistent=False)

    def forward(self, input_ids, *past):
        """input_ids: [1, T]; past: past_key_0, past_value_0, ... [1, Hkv, P, Dh] (decode only)."""
        T = input_ids.shape[1]
        P = past[0].shape[2] if past else 0
        pos = torch.arange(P, P + T)                         # query positions
        angles = pos.float()[:, None] * self.inv_freq[None, :]               # [T, Dh/2]
        cos = torch.cat([angles.cos(), angles.cos()], dim=-1)                # [T, Dh]
        sin = torch.cat([angles.sin(), angles.sin()], dim=-1)
        key_pos = torch.arange(0, P + T)
        mask = torch.where(key_pos[None, :] > pos[:, None], self.neg_inf, self.zero)  # [T, P + T]
        h = self.embed_tokens(input_ids)                     # [1, T, D]
        present = []
        for i, layer in enumerate(self.layers):
            pk, pv = (past[2 * i], past[2 * i + 1]) if past else (None, None)
            h, k, v = layer(h, cos, sin, mask, pk, pv)
            present += [k, v]
        logits = nn.functional.linear(self.norm(h), self.embed_tokens.weight)  # tied: [1, T, V]
        return (logits, *present)


def build_model(c, seed, init):
    model = MiniMind(c).eval()
    state = {}
    for name, shape in tensor_table(c):
        key = name[len("model."):] if name.startswith("model.") else name
        state[key] = torch.from_numpy(init_tensor_fast(name, shape, seed, init))
    model.load_state_dict(state, strict=True)
    return model


# ----------------------------------------------------------------------------- export
def export(model, c, path, decode):
    L, Hkv, Dh = c["L"], c["Hkv"], c["Dh"]
    names_past = [f"past_{kind}_{i}" for i in range(L) for kind in ("key", "value")]
    names_present = [f"present_{kind}_{i}" for i in range(L) for kind in ("key", "value")]
    if decode:
        args = (torch.tensor([[5]]), *[torch.zeros(1, Hkv, 7, Dh) for _ in names_past])
        inputs = ["input_ids"] + names_past
        axes = {n: {2: "P"} for n in names_past}
        axes.update({n: {2: "P_plus_1"} for n in names_present})
    else:
        args = (torch.tensor([[3, 4, 5, 6, 7]]),)
        inputs = ["input_ids"]
        axes = {"input_ids": {1: "T"}, "logits": {1: "T"}}
        axes.update({n: {2: "T"} for n in names_present})
    with torch.no_grad():
        torch.onnx.export(model, args, path, input_names=inputs, output_names=["logits"] + names_present,
                          dynamic_axes=axes, opset_version=OPSET, do_constant_folding=True)


def _varint(buf, i):
    value = shift = 0
    while True:
        byte = buf[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i


def _fields(buf):
    """(field number, value) of one protobuf message; length-delimited values as memoryviews."""
    i = 0
    while i < len(buf):
        key, i = _varint(buf, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(buf, i)
        elif wire == 1:
            value, i = buf[i:i + 8], i + 8
        elif wire == 2:
            n, i = _varint(buf, i)
            value, i = buf[i:i + n], i + n
        elif wire == 5:
            value, i = buf[i:i + 4], i + 4
        else:
            raise ValueError(f"unexpected protobuf wire type {wire}")
        yield number, value


def op_counts(path):
    """Operator histogram of an ONNX file: ModelProto.graph (7) -> GraphProto.node (1) ->
    NodeProto.op_type (4). A few lines of protobuf instead of a dependency on the onnx package."""
    with open(path, "rb") as f:
        data = memoryview(f.read())
    counts = collections.Counter()
    for number, graph in _fields(data):
        if number != 7:
            continue
        for field, node in _fields(graph):
            if field == 1:
                counts.update(bytes(v).decode() for n, v in _fields(node) if n == 4)
    return dict(sorted(counts.items()))


def make_preset(c, seed, init):
    model = build_model(c, seed, init)
    files = {}
    for kind in ("prefill", "decode"):
        path = os.path.join(MODELS_DIR, f"{c['name']}.{kind}.onnx")
        export(model, c, path, decode=kind == "decode")
        ops = op_counts(path)
        if "ScatterND" in ops:
            sys.exit(f"make_onnx.py: {path} contains ScatterND: the mask must be built out of place")
        files[kind] = {"file": os.path.basename(path), "bytes": os.path.getsize(path), "ops": ops}
        print(f"  {os.path.basename(path)}: {os.path.getsize(path) / 2**20:.1f} MiB, "
              f"{sum(ops.values())} nodes, no ScatterND")
    manifest = {"generator_version": GENERATOR_VERSION, "opset": OPSET, "seed": seed, "init": init,
                "torch": torch.__version__, "preset": c["name"],
                "config": {k: c[k] for k in ("gen", "D", "L", "H", "Hkv", "Dh", "F", "V", "eps", "theta")},
                "graphs": files}
    with open(os.path.join(MODELS_DIR, f"{c['name']}.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--preset", action="append", choices=sorted(PRESETS),
                        help="preset to export (repeatable; default: all)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="weight seed (default 0)")
    parser.add_argument("--init", choices=("minimind", "playground"), default="minimind",
                        help="the seeded embedding's scale (default minimind: U(±1/sqrt(D)))")
    args = parser.parse_args()
    torch.set_num_threads(1)
    os.makedirs(MODELS_DIR, exist_ok=True)
    check_init_fast(args.seed, args.init)
    print("make_onnx.py: vectorised init matches tests/make_fixtures.py's init_tensor")
    for name in args.preset or PRESETS:
        print(f"make_onnx.py: {name} (seed {args.seed}, init {args.init}, opset {OPSET})")
        make_preset(PRESETS[name], args.seed, args.init)


if __name__ == "__main__":
    main()
