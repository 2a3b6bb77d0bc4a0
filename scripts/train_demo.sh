#!/usr/bin/env bash
# npm run train:demo: regenerates the project's corpus and retrains the demo
# MiniMind natively, bit for bit from the seeds, then measures its heads and
# writes its model card. Output: models/minimind-demo/ (config.json,
# model.safetensors F16, tokenizer files, heads.json, train_log.jsonl,
# corpus_stats.json, loss_curve.svg, MODEL_CARD.md). Scratch files go to build/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."

# For experiments: DEMO_OUT, DEMO_WORK, DEMO_LR, DEMO_BATCH, DEMO_CONFIG and
# DEMO_LINES change the output folder, the scratch folder, the learning rate,
# the batch size, the model config and the corpus size (defaults: the
# committed model's). The trainer uses every core up to 4 (DEMO_THREADS): the
# same bits on any count.
began=$(date +%s)
load_before=$(cut -d' ' -f1 /proc/loadavg)
bash scripts/setup.sh
out=${DEMO_OUT:-models/minimind-demo}
work=${DEMO_WORK:-build/demo}
lr=${DEMO_LR:-2e-3}
# 16 samples per batch: twice the optimizer steps of 32 for the same tokens,
# which sharpened the pronoun head on the lesson's swaps.
batch=${DEMO_BATCH:-16}
config=${DEMO_CONFIG:-scripts/demo_config.json}
lines=${DEMO_LINES:-450000}
threads=${DEMO_THREADS:-$(( $(nproc) < 4 ? $(nproc) : 4 ))}
mkdir -p "$out" "$work"

echo "== corpus (js/corpus.mjs, seed 1)"
node scripts/make_corpus.mjs --seed 1 --lines "$lines" --pack-tokens --out "$work/corpus.jsonl" --stats "$work/corpus_stats.json"

echo "== native trainer"
bash scripts/build.sh native minimind-train

echo "== training (MiniMind's recipe, one epoch, $threads threads)"
cp "$config" "$work/config.json"
build/native/core/minimind-train --config "$work/config.json" --data "$work/corpus.jsonl" \
  --tokenizer models/minimind-tokenizer/tokenizer.json --out "$work/model" \
  --max-seq-len 64 --batch-size "$batch" --accumulation-steps 1 --lr "$lr" --grad-clip 1.0 \
  --epochs 1 --seed 42 --dtype float16 --threads "$threads" --log "$work/train_log.jsonl" 2> "$work/train.stderr"
tail -n 1 "$work/train.stderr"

cp "$work/model/config.json" "$work/model/model.safetensors" "$out/"
cp models/minimind-tokenizer/tokenizer.json models/minimind-tokenizer/tokenizer_config.json "$out/"
cp "$work/train_log.jsonl" "$work/corpus_stats.json" "$out/"

echo "== head roles and model card"
node js/cli.mjs heads --model "$out" --json > "$out/heads.json"
# The whole run (corpus, build, training, head roles) and the load around it.
seconds=$(( $(date +%s) - began ))
node scripts/model_card.mjs --model "$out" --seconds "$seconds" --threads "$threads" --batch-size "$batch" --load "$load_before, $(cut -d' ' -f1 /proc/loadavg)" --cpu "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
du -ch "$out"/* | tail -n 1
