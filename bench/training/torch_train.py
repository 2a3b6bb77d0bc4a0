#!/usr/bin/env python3
"""MiniMind's pretraining loop in PyTorch on the CPU, one batch per request: the anchor that
bench/run.mjs times against our Wasm and native trainers, batch by batch, on the same model,
the same initial weights and the same data.

The model is the plain-PyTorch MiniMind of tests/make_fixtures.py (written from the spec:
RMSNorm, q/k norm in generation 3, rotate-half RoPE, GQA by repeat, causal mask, SwiGLU, tied
lm_head), its loss is MiniMindForCausalLM's (F.cross_entropy(logits[:, :-1], labels[:, 1:],
ignore_index=-100)), and the loop is trainer/train_pretrain.py's on the CPU (float32, no
autocast): get_lr's cosine, (loss / accumulation_steps).backward(), clip_grad_norm_,
torch.optim.AdamW with its defaults, zero_grad(set_to_none=True), samples in file order.

    /usr/bin/python3 bench/training/torch_train.py --config FILE --weights FILE --data FILE --seq T
        [--batch B] [--lr X] [--clip X] [--accumulation K]
    /usr/bin/python3 bench/training/torch_train.py --check     (the BLAS check below, then exit)

  --config   config.json (Hugging Face key names), a dense generation-3 model
  --weights  model.safetensors, float32 (the JS API's model.safetensors())
  --data     JSONL, one {"ids": [...]} per line (MiniMind's PretrainDataset: truncated to T,
             padded with id 0, labels -100 at padding)

Requests on stdin, one per line, one JSON line each on stdout:
  check   {"torch", "threads", "blas": [loaded BLAS libraries], "gflops"}: the BLAS check,
          a [2048x128]·[128x6400] float32 matmul (OpenBLAS ~70 GFLOP/s on one core of these
          machines, Debian's reference BLAS ~3.6)
  step    one batch: {"loss", "lr", "gradNorm", "tokens", "ms"}
  memory  {"maxRss"}: the process's peak resident set, bytes

Run it with one thread: bench/run.mjs sets OPENBLAS_NUM_THREADS=1 and LD_LIBRARY_PATH to an
OpenBLAS unpacked from Debian's libopenblas0-pthread; this script calls torch.set_num_threads(1).
"""
import argparse
import json
import math
import os
import resource
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests"))

try:
    import torch
except ImportError as error:
    sys.exit(f"torch_train.py: {error}: this script needs PyTorch "
             "(apt-get install python3-torch python3-numpy; run it with /usr/bin/python3)")

from make_fixtures import BASE, IGNORE_INDEX, PAD_ID, build_ref_model, get_lr, label_tokens, \
    pretrain_loss, read_safetensors_f32, rope_table, tensor_table  # noqa: E402


