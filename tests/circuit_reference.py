#!/usr/bin/env python3
"""Circuit fixtures: every edge sender -> receiver of MiniMind's forward scored by edge attribution
patching (EAP) and checked by path patching, and the faithfulness of the top-N circuits.

MiniMind's forward (MINIMIND.md, the spec) written as components and receivers. Senders: `embed`
(embed_tokens[ids]), per block k `L{k}H{h}` (head h's z through its o_proj columns) and `L{k}ffn`
(the FFN's output). Receivers: per block l and head h `L{l}H{h}.q`, `.k`, `.v` (input_layernorm,
then head h's own q_proj rows or its kv head `h // R`'s k_proj / v_proj rows, q_norm / k_norm,
RoPE), `L{l}ffn` (post_attention_layernorm, the FFN; it reads block l's heads too) and `logits`
(the final norm, lm_head). Receiver r reads senders 0 .. n_r - 1 (every one before it). A run
computes each receiver's input with a function of the senders' outputs so far, so one forward
gives every quantity:
  - the clean run (input = Σ of the senders' outputs) with each input a separate tensor whose
    gradient autograd keeps: ∂metric/∂(receiver input), each receiver's own (EAP's gradient);
  - score(s, r) = Σ_t (corrupt output of s − clean output of s)[t] · that gradient[t];
  - patched(s, r): the clean run in which only r's input has s's corrupt output in place of its
    clean one (a separate forward per edge);
  - faithfulness of a set C: each receiver reads s's output of this run for (s, r) in C and s's
    corrupt output otherwise; share = (metric − corrupt) / (clean − corrupt).
Metric: logit(answer) − logit(wrong) at the last position. Everything in float64 on the case's
committed weights. The script asserts that the clean and corrupt runs give the logits of
make_fixtures.forward (the spec's forward), that the empty circuit gives the corrupt metric and
the full one the clean metric, and that every score matches a central finite difference of the
metric along the sender's corrupt − clean output (EAP is that directional derivative).

Writes tests/fixtures/<case>/circuit.json for the dense and the MoE cases, and circuit_ablate.json
for the ABLATED_CASES (the same with heads switched off: their z zero in every run) (format 1;
fields in tests/fixtures/README.md). Run from the repository root:
    /usr/bin/python3 tests/circuit_reference.py
"""
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import interp_reference as ir  # noqa: E402  the committed weights' reader and the case inputs
import make_fixtures as mf  # noqa: E402  the cases, the stage math (rmsnorm, rope, swiglu)

CIRCUIT_FORMAT = 1
GENERATOR = "tests/circuit_reference.py"
CASES = ["gen3_dense", "gen2_dense", "untied_theta1e4", "gen3_moe", "gen2_moe"]  # GQA gen 3, gen 2 (R = 4, F16),
# untied, MoE top-1 (gen 3) and top-2 renormalised + a shared expert (gen 2)
# circuit_ablate.json: these cases again with heads switched off ((layer, head) pairs).
ABLATED_CASES = [("gen3_dense", ((0, 1),))]
SIG_DIGITS = 9
FD_STEP = 1e-4


class Graph:
    """Sender and receiver names in forward order; receiver r reads senders 0 .. n[r] - 1."""

    def __init__(self, c):
        L, H = c["L"], c["H"]
        self.senders = ["embed"]
        for k in range(L):
            self.senders += [f"L{k}H{h}" for h in range(H)] + [f"L{k}ffn"]
        self.receivers, self.n = [], []
        for l in range(L):
            before = 1 + l * (H + 1)
            for h in range(H):
                for side in "qkv":
                    self.receivers.append(f"L{l}H{h}.{side}")
                    self.n.append(before)
            self.receivers.append(f"L{l}ffn")
            self.n.append(before + H)
        self.receivers.append("logits")
        self.n.append(len(self.senders))
        self.edges = [(s, r) for r in range(len(self.receivers)) for s in range(self.n[r])]


def load(c):
    w = ir.read_weights(os.path.join(mf.FIXTURES_DIR, c["name"], "model.safetensors"))
    w = {k: v.double() for k, v in w.items()}
    if c["tied"]:
        w["lm_head.weight"] = w["model.embed_tokens.weight"]
    return w


