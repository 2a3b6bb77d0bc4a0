#!/usr/bin/env python3
"""MiniMind's resume checkpoint (trainer_utils.lm_checkpoint's <weight>_<hidden>_resume.pth),
both ways, with PyTorch as the judge. The model and the loop are make_fixtures.py's reference
(RefCausalLM for names and parameter order, pretrain_loss, train_pretrain.py's loop).

  write
      tests/fixtures/resume/ (own "resume_format_version"): train case gen3_r2_tied after
      RESUME_AFTER batches of recipe b (file order), saved as lm_checkpoint saves it
      (pretrain_32_resume.pth: the {k: v.half()} state dict, AdamW's state_dict(), epoch, step,
      world_size, wandb_id, scaler), then resumed as train_pretrain.py --from_resume 1 resumes:
      load_state_dict of the half-precision weights into float32 parameters, AdamW's
      load_state_dict, the remaining batches of the epoch and the next. Writes
        pretrain_32_resume.pth   the checkpoint
        expected.safetensors     exp_avg.<name>, exp_avg_sq.<name>: AdamW's state as loaded;
                                 final.<name>: the weights after the resumed run
        resume.json              the resumed batches (epoch, batch, loss, lr, optimizer_step)
      The page reads the checkpoint and must continue to the same losses and weights
      (tests/node/train_resume.test.mjs).

  check FILE.pth EXPECTED.json
      Loads a checkpoint the page wrote (js/resume_pth.mjs) as train_pretrain.py does: torch.load
      (as lm_checkpoint calls it), model.load_state_dict(strict=True),
      optim.AdamW(model.parameters()).load_state_dict, GradScaler.load_state_dict; then checks,
      against EXPECTED.json ({"config": config.json, "epoch", "step", "optimizer_steps",
      "parameters": {name: {"exp_avg": [...], "exp_avg_sq": [...]}}}, written by the Node test),
      every moment bit for bit, the step count, epoch and step, and that one AdamW step runs.
      Prints "ok" and exits 0, or raises.

Re-run `write` from the repository root (deterministic, byte-identical output):
    /usr/bin/python3 tests/resume_reference.py write
Bump RESUME_FORMAT_VERSION when the layout of the files changes.
"""
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_fixtures as mf  # noqa: E402  (the reference model and loop)

RESUME_FORMAT_VERSION = 1
RESUME_DIR = os.path.join(mf.FIXTURES_DIR, "resume")
RESUME_CASE = "gen3_r2_tied"
RESUME_RECIPE = "b"        # accumulation 3: optimizer steps after batches 3, 6, 9 and 10 of each epoch
RESUME_AFTER = 6           # saved after an optimizer step, as MiniMind saves (no gradient is kept)


def train_batches(model, optimizer, r, seqs, rope, c, start_epoch, start_step, last=None):
    """train_pretrain.py's loop from (start_epoch, batch start_step + 1) on; stops after `last`
    batches in all when given. Returns the batch records."""
    params = list(model.parameters())
    bs, acc, epochs = r["batch_size"], r["accumulation_steps"], r["epochs"]
    iters = math.ceil(len(seqs) / bs)
    batches = []
    for epoch in range(start_epoch, epochs):
        first = start_step + 1 if epoch == start_epoch else 1     # SkipBatchSampler's skip
        for step in range(first, iters + 1):
            if last is not None and len(batches) == last:
                return batches
            input_ids, labels = mf.pad_batch(seqs[(step - 1) * bs: step * bs])
            lr = mf.get_lr(epoch * iters + step, epochs * iters, r["learning_rate"])
            for group in optimizer.param_groups:
                group["lr"] = lr
            loss = mf.pretrain_loss(dict(model.named_parameters()), c, rope, input_ids, labels)
            (loss / acc).backward()
            stepped = step % acc == 0 or step == iters
            if stepped:
                torch.nn.utils.clip_grad_norm_(params, r["grad_clip"])
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
            batches.append({"epoch": epoch, "batch": step, "loss": loss.item(), "lr": lr,
                            "optimizer_step": stepped})
    return batches


def load_checkpoint(path):
    """torch.load exactly as lm_checkpoint calls it (its weights_only is this torch's default:
    off in 1.13, on from 2.6)."""
    return torch.load(path, map_location="cpu")