def model_config(cfg):
    """The fixture generator's config dict from config.json keys (dense, generation 3)."""
    if cfg.get("use_moe"):
        sys.exit("torch_train.py: MoE configs are not supported")
    D, H = cfg["hidden_size"], cfg["num_attention_heads"]
    return dict(BASE, name="bench", gen=3, D=D, L=cfg["num_hidden_layers"], H=H,
                Hkv=cfg.get("num_key_value_heads", H), Dh=cfg.get("head_dim", D // H),
                F=cfg["intermediate_size"], V=cfg["vocab_size"], eps=cfg.get("rms_norm_eps", 1e-6),
                theta=cfg.get("rope_theta", 1e6), tied=cfg.get("tie_word_embeddings", True))


def load_weights(c, path):
    """name -> float32 tensor with the tensor_table names (a tied file's lm_head copy dropped)."""
    state = read_safetensors_f32(path)
    if c["tied"] and "lm_head.weight" in state:
        if not torch.equal(state.pop("lm_head.weight"), state["model.embed_tokens.weight"]):
            sys.exit("torch_train.py: tied weights, but lm_head.weight differs from the embedding")
    names = [n for n, _ in tensor_table(c)]
    if sorted(state) != sorted(names):
        sys.exit(f"torch_train.py: the weights do not match the config: {sorted(set(state) ^ set(names))}")
    return state


def load_data(path, T):
    """(input_ids [n, T], labels [n, T]) int64, as PretrainDataset.__getitem__ makes them."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                ids = json.loads(line)["ids"][:T]
                rows.append(ids + [PAD_ID] * (T - len(ids)))
    input_ids = torch.tensor(rows, dtype=torch.int64)
    labels = input_ids.clone()
    labels[input_ids == PAD_ID] = IGNORE_INDEX
    return input_ids, labels


def loaded_blas():
    """The BLAS/LAPACK shared libraries mapped into this process (folder and file name)."""
    found = []
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1] if len(line.split()) >= 6 else ""
            name = os.path.basename(path)
            if ("blas" in name or "lapack" in name) and ".so" in name:
                short = os.path.join(os.path.basename(os.path.dirname(path)), name)
                if short not in found:
                    found.append(short)
    return found


def blas_check():
    a, b = torch.randn(2048, 128), torch.randn(128, 6400)
    for _ in range(3):
        a @ b
    times = []
    for _ in range(7):
        t = time.perf_counter()
        a @ b
        times.append(time.perf_counter() - t)
    return {"torch": torch.__version__, "threads": torch.get_num_threads(), "blas": loaded_blas(),
            "gflops": 2 * 2048 * 128 * 6400 / sorted(times)[len(times) // 2] / 1e9}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="print the BLAS check and exit")
    parser.add_argument("--config")
    parser.add_argument("--weights")
    parser.add_argument("--data")
    parser.add_argument("--seq", type=int)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=5e-4)
    parser.add_argument("--clip", type=float, default=1.0)
    parser.add_argument("--accumulation", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    if args.check:
        print(json.dumps(blas_check()), flush=True)
        return
    missing = [f"--{k}" for k in ("config", "weights", "data", "seq") if getattr(args, k) is None]
    if missing:
        parser.error(f"{', '.join(missing)} required (or --check)")

    with open(args.config, encoding="utf-8") as f:
        c = model_config(json.load(f))
    model = build_ref_model(c, load_weights(c, args.weights))
    rope = rope_table(c["Dh"], c["theta"], False, end=args.seq)
    input_ids, labels = load_data(args.data, args.seq)
    params = list(model.parameters())                    # tied embedding once
    optimizer = torch.optim.AdamW(params, lr=args.lr)    # betas, eps, weight decay: defaults
    bs, acc = args.batch, args.accumulation
    iters = math.ceil(len(input_ids) / bs)               # one epoch, file order
    step = 0
    print(f"torch_train.py: {len(input_ids)} samples ready", file=sys.stderr, flush=True)

    for line in sys.stdin:
        request = line.strip()
        if request == "check":
            answer = blas_check()
        elif request == "memory":
            answer = {"maxRss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}
        elif request == "step":
            if step == iters:
                answer = {"error": "training is done: every batch has run"}
            else:
                start = time.perf_counter()
                step += 1
                ids, lab = input_ids[(step - 1) * bs: step * bs], labels[(step - 1) * bs: step * bs]
                lr = get_lr(step, iters, args.lr)
                for group in optimizer.param_groups:
                    group["lr"] = lr
                loss = pretrain_loss(dict(model.named_parameters()), c, rope, ids, lab)
                (loss / acc).backward()
                grad_norm = None
                if step % acc == 0 or step == iters:
                    grad_norm = float(torch.nn.utils.clip_grad_norm_(params, args.clip))
                    optimizer.step()
                    optimizer.zero_grad(set_to_none=True)
                value = loss.item()
                ms = (time.perf_counter() - start) * 1000
                answer = {"loss": value, "lr": lr, "gradNorm": grad_norm, "tokens": label_tokens(lab), "ms": ms}
        else:
            answer = {"error": f"unknown request {request!r} (check, step, memory)"}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