def run(w, c, ids, answer, wrong, read, ablate=()):
    """One forward; read(r, outs) gives receiver r's input [T, D] from the senders' outputs so far
    (outs: list of [T, D]). ablate: (layer, head) pairs switched off, their z zero (the receivers
    still read, nothing depends on it). Returns (metric, outs, inputs {r: tensor})."""
    L, H, Hkv, Dh, eps = c["L"], c["H"], c["Hkv"], c["Dh"], c["eps"]
    R, T = H // Hkv, len(ids)
    cos, sin = mf.rope_table(Dh, c["theta"], c["yarn"], end=T)
    cos, sin = cos.double(), sin.double()
    rope = lambda x: x * cos + mf.rotate_half(x) * sin  # noqa: E731  x: [T, Dh]
    causal = torch.full((T, T), float("-inf"), dtype=torch.float64).triu(1)
    outs = [w["model.embed_tokens.weight"][torch.tensor(ids)]]
    inputs = {}
    r = 0

    def receive(r):
        x = read(r, outs)
        inputs[r] = x
        return x

    for l in range(L):
        p = f"model.layers.{l}."
        ln = w[p + "input_layernorm.weight"]
        Wq, Wk, Wv = (w[p + f"self_attn.{n}_proj.weight"] for n in "qkv")
        Wo = w[p + "self_attn.o_proj.weight"]
        writes = []
        for h in range(H):
            j = h // R
            xq, xk, xv = receive(r), receive(r + 1), receive(r + 2)
            r += 3
            q = mf.rmsnorm(xq, ln, eps) @ Wq[h * Dh:(h + 1) * Dh].T       # [T, Dh]
            k = mf.rmsnorm(xk, ln, eps) @ Wk[j * Dh:(j + 1) * Dh].T
            v = mf.rmsnorm(xv, ln, eps) @ Wv[j * Dh:(j + 1) * Dh].T
            if c["gen"] == 3:
                q = mf.rmsnorm(q, w[p + "self_attn.q_norm.weight"], eps)
                k = mf.rmsnorm(k, w[p + "self_attn.k_norm.weight"], eps)
            q, k = rope(q), rope(k)
            probs = torch.softmax(q @ k.T / math.sqrt(Dh) + causal, dim=-1)  # [T, T]
            z = torch.zeros_like(v) if (l, h) in ablate else probs @ v           # [T, Dh]
            writes.append(z @ Wo[:, h * Dh:(h + 1) * Dh].T)                     # [T, D]
        outs += writes
        xf = receive(r)
        r += 1
        b = mf.rmsnorm(xf, w[p + "post_attention_layernorm.weight"], eps)
        # The spec's FFN (make_fixtures.ffn): SwiGLU, or the MoE (router softmax, top-k, the
        # renormalisation, the experts); autograd differentiates torch.topk's values, so the
        # gradient runs with the routing of this run held fixed.
        layer = {k[len(p):]: v for k, v in w.items() if k.startswith(p)}
        outs.append(mf.ffn(b[None], layer, c)[0][0])
    x = receive(r)
    normed = mf.rmsnorm(x[-1], w["model.norm.weight"], eps)
    lm = w["lm_head.weight"]
    return normed @ lm[answer] - normed @ lm[wrong], outs, inputs


def plain(graph):
    return lambda r, outs: sum(outs[:graph.n[r]])


def circuit_case(c, ablate=()):
    graph = Graph(c)
    w = load(c)
    clean, corrupt = ir.choose_inputs(c)
    T = len(clean)

    # answer: the clean run's top next token; wrong: the corrupt run's, other than answer
    # (interp_reference's choice), checked against the spec's forward.
    w32 = {k: v.float() for k, v in w.items()}
    rope32 = mf.rope_table(c["Dh"], c["theta"], c["yarn"])
    logits_clean = mf.forward(w32, c, rope32, torch.tensor([clean]))[0][0]
    logits_corrupt = mf.forward(w32, c, rope32, torch.tensor([corrupt]))[0][0]
    answer = int(torch.argmax(logits_clean[-1]))
    other = logits_corrupt[-1].clone()
    other[answer] = float("-inf")
    wrong = int(torch.argmax(other))

    corrupt_metric, corrupt_outs, _ = run(w, c, corrupt, answer, wrong, plain(graph), ablate)
    wg = {k: v.clone().requires_grad_(False) for k, v in w.items()}

    def keep_grad(r, outs):
        x = sum(outs[:graph.n[r]])
        x.retain_grad()
        return x

    wg["model.embed_tokens.weight"] = w["model.embed_tokens.weight"].clone().requires_grad_(True)
    if c["tied"]:
        wg["lm_head.weight"] = wg["model.embed_tokens.weight"]
    clean_metric, clean_outs, inputs = run(wg, c, clean, answer, wrong, keep_grad, ablate)
    clean_metric.backward()
    for m, logits in ((clean_metric, logits_clean), (corrupt_metric, logits_corrupt)):
        # the spec's forward has no switch: only the runs with every head on compare with it
        assert ablate or abs(float(m) - float(logits[-1, answer] - logits[-1, wrong])) < 1e-4, c["name"]
    clean_outs = [o.detach() for o in clean_outs]
    # A switched-off head's q, k, v inputs reach nothing: no gradient (None), i.e. zero.
    grads = {r: torch.zeros_like(x) if x.grad is None else x.grad for r, x in inputs.items()}
    clean_metric = float(clean_metric)
    corrupt_metric = float(corrupt_metric)

    edges = []
    for s, r in graph.edges:
        delta = corrupt_outs[s] - clean_outs[s]                            # [T, D]
        positions = (delta * grads[r]).sum(-1)                              # [T]

        def swapped(rr, outs, s=s, r=r):
            x = sum(outs[:graph.n[rr]])
            return x - outs[s] + corrupt_outs[s] if rr == r else x

        patched = float(run(w, c, clean, answer, wrong, swapped, ablate)[0])
        edges.append({"from": graph.senders[s], "to": graph.receivers[r], "score": float(positions.sum()),
                      "patched": patched, "positions": positions.tolist()})
        check_gradient(w, c, clean, answer, wrong, graph, s, r, delta, edges[-1]["score"], ablate)

    def faithful(ranking, n):
        chosen = set(ranking[:n])

        def read(r, outs):
            return sum(outs[s] if (s, r) in chosen else corrupt_outs[s] for s in range(graph.n[r]))

        metric = float(run(w, c, clean, answer, wrong, read, ablate)[0])
        share = None if clean_metric == corrupt_metric else (metric - corrupt_metric) / (clean_metric - corrupt_metric)
        return {"edges": n, "metric": metric, "share": share}

    order = list(range(len(edges)))
    by_score = sorted(order, key=lambda e: -abs(edges[e]["score"]))        # stable: ties in edge order
    by_patched = sorted(order, key=lambda e: -abs(edges[e]["patched"] - clean_metric))
    sizes = faithfulness_sizes(len(edges))
    curves = {}
    for name, ranking in (("faithfulness", by_score), ("faithfulness_patched", by_patched)):
        curves[name] = [faithful([graph.edges[e] for e in ranking], n) for n in sizes]
        assert abs(curves[name][0]["metric"] - corrupt_metric) < 1e-9, c["name"]
        assert abs(curves[name][-1]["metric"] - clean_metric) < 1e-9, c["name"]
    extra = {"ablate": [list(p) for p in ablate]} if ablate else {}
    return {"format": CIRCUIT_FORMAT, "generator": GENERATOR, "case": c["name"], **extra, "clean": clean,
            "corrupt": corrupt, "answer": answer, "wrong": wrong,
            "metric": {"clean": clean_metric, "corrupt": corrupt_metric},
            "senders": graph.senders, "receivers": graph.receivers, **curves, "edges": edges}