def write():
    torch.set_num_threads(1)
    c = next(x for x in mf.TRAIN_CASES if x["name"] == RESUME_CASE)
    r = next(x for x in mf.RECIPES if x["name"] == RESUME_RECIPE)
    gen = torch.Generator().manual_seed(c["seed"])
    init = mf.train_init_weights(c, gen)
    seqs = mf.train_sequences(c, gen)
    rope = mf.rope_table(c["Dh"], c["theta"], c["yarn"])

    model = mf.build_ref_model(c, init)
    optimizer = torch.optim.AdamW(list(model.parameters()), lr=r["learning_rate"])
    done = train_batches(model, optimizer, r, seqs, rope, c, 0, 0, last=RESUME_AFTER)
    assert done[-1]["optimizer_step"] and len(done) == RESUME_AFTER

    os.makedirs(RESUME_DIR, exist_ok=True)
    path = os.path.join(RESUME_DIR, f"pretrain_{c['D']}_resume.pth")
    scaler = torch.cuda.amp.GradScaler(enabled=False)   # CPU / bfloat16: off, state {}
    resume = {"model": {k: v.half().cpu() for k, v in model.state_dict().items()},
              "optimizer": optimizer.state_dict(), "epoch": 0, "step": RESUME_AFTER,
              "world_size": 1, "wandb_id": None, "scaler": scaler.state_dict()}
    torch.save(resume, path)

    # train_pretrain.py --from_resume 1: a fresh model and optimizer, both loaded, then the rest.
    ckp = load_checkpoint(path)
    resumed = mf.RefCausalLM(c)
    resumed.load_state_dict(ckp["model"])
    optimizer = torch.optim.AdamW(list(resumed.parameters()), lr=r["learning_rate"])
    optimizer.load_state_dict(ckp["optimizer"])
    scaler.load_state_dict(ckp["scaler"])
    tensors = {}
    for name, p in resumed.named_parameters():
        state = optimizer.state[p]
        tensors["exp_avg." + name] = ("F32", state["exp_avg"].clone())   # the loop below changes them in place
        tensors["exp_avg_sq." + name] = ("F32", state["exp_avg_sq"].clone())
    rest = train_batches(resumed, optimizer, r, seqs, rope, c, ckp["epoch"], ckp["step"])
    for name, p in resumed.named_parameters():
        tensors["final." + name] = ("F32", p.detach())
    meta = {"format": "pt", "resume_format_version": str(RESUME_FORMAT_VERSION),
            "generator": "tests/resume_reference.py", "case": c["name"]}
    mf.write_safetensors(os.path.join(RESUME_DIR, "expected.safetensors"), tensors, meta)
    head = {"resume_format_version": RESUME_FORMAT_VERSION, "case": c["name"],
            "recipe": {k: r[k] for k in ("name", "batch_size", "accumulation_steps", "epochs",
                                         "learning_rate", "grad_clip")},
            "order": "file", "resumed_after": RESUME_AFTER, "checkpoint": os.path.basename(path)}
    mf.write_json_lines(os.path.join(RESUME_DIR, "resume.json"), head, "batches", rest)
    print(f"  {c['name']} recipe {r['name']}: saved after {RESUME_AFTER} batches, resumed for "
          f"{len(rest)}: loss {rest[0]['loss']:.4f} -> {rest[-1]['loss']:.4f}")


def case_of(config, state):
    """make_fixtures' case dict for RefCausalLM from config.json and the state dict's shapes."""
    D, H = config["hidden_size"], config["num_attention_heads"]
    q = state["model.layers.0.self_attn.q_proj.weight"]
    norm = state.get("model.layers.0.self_attn.q_norm.weight")
    Dh = norm.shape[0] if norm is not None else config.get("head_dim", D // H)
    return dict(D=D, L=config["num_hidden_layers"], V=config["vocab_size"], H=q.shape[0] // Dh,
                Hkv=state["model.layers.0.self_attn.k_proj.weight"].shape[0] // Dh, Dh=Dh,
                F=state["model.layers.0.mlp.gate_proj.weight"].shape[0],
                gen=3 if norm is not None else 2,
                tied=config.get("tie_word_embeddings", True))


def check(path, expected_path):
    with open(expected_path) as f:
        expected = json.load(f)
    ckp = load_checkpoint(path)
    assert set(ckp) >= {"model", "optimizer", "epoch", "step", "world_size", "wandb_id", "scaler"}, set(ckp)
    assert ckp["epoch"] == expected["epoch"] and ckp["step"] == expected["step"], (ckp["epoch"], ckp["step"])
    assert ckp["world_size"] == 1 and ckp["wandb_id"] is None
    c = case_of(expected["config"], ckp["model"])
    model = mf.RefCausalLM(c)
    model.load_state_dict(ckp["model"], strict=True)             # train_pretrain.py: model.load_state_dict
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    optimizer.load_state_dict(ckp["optimizer"])
    torch.cuda.amp.GradScaler(enabled=False).load_state_dict(ckp["scaler"])
    names = [n for n, _ in model.named_parameters()]
    assert sorted(names) == sorted(expected["parameters"]), (names, sorted(expected["parameters"]))
    for name, p in model.named_parameters():
        state = optimizer.state[p]
        assert float(state["step"]) == expected["optimizer_steps"], (name, state["step"])
        for key in ("exp_avg", "exp_avg_sq"):
            want = torch.tensor(expected["parameters"][name][key], dtype=torch.float32).reshape(p.shape)
            assert state[key].dtype == torch.float32 and state[key].shape == p.shape, (name, key)
            assert torch.equal(state[key], want), (name, key, (state[key] - want).abs().max())
    group = optimizer.param_groups[0]
    assert group["betas"] == (0.9, 0.999) and group["eps"] == 1e-8 and group["weight_decay"] == 0.01
    # The optimizer goes on: one AdamW step from the loaded state.
    for p in model.parameters():
        p.grad = torch.ones_like(p)
    optimizer.step()
    print("ok")


if __name__ == "__main__":
    if sys.argv[1:2] == ["write"]:
        write()
    elif sys.argv[1:2] == ["check"] and len(sys.argv) == 4:
        check(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
