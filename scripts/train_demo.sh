#!/usr/bin/env bash
# npm run train:demo: regenerates the project's corpus and retrains the demo
# MiniMind natively, bit for bit from the seeds, then measures its heads and
# writes its model card. Output: models/minimind-demo/ (config.json,
# model.safetensors F16, tokenizer files, heads.json, train_log.jsonl,
# loss_curve.svg, MODEL_CARD.md). Scratch files go to build/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
out=models/minimind-demo
work=build/demo
mkdir -p "$out" "$work"

echo "== corpus (js/corpus.mjs, seed 1)"
node scripts/make_corpus.mjs --seed 1 --lines 200000 --pack 56 --out "$work/corpus.jsonl"

echo "== native trainer"
bash scripts/build.sh native minimind-train

echo "== training (MiniMind's recipe, one epoch)"
cp scripts/demo_config.json "$work/config.json"
start=$(date +%s)
build/native/core/minimind-train --config "$work/config.json" --data "$work/corpus.jsonl" \
  --tokenizer models/minimind-tokenizer/tokenizer.json --out "$work/model" \
  --max-seq-len 64 --batch-size 32 --accumulation-steps 1 --lr 1e-3 --grad-clip 1.0 \
  --epochs 1 --seed 42 --dtype float16 --log "$work/train_log.jsonl" 2> "$work/train.stderr"
seconds=$(( $(date +%s) - start ))
tail -n 1 "$work/train.stderr"

cp "$work/model/config.json" "$work/model/model.safetensors" "$out/"
cp models/minimind-tokenizer/tokenizer.json models/minimind-tokenizer/tokenizer_config.json "$out/"
cp "$work/train_log.jsonl" "$out/train_log.jsonl"

echo "== head roles and model card"
node js/cli.mjs heads --model "$out" --json > "$out/heads.json"
node scripts/model_card.mjs --model "$out" --seconds "$seconds" --cpu "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
du -ch "$out"/* | tail -n 1