def check_gradient(w, c, clean, answer, wrong, graph, s, r, delta, score, ablate=()):
    """EAP's score is the metric's derivative along delta at receiver r's input: compare with a
    central finite difference (float64)."""
    def shifted(eps):
        def read(rr, outs):
            x = sum(outs[:graph.n[rr]])
            return x + eps * delta if rr == r else x
        return float(run(w, c, clean, answer, wrong, read, ablate)[0])

    fd = (shifted(FD_STEP) - shifted(-FD_STEP)) / (2 * FD_STEP)
    assert abs(fd - score) <= 1e-6 * max(1.0, abs(score)), (c["name"], s, r, fd, score)


def faithfulness_sizes(edges):
    """0, 1, 2, 5, 10, 20, 50, … below `edges`, then `edges`."""
    sizes, decade = [0], 1
    while True:
        for m in (1, 2, 5):
            if m * decade >= edges:
                return sizes + [edges]
            sizes.append(m * decade)
        decade *= 10


def rounded(x):
    if isinstance(x, float):
        return float(f"{x:.{SIG_DIGITS}g}")
    if isinstance(x, list):
        return [rounded(v) for v in x]
    if isinstance(x, dict):
        return {k: rounded(v) for k, v in x.items()}
    return x


def dumps(doc):
    """JSON with one edge per line, so a diff shows which edge changed."""
    head = {k: v for k, v in doc.items() if k != "edges"}
    body = ",\n".join("  " + json.dumps(e, separators=(",", ":")) for e in doc["edges"])
    return json.dumps(head, separators=(", ", ": "))[:-1] + ',\n "edges": [\n' + body + "\n ]}\n"


def main():
    torch.set_num_threads(1)
    cases = {c["name"]: c for c in mf.CASES}
    for name in CASES:
        doc = rounded(circuit_case(cases[name]))
        with open(os.path.join(mf.FIXTURES_DIR, name, "circuit.json"), "w") as f:
            f.write(dumps(doc))
        print(f"  {name}: {len(doc['edges'])} edges, metric clean {doc['metric']['clean']:.4f} "
              f"corrupt {doc['metric']['corrupt']:.4f}")
    # The same case with heads switched off (answer and wrong still the unablated model's).
    for name, ablate in ABLATED_CASES:
        doc = rounded(circuit_case(cases[name], ablate))
        with open(os.path.join(mf.FIXTURES_DIR, name, "circuit_ablate.json"), "w") as f:
            f.write(dumps(doc))
        print(f"  {name} ablate {ablate}: metric clean {doc['metric']['clean']:.4f} "
              f"corrupt {doc['metric']['corrupt']:.4f}")
    print("wrote circuit.json for", ", ".join(CASES), "and circuit_ablate.json for",
          ", ".join(name for name, _ in ABLATED_CASES))


if __name__ == "__main__":
    main()
