#!/usr/bin/env python3
"""MoE training-gradient fixtures: the gradient of MiniMind's pretraining loss (the language-model
cross-entropy alone, no aux_loss) for every parameter of a MoE model, by PyTorch's autograd through
make_fixtures.py's forward: the router softmax, torch.topk's values (the routing as the forward
chose it), the renormalisation w / (Σw + 1e-20) when norm_topk_prob, the experts and the
generation-2 shared experts.

Writes tests/fixtures/train/<case>/ for each case below, train_format_version 1 (the files of the
dense training cases, without the recipe runs: training a MoE is refused because MiniMind adds
aux_loss when it trains one):
  config.json, model.safetensors (float32 initial weights), data.json (the 20 samples),
  gradients.safetensors (loss, tokens and grad.<name> for the batch of the first 4 samples).
Run from the repository root (make_fixtures.py runs it too):
    /usr/bin/python3 tests/moe_backward_reference.py
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_fixtures as mf  # noqa: E402  the forward, the training data and the writers

GENERATOR = "tests/moe_backward_reference.py"
# Top-2 in both, so that the router's gradient is not ~0 (a renormalised top-1 weight is 1).
# Seeds picked by scanning for the first that passes checked_routing.
MOE_TRAIN_CASES = [
    dict(mf.TRAIN_BASE, name="gen3_moe_top2", seed=312, gen=3, H=4, Hkv=2, Dh=8, eps=1e-6,
         moe=dict(E=4, top_k=2, F=48, shared=0, norm=True)),
    # generation 2 routed experts have intermediate_size (64); norm_topk_prob off
    dict(mf.TRAIN_BASE, name="gen2_moe_shared", seed=312, gen=2, H=4, Hkv=2, Dh=8, eps=1e-5,
         moe=dict(E=4, top_k=2, F=64, shared=1, norm=False)),
]
# Float32 sums in another order (C++) must choose the same experts: the k-th and (k+1)-th
# router probabilities of every token in every layer differ by at least this much.
MIN_ROUTING_MARGIN = 1e-4


def checked_routing(c, weights, rope, input_ids):
    """Runs the forward recording every layer's router probabilities; asserts that the top-k is
    decisive (MIN_ROUTING_MARGIN) and that every expert of every layer gets a token."""
    seen = []
    plain_ffn = mf.ffn

    def recording_ffn(b, lw, cc):
        out, probs = plain_ffn(b, lw, cc)
        seen.append(probs.detach().reshape(-1, probs.shape[-1]))
        return out, probs

    mf.ffn = recording_ffn
    try:
        with torch.no_grad():
            mf.forward(weights, c, rope, input_ids)
    finally:
        mf.ffn = plain_ffn
    k = c["moe"]["top_k"]
    for layer, probs in enumerate(seen):
        top = torch.topk(probs, k=k + 1, dim=-1)
        margin = float((top.values[:, k - 1] - top.values[:, k]).min())
        assert margin >= MIN_ROUTING_MARGIN, (c["name"], layer, margin)
        used = set(top.indices[:, :k].flatten().tolist())
        assert used == set(range(c["moe"]["E"])), (c["name"], layer, used)


def make_case(c):
    gen = torch.Generator().manual_seed(c["seed"])
    init = mf.train_init_weights(c, gen)
    seqs = mf.train_sequences(c, gen)
    rope = mf.rope_table(c["Dh"], c["theta"], c["yarn"])
    version = {"train_format_version": mf.TRAIN_FORMAT_VERSION}
    out = os.path.join(mf.TRAIN_DIR, c["name"])
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(mf.hf_config(c), f, indent=2)
        f.write("\n")
    mf.write_safetensors(os.path.join(out, "model.safetensors"),
                         {n: ("F32", w) for n, w in init.items()}, {"format": "pt"})
    mf.write_json_lines(os.path.join(out, "data.json"),
                        dict(version, max_seq_len=mf.TRAIN_MAX_SEQ_LEN, bos_id=mf.BOS_ID,
                             eos_id=mf.EOS_ID, pad_id=mf.PAD_ID), "sequences", seqs)

    input_ids, labels = mf.pad_batch(seqs[:mf.TRAIN_GRAD_BATCH])    # [4, 12]
    checked_routing(c, init, rope, input_ids)
    params = {n: w.clone().requires_grad_(True) for n, w in init.items()}
    loss = mf.pretrain_loss(params, c, rope, input_ids, labels)     # no aux_loss
    loss.backward()                                  # tied: embedding + lm_head grads summed
    grads = {"loss": ("F32", loss.detach().reshape(1)),
             "tokens": ("F32", torch.tensor([float(mf.label_tokens(labels))]))}
    for name, p in params.items():
        grads["grad." + name] = ("F32", p.grad)
    meta = {"format": "pt", "train_format_version": str(mf.TRAIN_FORMAT_VERSION),
            "generator": GENERATOR, "case": c["name"], "batch_size": str(mf.TRAIN_GRAD_BATCH)}
    mf.write_safetensors(os.path.join(out, "gradients.safetensors"), grads, meta)
    print(f"  {c['name']}: batch-of-{mf.TRAIN_GRAD_BATCH} loss {float(loss):.4f}")


def main():
    torch.set_num_threads(1)                         # same summation order on every run
    for c in MOE_TRAIN_CASES:
        make_case(c)


if __name__ == "__main__":
    main()
