#!/usr/bin/env node
// minimind: the playground's model from the command line, on the Wasm module.
// Run `minimind help` for the commands.
import { appendFile, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { chatPrompt } from './chat_template.mjs';
import { CIRCUIT_OPTIONS, CIRCUIT_USAGE, circuitCommands } from './circuit_cli.mjs';
import { INTERP_OPTIONS, INTERP_USAGE, interpCommands } from './interp_cli.mjs';
import { loadMiniMind } from './minimind.mjs';
import { defaultSnapshotEvery, timelineJson } from './timeline.mjs';
import { LESSON_PROBE } from './train_session.mjs';
import { topK } from './top_k.mjs';
import { tokenize } from './preset_tokens.mjs';

const USAGE = `usage: minimind <command> [options]

commands:
  info      MODEL [--json]
            config, derived shapes, parameter count
  run       MODEL (--ids 1,2,3 | --text "...") [--no-bos] [--ablate L:H,...] [--json]
            tokens, attention weights of every layer and head, logits
  generate  MODEL (--ids ... | --text "...") [--chat [--thinking]] [--max-new-tokens N]
            [--greedy | --temperature T --top-k K --top-p P
            --repetition-penalty R --sample-seed S] [--json]
  heads     MODEL [--count 500] [--probe-seed 7] [--json]
            what each head does, measured on fresh probes: previous-token,
            induction, pronoun (referent) scores, entropy, first-token mass, and
            the referent accuracy with the best pronoun head on and switched off;
            --probe-seed draws the probe sentences and sequences
  lab       [--preset lab-a|lab-b] [--seed N]
            lesson 11's lab record, computed by the module
  train     MODEL --data FILE.jsonl|FILE.txt --out DIR [--epochs 1] [--batch-size 32]
            [--max-seq-len 340] [--lr 5e-4] [--accumulation-steps 8] [--grad-clip 1.0]
            [--seed 42] [--order shuffle|file] [--log FILE.jsonl] [--save-every N]
            [--dtype float32|float16] [--timeline FILE [--snapshot-every N] [--probe TEXT]]
            MiniMind's pretraining recipe (train_pretrain.py); writes config.json,
            model.safetensors and the tokenizer to DIR; progress on stderr;
            --timeline writes the run's timeline (JSON, see below)
  grad      MODEL --data FILE [--batch-size 32] [--max-seq-len 340] --out FILE.safetensors
            loss (JSON on stdout) and every parameter's gradient for the first batch
${INTERP_USAGE}
${CIRCUIT_USAGE}

MODEL is one of:
  --preset NAME [--seed N]   a preset with seeded random weights
  --model DIR                a MiniMind folder: config.json and model.safetensors
                             (F32, F16 or BF16), model.pth or pytorch_model.bin,
                             tokenizer.json and tokenizer_config.json
  --model FILE.pth [--config config.json]
                             a torch.save(state_dict) file, or MiniMind's
                             *_resume.pth (its "model" weights); without --config
                             the config is inferred from the tensor shapes and
                             stderr says which values were assumed. Each has a flag:
                             --heads N (attention heads, default 8; or --kv-heads N),
                             --rope-theta X (1e6), --eps X (rms_norm_eps: 1e-6, or
                             1e-5 without q/k norm), --max-position-embeddings N
                             (32768), --rope-scaling (YaRN on), MoE: --moe-top-k K
                             (1, or 2 without q/k norm), --norm-topk-prob true|false
--tokenizer FILE uses that tokenizer.json (a model folder's own is used by default).
With a tokenizer, --text is encoded by it, after MiniMind's bos token <|im_start|>
as MiniMind feeds a pretrained model (--no-bos leaves it out), and generate prints
the text. --ablate switches heads off (their output zeroed before o_proj). Without
one, --text is tokenized as the page tokenizes a preset's text: split on whitespace
(a text without any splits its CJK characters), each token's id 3 + FNV-1a(token)
mod (vocab_size - 3), the same ids as the page's (ids 0-2 are MiniMind's special tokens).
--chat renders the prompt with the model's chat template (tokenizer_config.json of
its folder, else MiniMind's: generation 3's as shipped, or MiniMind2's), as MiniMind's
eval_llm.py does for SFT models; --thinking opens generation 3's think block.
Warnings (unknown config.json keys, a tied lm_head that differs from the embedding)
go to stderr.
--threads N computes on N threads (the pthreads build; default min(4, ceil(cores/2)),
as ONNX Runtime Web chooses): the same numbers for any N.
--build simd|relaxed|scalar picks the instruction set (default auto: relaxed where
Node has relaxed SIMD, whose fused multiply-adds are not the same bits as the
others'; simd and relaxed take their pthreads twin with --threads N > 1). Every
command that succeeds ends by saying on stderr which build ran.

train and grad also take --config FILE (a config.json: a model with seeded random
weights, seeded by --seed) as MODEL. Their data is MiniMind's pretraining JSONL
({"text": ...} or {"ids": [...]} per line) or plain text (.txt: one sample per
non-empty line); texts are tokenized by --tokenizer, the model folder's
tokenizer.json, or MiniMind's tokenizer shipped with the package. --seed seeds
the random weights and the shuffled order of each epoch (the project's own
generator, not torch.randperm; --order file keeps the file's order).
train --timeline FILE writes the run's timeline, what the model is at batch 0,
every --snapshot-every N batches (default max(1, floor(batches / 100))) and after
the last batch: {"format", "version", "every", "probe", "layers", "heads",
"snapshots": [{"step", "tokens", "loss", "trainLoss", "icl", "heads": {"L0H1":
{"previousToken", "induction", "pronoun", "sink"}}, "composition": {"L1H2":
{"L0H1": share} | null}, "gaps", "T", "attention"}]}. tokens counts batch rows x
--max-seq-len; loss and icl are measured on fixed held-out sequences and the
head scores on fixed probes, both made with the tokenizer (the model's vocabulary
must hold their ids); attention is the --probe sentence's (default the lessons'
小明把苹果给了小红，她很开心), every layer and head, as half-float bits [L, H, T, T].`;

class UsageError extends Error {}

const BOS_ID = 1; // <|im_start|>, MiniMind's bos

const OPTIONS = {
  threads: { type: 'string' },
  build: { type: 'string' },
  preset: { type: 'string' },
  seed: { type: 'string' },
  model: { type: 'string' },
  ids: { type: 'string' },
  text: { type: 'string' },
  json: { type: 'boolean' },
  'max-new-tokens': { type: 'string' },
  greedy: { type: 'boolean' },
  temperature: { type: 'string' },
  'top-k': { type: 'string' },
  'top-p': { type: 'string' },
  'repetition-penalty': { type: 'string' },
  'sample-seed': { type: 'string' },
  config: { type: 'string' },
  heads: { type: 'string' },
  'kv-heads': { type: 'string' },
  'moe-top-k': { type: 'string' },
  'rope-theta': { type: 'string' },
  eps: { type: 'string' },
  'max-position-embeddings': { type: 'string' },
  'rope-scaling': { type: 'boolean' },
  'norm-topk-prob': { type: 'string' },
  thinking: { type: 'boolean' },
  tokenizer: { type: 'string' },
  chat: { type: 'boolean' },
  'no-bos': { type: 'boolean' },
  ablate: { type: 'string' },
  count: { type: 'string' },
  'probe-seed': { type: 'string' },
  data: { type: 'string' },
  out: { type: 'string' },
  epochs: { type: 'string' },
  'batch-size': { type: 'string' },
  'max-seq-len': { type: 'string' },
  lr: { type: 'string' },
  'accumulation-steps': { type: 'string' },
  'grad-clip': { type: 'string' },
  order: { type: 'string' },
  log: { type: 'string' },
  'save-every': { type: 'string' },
  dtype: { type: 'string' },
  timeline: { type: 'string' },
  'snapshot-every': { type: 'string' },
  probe: { type: 'string' },
  ...INTERP_OPTIONS,
  ...CIRCUIT_OPTIONS,
  help: { type: 'boolean', short: 'h' },
};

function integerOption(values, name, fallback) {
  if (values[name] === undefined) return fallback;
  const text = values[name].trim();
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text)))
    throw new UsageError(`--${name} must be a non-negative integer, got "${values[name]}"`);
  return Number(text);
}

function numberOption(values, name) {
  if (values[name] === undefined) return undefined;
  const value = Number(values[name]);
  if (values[name].trim() === '' || !Number.isFinite(value)) throw new UsageError(`--${name} must be a number, got "${values[name]}"`);
  return value;
}

async function readInput(path, encoding) {
  try {
    return await readFile(path, encoding);
  } catch (error) {
    throw new Error(error.code === 'ENOENT' ? `no ${basename(path)} in ${dirname(path)}` : `cannot read ${path}: ${error.message}`, {
      cause: error,
    });
  }
}

async function exists(path) {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

function asBytes(buffer) {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

// What config inference cannot read off the tensors, one flag each
// (config.json key -> flag, hint name, parse).
const INFER_FLAGS = [
  ['num_attention_heads', 'heads', 'numAttentionHeads', 'integer'],
  ['num_key_value_heads', 'kv-heads', 'numKeyValueHeads', 'integer'],
  ['rope_theta', 'rope-theta', 'ropeTheta', 'number'],
  ['rms_norm_eps', 'eps', 'rmsNormEps', 'number'],
  ['max_position_embeddings', 'max-position-embeddings', 'maxPositionEmbeddings', 'integer'],
  ['inference_rope_scaling', 'rope-scaling', 'inferenceRopeScaling', 'boolean'],
  ['num_experts_per_tok', 'moe-top-k', 'numExpertsPerTok', 'integer'],
  ['norm_topk_prob', 'norm-topk-prob', 'normTopkProb', 'true|false'],
];

function inferHints(values) {
  const hints = {};
  for (const [, flag, hint, kind] of INFER_FLAGS) {
    if (values[flag] === undefined) continue;
    if (kind === 'integer') hints[hint] = positiveIntegerOption(values, flag);
    else if (kind === 'number') hints[hint] = positiveNumberOption(values, flag);
    else if (kind === 'boolean') hints[hint] = values[flag];
    else if (values[flag] === 'true' || values[flag] === 'false') hints[hint] = values[flag] === 'true';
    else throw new UsageError(`--${flag} must be true or false, got "${values[flag]}"`);
  }
  return hints;
}

function givenInferFlags(values) {
  return INFER_FLAGS.filter(([, flag]) => values[flag] !== undefined).map(([, flag]) => `--${flag}`);
}

// stderr lines: what the config inference read, what it assumed (with the
// flag that says otherwise), what the file is, and the load's warnings.
function reportLoad(info, file) {
  const say = (line) => console.error(`minimind: ${line}`);
  if (info.file) say(`note: ${info.file}`);
  if (info.inferred) {
    const { config, fields } = info.inferred;
    const value = (key) => String(config[key]);
    const flagOf = Object.fromEntries(INFER_FLAGS.map(([key, flag]) => [key, `--${flag}`]));
    // Generation-3 MoE experts use moe_intermediate_size: intermediate_size is unused.
    const matters = (key) => !(key === 'intermediate_size' && info.use_moe && info.generation === 3);
    const of = (source) => fields.filter((f) => f.source === source && matters(f.key));
    say(`note: no config.json: the config of ${file} is inferred from its tensors`);
    say(
      `  read from the tensors: ${of('inferred')
        .map((f) => `${f.key} ${value(f.key)}`)
        .join(', ')}`,
    );
    const given = of('hint');
    if (given.length) say(`  from your flags: ${given.map((f) => `${f.key} ${value(f.key)} (${flagOf[f.key]})`).join(', ')}`);
    const assumed = of('default');
    if (assumed.length) {
      const why = (key) =>
        key === 'num_attention_heads'
          ? `${flagOf[key]} N; head_dim and num_key_value_heads follow from it, or give --kv-heads N`
          : flagOf[key];
      say(`  assumed, MiniMind's defaults: ${assumed.map((f) => `${f.key} ${value(f.key)} (${why(f.key)})`).join(', ')}`);
    }
  }
  for (const warning of info.warnings) say(`warning: ${warning}`);
}

// The model (and the tokenizer a folder brings) from --preset or --model.
async function openModel(mm, values) {
  if (values.model !== undefined && values.preset !== undefined) throw new UsageError('give --preset or --model, not both');
  const inferFlags = givenInferFlags(values);
  if (values.model === undefined) {
    if (values.config !== undefined || inferFlags.length)
      throw new UsageError(`${values.config !== undefined ? '--config' : inferFlags[0]} goes with --model FILE.pth`);
    return { model: mm.createModel({ preset: values.preset ?? 'lab-a', seed: integerOption(values, 'seed', 0) }), folder: null };
  }
  const hints = inferHints(values);
  const isFolder = (await stat(values.model).catch(() => null))?.isDirectory() ?? !values.model.endsWith('.pth');
  let config, weightsPath, folder;
  if (!isFolder) {
    config = values.config !== undefined ? await readInput(values.config, 'utf8') : undefined;
    weightsPath = values.model;
    folder = dirname(values.model);
  } else {
    folder = values.model;
    // model.safetensors, else model.pth, else pytorch_model.bin (what
    // save_pretrained(safe_serialization=False) writes: a torch.save zip).
    let weightsFile = 'model.safetensors';
    if (!(await exists(join(folder, weightsFile)))) {
      weightsFile = (await exists(join(folder, 'model.pth')))
        ? 'model.pth'
        : (await exists(join(folder, 'pytorch_model.bin')))
          ? 'pytorch_model.bin'
          : 'model.safetensors';
    }
    config =
      (await exists(join(folder, 'config.json'))) || weightsFile === 'model.safetensors'
        ? await readInput(join(folder, 'config.json'), 'utf8')
        : undefined;
    weightsPath = join(folder, weightsFile);
  }
  if (config !== undefined && inferFlags.length)
    throw new UsageError(`${inferFlags.join(', ')}: these flags are for a config inferred from a .pth, and this model has a config.json`);
  const weights = asBytes(await readInput(weightsPath));
  const model = mm.loadModel({ config, weights, hints, name: basename(weightsPath) });
  reportLoad(model.info(), basename(weightsPath));
  return { model, folder };
}

// --tokenizer FILE, or the model folder's tokenizer.json, or none.
async function openTokenizer(mm, values, folder) {
  const path = values.tokenizer ?? (folder && (await exists(join(folder, 'tokenizer.json'))) ? join(folder, 'tokenizer.json') : null);
  return path ? mm.loadTokenizer(await readInput(path, 'utf8')) : null;
}

// --chat's template: the model folder's tokenizer_config.json, else (for a
// generation-2 model) MiniMind2's, else the one shipped with the package.
async function chatOptions(values, model, folder) {
  if (!values.chat) {
    if (values.thinking) throw new UsageError('--thinking goes with --chat');
    return null;
  }
  const own = folder && join(folder, 'tokenizer_config.json');
  const generation = model.info().generation;
  const path = own && (await exists(own)) ? own : generation === 2 ? null : join(SHIPPED_TOKENIZER, 'tokenizer_config.json');
  return { thinking: values.thinking === true, generation, ...(path ? { tokenizerConfig: await readInput(path, 'utf8') } : {}) };
}

// Token ids and their labels from --ids or --text (without a tokenizer, by
// js/preset_tokens.mjs with model's vocabulary: the page's ids for that text).
function inputTokens(values, tokenizer, chat, model) {
  if (values.ids !== undefined && values.text !== undefined) throw new UsageError('give --ids or --text, not both');
  if (values.ids !== undefined) {
    const parts = values.ids.split(',').map((s) => s.trim());
    if (parts.some((p) => !/^\d+$/.test(p)))
      throw new UsageError(`--ids must be comma-separated non-negative integers, got "${values.ids}"`);
    const ids = parts.map(Number);
    return { ids, labels: tokenizer ? tokenizer.display(ids).map((t) => t.text) : ids.map(String) };
  }
  if (values.text !== undefined) {
    const text = chat ? chatPrompt(values.text, chat) : values.text;
    if (tokenizer) {
      const encoded = tokenizer.encode(text);
      if (encoded.length === 0) throw new UsageError('--text holds no tokens (it is empty)');
      // As MiniMind's eval_llm.py feeds a pretrained model: bos_token + prompt
      // (the chat template starts with <|im_start|> itself).
      const ids = values.chat || values['no-bos'] ? encoded : [BOS_ID, ...encoded];
      return { ids, labels: tokenizer.display(ids).map((t) => t.text) };
    }
    const { ids, tokens } = tokenize(text, model.info().vocab_size, Infinity);
    if (ids.length === 0) throw new UsageError('--text holds no tokens (it is empty or only whitespace)');
    return { ids, labels: tokens };
  }
  throw new UsageError('give the input as --ids 1,2,3 or --text "..."');
}

// --ablate 0:2,1:3 -> [[0, 2], [1, 3]] (layer:head pairs).
function ablation(values) {
  if (values.ablate === undefined) return undefined;
  return values.ablate.split(',').map((part) => {
    const m = /^\s*(\d+):(\d+)\s*$/.exec(part);
    if (!m) throw new UsageError(`--ablate takes layer:head pairs like 0:2,1:3, got "${values.ablate}"`);
    return [Number(m[1]), Number(m[2])];
  });
}

function nestedArray(tensor, dims) {
  // Splits flat data into nested arrays of the trailing `dims` dimensions.
  const { shape, data } = tensor;
  const build = (offset, axis) => {
    if (axis === shape.length - 1) return Array.from(data.subarray(offset, offset + shape[axis]));
    const stride = shape.slice(axis + 1).reduce((a, b) => a * b, 1);
    return Array.from({ length: shape[axis] }, (_, i) => build(offset + i * stride, axis + 1));
  };
  return build(0, shape.length - dims);
}

function formatMatrix(rows, labels, decimals = 3) {
  const width = Math.max(decimals + 3, ...labels.map((l) => l.length));
  const head = `${' '.repeat(width)} ${labels.map((l) => l.padStart(width)).join(' ')}`;
  return [
    head,
    ...rows.map((row, i) => `${labels[i].padStart(width)} ${row.map((v) => v.toFixed(decimals).padStart(width)).join(' ')}`),
  ].join('\n');
}

async function commandInfo(mm, values) {
  const { model } = await openModel(mm, values);
  const info = model.info();
  model.dispose();
  if (values.json) return console.log(JSON.stringify(info, null, 2));
  const d = info.derived;
  console.log(
    `layers ${info.num_hidden_layers}, hidden ${info.hidden_size}, heads ${info.num_attention_heads}, kv heads ${info.num_key_value_heads}, vocab ${info.vocab_size}`,
  );
  console.log(
    `head_dim ${d.head_dim}, R = H/Hkv = ${d.n_rep}, intermediate ${d.intermediate_size}${info.use_moe ? ` (MoE: ${info.num_experts ?? info.n_routed_experts} experts, top-${info.num_experts_per_tok})` : ''}`,
  );
  console.log(`q_proj [${d.q_proj}], k_proj [${d.k_proj}], v_proj [${d.v_proj}], o_proj [${d.o_proj}]`);
  console.log(
    `q/k norm ${info.use_qk_norm ? 'yes' : 'no'} (generation ${info.generation}), rms_norm_eps ${info.rms_norm_eps}, rope_theta ${info.rope_theta}`,
  );
  console.log(`parameters ${info.parameters.toLocaleString('en-US')} (${(info.weight_bytes / 2 ** 20).toFixed(1)} MiB as float32)`);
}

async function commandRun(mm, values) {
  const { model, folder } = await openModel(mm, values);
  const tokenizer = await openTokenizer(mm, values, folder);
  try {
    const { ids, labels } = inputTokens(values, tokenizer, await chatOptions(values, model, folder), model);
    const ablate = ablation(values);
    const { logits, trace } = model.forward(ids, { trace: { layers: 'all', stages: ['attn_weights'] }, ...(ablate ? { ablate } : {}) });
    const attention = trace
      .filter((e) => e.stage === 'attn_weights')
      .sort((a, b) => a.layer - b.layer)
      .map((e) => nestedArray(e, 3));
    const logitRows = nestedArray(logits, 2);
    if (values.json) {
      return console.log(JSON.stringify({ ids, tokens: labels, attention, logits: logitRows }));
    }
    console.log(`tokens: ${labels.map((l, i) => `${l}(${ids[i]})`).join(' ')}`);
    attention.forEach((heads, layer) => {
      heads.forEach((rows, head) => {
        console.log(`\nlayer ${layer}, head ${head}: attention weights [query × key]`);
        console.log(formatMatrix(rows, labels));
      });
    });
    console.log(`\nlogits [${logits.shape.slice(1)}]: top 5 next tokens per position`);
    logitRows.forEach((row, i) =>
      console.log(
        `  after ${labels[i]}: ${topK(row, 5)
          .map(({ id, value }) => `${id} (${value.toFixed(3)})`)
          .join(', ')}`,
      ),
    );
  } finally {
    tokenizer?.dispose();
    model.dispose();
  }
}

async function commandGenerate(mm, values) {
  const maxNew = integerOption(values, 'max-new-tokens', 16);
  const sampling = { greedy: values.greedy === true };
  const temperature = numberOption(values, 'temperature');
  if (temperature !== undefined) sampling.temperature = temperature;
  const topP = numberOption(values, 'top-p');
  if (topP !== undefined) sampling.topP = topP;
  const penalty = numberOption(values, 'repetition-penalty');
  if (penalty !== undefined) sampling.repetitionPenalty = penalty;
  if (values['top-k'] !== undefined) sampling.topK = integerOption(values, 'top-k');
  if (values['sample-seed'] !== undefined) sampling.seed = integerOption(values, 'sample-seed');
  const { model, folder } = await openModel(mm, values);
  const tokenizer = await openTokenizer(mm, values, folder);
  let generator = null;
  try {
    const { ids } = inputTokens(values, tokenizer, await chatOptions(values, model, folder), model);
    generator = model.generator(ids, sampling);
    const generated = [];
    while (generated.length < maxNew && !generator.finished) generated.push(generator.step({ trace: false }).token);
    const text = tokenizer ? tokenizer.decode(generated, { skipSpecialTokens: true }) : undefined;
    if (values.json)
      return console.log(JSON.stringify({ prompt: ids, generated, ids: [...ids, ...generated], ...(tokenizer ? { text } : {}) }));
    console.log(`prompt:    ${ids.join(' ')}`);
    console.log(`generated: ${generated.join(' ')}`);
    if (tokenizer) console.log(`text:      ${text}`);
  } finally {
    generator?.dispose();
    tokenizer?.dispose();
    model.dispose();
  }
}

async function commandLab(mm, values) {
  process.stdout.write(mm.labRecord(values.preset ?? 'lab-a', integerOption(values, 'seed', 0)));
}

// MiniMind's tokenizer, shipped in the package (models/minimind-tokenizer/).
const SHIPPED_TOKENIZER = fileURLToPath(new URL('../models/minimind-tokenizer/', import.meta.url));

// train/grad's model: --config FILE (seeded random weights) or the usual MODEL.
async function openTrainingModel(mm, values) {
  if (values.config !== undefined && values.model === undefined) {
    if (values.preset !== undefined) throw new UsageError('give --preset or --config, not both');
    const config = await readInput(values.config, 'utf8');
    const model = mm.createModel({ config, seed: integerOption(values, 'seed', 42), init: 'minimind' });
    reportLoad(model.info(), basename(values.config));
    return { model, folder: null };
  }
  if (values.model === undefined) {
    const inferFlags = givenInferFlags(values);
    if (inferFlags.length) throw new UsageError(`${inferFlags[0]} goes with --model FILE.pth`);
    const preset = values.preset ?? 'lab-a';
    return { model: mm.createModel({ preset, seed: integerOption(values, 'seed', 42), init: 'minimind' }), folder: null };
  }
  return openModel(mm, values);
}

// --tokenizer FILE, else the model folder's, else MiniMind's shipped one; the
// folder that held it (for tokenizer_config.json).
async function trainingTokenizer(mm, values, folder) {
  let path = values.tokenizer;
  if (path === undefined && folder && (await exists(join(folder, 'tokenizer.json')))) path = join(folder, 'tokenizer.json');
  path ??= join(SHIPPED_TOKENIZER, 'tokenizer.json');
  const text = await readInput(path, 'utf8');
  return { tokenizer: mm.loadTokenizer(text), text, folder: dirname(path) };
}

async function trainingData(values) {
  if (values.data === undefined) throw new UsageError('give the training data as --data FILE.jsonl or FILE.txt');
  return { data: await readInput(values.data, 'utf8'), format: extname(values.data).toLowerCase() === '.txt' ? 'text' : 'jsonl' };
}

function positiveNumberOption(values, name, fallback) {
  const value = numberOption(values, name);
  if (value === undefined) return fallback;
  if (!(value > 0)) throw new UsageError(`--${name} must be a positive number, got "${values[name]}"`);
  return value;
}

function positiveIntegerOption(values, name, fallback) {
  const value = integerOption(values, name, fallback);
  if (value < 1) throw new UsageError(`--${name} must be at least 1, got "${values[name]}"`);
  return value;
}

function duration(seconds) {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return `${h > 0 ? `${h}:${String(m).padStart(2, '0')}` : m}:${String(s % 60).padStart(2, '0')}`;
}

// config.json, model.safetensors and the tokenizer files into `out`; each
// file is written beside and renamed, so an interrupted save leaves the
// previous one whole.
async function saveModel(model, out, dtype, tokenizer) {
  await mkdir(out, { recursive: true });
  const files = [
    ['config.json', model.configJson() + '\n'],
    ['model.safetensors', model.safetensors({ dtype })],
    ['tokenizer.json', tokenizer.text],
  ];
  const configPath = join(tokenizer.folder, 'tokenizer_config.json');
  if (await exists(configPath)) files.push(['tokenizer_config.json', await readFile(configPath)]);
  for (const [name, contents] of files) {
    await writeFile(join(out, `${name}.partial`), contents);
    await rename(join(out, `${name}.partial`), join(out, name));
  }
}

// train's --timeline FILE, --snapshot-every N and --probe TEXT: null without --timeline.
function trainingTimelineOptions(values) {
  if (values.timeline === undefined) {
    for (const flag of ['snapshot-every', 'probe'])
      if (values[flag] !== undefined) throw new UsageError(`--${flag} goes with --timeline FILE`);
    return null;
  }
  const every = values['snapshot-every'] === undefined ? null : positiveIntegerOption(values, 'snapshot-every');
  return { every, probe: values.probe ?? LESSON_PROBE };
}

// The timeline file of a train run (js/timeline.mjs timelineJson): opened
// (its .partial written) before training, so that a path that cannot be
// written fails at once; written whole at every --save-every and at the end,
// beside and renamed, as the model's files are.
class TimelineFile {
  #path;
  #partial;
  #options;
  #entries = [];
  #shape = null; // {layers, heads, every}

  static async open(path, options) {
    const file = new TimelineFile(path, options);
    try {
      if ((await exists(path)) && (await stat(path)).isDirectory()) throw new Error('it is a folder');
      await mkdir(dirname(path), { recursive: true });
      await writeFile(file.#partial, '');
    } catch (error) {
      throw new Error(`cannot write the timeline to ${path}: ${error.message}`, { cause: error });
    }
    return file;
  }

  constructor(path, options) {
    this.#path = path;
    this.#partial = `${path}.partial`;
    this.#options = options;
  }

  trainerOptions() {
    const { every, probe } = this.#options;
    return { onSnapshot: (entry) => this.#entries.push(entry), probe, ...(every === null ? {} : { snapshotEvery: every }) };
  }

  /** model.info() and trainer.info() of the run. */
  begin(modelInfo, trainerInfo) {
    this.#shape = {
      layers: modelInfo.num_hidden_layers,
      heads: modelInfo.num_attention_heads,
      every: this.#options.every ?? defaultSnapshotEvery(trainerInfo.totalBatches),
    };
  }

  get count() {
    return this.#entries.length;
  }

  get every() {
    return this.#shape.every;
  }

  async write() {
    const json = timelineJson({ ...this.#shape, probe: this.#options.probe, entries: this.#entries });
    await writeFile(this.#partial, JSON.stringify(json) + '\n');
    await rename(this.#partial, this.#path);
  }

  /** Removes the .partial a failed run leaves. */
  async close() {
    await rm(this.#partial, { force: true });
  }
}

async function commandTrain(mm, values) {
  if (values.out === undefined) throw new UsageError('give the output folder as --out DIR');
  const dtypes = { float32: 'F32', float16: 'F16' };
  const dtype = dtypes[values.dtype ?? 'float32'];
  if (!dtype) throw new UsageError(`--dtype must be float32 or float16, got "${values.dtype}"`);
  const order = values.order ?? 'shuffle';
  if (order !== 'shuffle' && order !== 'file') throw new UsageError(`--order must be shuffle or file, got "${order}"`);
  const options = {
    epochs: positiveIntegerOption(values, 'epochs', 1),
    batchSize: positiveIntegerOption(values, 'batch-size', 32),
    maxSeqLen: positiveIntegerOption(values, 'max-seq-len', 340),
    learningRate: positiveNumberOption(values, 'lr', 5e-4),
    accumulationSteps: positiveIntegerOption(values, 'accumulation-steps', 8),
    gradClip: positiveNumberOption(values, 'grad-clip', 1.0),
    seed: integerOption(values, 'seed', 42),
    order,
  };
  const saveEvery = values['save-every'] === undefined ? 0 : positiveIntegerOption(values, 'save-every');
  const timelineOptions = trainingTimelineOptions(values);
  const { data, format } = await trainingData(values);
  const { model, folder } = await openTrainingModel(mm, values);
  const tokenizer = await trainingTokenizer(mm, values, folder);
  let trainer = null;
  let timeline = null;
  try {
    timeline = timelineOptions && (await TimelineFile.open(values.timeline, timelineOptions));
    trainer = model.trainer({ data, format, tokenizer: tokenizer.tokenizer, ...options, ...timeline?.trainerOptions() });
    const info = trainer.info();
    timeline?.begin(model.info(), info);
    const mib = (bytes) => (bytes / 2 ** 20).toFixed(1);
    console.error(
      `training on ${info.samples} samples of ${info.maxSeqLen} tokens: ${info.totalBatches} batches (${info.batchesPerEpoch} per epoch), ` +
        `memory ${mib(info.memory.total)} MiB`,
    );
    if (values.log !== undefined) {
      await mkdir(dirname(values.log), { recursive: true });
      await writeFile(values.log, '');
    }
    const tty = process.stderr.isTTY;
    const started = Date.now();
    let lastLine = 0;
    let tokensDone = 0;
    let last = null;
    for (let done = 1; done <= info.totalBatches; done += 1) {
      const s = trainer.step();
      last = s;
      const sequences = Math.min(options.batchSize, info.samples - (s.batch - 1) * options.batchSize);
      tokensDone += sequences * info.maxSeqLen;
      if (values.log !== undefined) {
        const entry = {
          epoch: s.epoch,
          batch: s.batch,
          loss: s.loss,
          lr: s.lr,
          optimizer_step: s.optimizerStep,
          grad_norm: s.gradNorm,
          tokens: s.tokens,
          ms: s.ms,
        };
        await appendFile(values.log, JSON.stringify(entry) + '\n');
      }
      if (saveEvery > 0 && done % saveEvery === 0 && done < info.totalBatches) {
        await saveModel(model, values.out, dtype, tokenizer);
        await timeline?.write();
      }
      const now = Date.now();
      if (now - lastLine >= 1000 || done === info.totalBatches) {
        lastLine = now;
        const seconds = (now - started) / 1000;
        const line =
          `epoch ${s.epoch + 1}/${options.epochs} batch ${s.batch}/${info.batchesPerEpoch} loss ${s.loss.toFixed(4)} ` +
          `lr ${s.lr.toExponential(2)} ${Math.round(tokensDone / Math.max(seconds, 1e-3))} tokens/s ` +
          `ETA ${duration((seconds / done) * (info.totalBatches - done))}`;
        process.stderr.write(tty ? `\r${line}\x1b[K` : `${line}\n`);
      }
    }
    if (tty) process.stderr.write('\n');
    await saveModel(model, values.out, dtype, tokenizer);
    console.log(
      `saved ${values.out}: config.json, model.safetensors (${dtype}), tokenizer.json; ${info.totalBatches} batches, ` +
        `${trainer.info().optimizerSteps} optimizer steps, last loss ${last.loss.toFixed(4)}`,
    );
    if (timeline) {
      await timeline.write();
      console.log(`saved ${values.timeline}: ${timeline.count} snapshots, one every ${timeline.every} batches`);
    }
  } finally {
    await timeline?.close();
    trainer?.dispose();
    tokenizer.tokenizer.dispose();
    model.dispose();
  }
}

async function commandGrad(mm, values) {
  if (values.out === undefined) throw new UsageError('give the gradients file as --out FILE.safetensors');
  const batchSize = positiveIntegerOption(values, 'batch-size', 32);
  const { data, format } = await trainingData(values);
  const { model, folder } = await openTrainingModel(mm, values);
  const tokenizer = await trainingTokenizer(mm, values, folder);
  let trainer = null;
  try {
    trainer = model.trainer({
      data,
      format,
      tokenizer: tokenizer.tokenizer,
      batchSize,
      maxSeqLen: positiveIntegerOption(values, 'max-seq-len', 340),
      order: 'file',
    });
    const samples = Array.from({ length: Math.min(batchSize, trainer.info().samples) }, (_, i) => i);
    const result = trainer.lossAndGradients(samples);
    await writeFile(values.out, result.safetensors);
    console.log(JSON.stringify({ loss: result.loss, tokens: result.tokens }));
  } finally {
    trainer?.dispose();
    tokenizer.tokenizer.dispose();
    model.dispose();
  }
}

async function commandHeads(mm, values) {
  const { model, folder } = await openModel(mm, values);
  const { tokenizer } = await trainingTokenizer(mm, values, folder);
  try {
    const { measureHeads } = await import('./head_roles.mjs');
    const r = measureHeads(model, tokenizer, {
      count: positiveIntegerOption(values, 'count', 500),
      seed: integerOption(values, 'probe-seed', 7),
    });
    if (values.json) return console.log(JSON.stringify(r));
    const f = (x) => x.toFixed(2).padStart(8);
    console.log('layer head  prev-tok induction  pronoun  entropy     sink  role');
    for (const h of r.heads) {
      console.log(
        `${String(h.layer).padStart(5)} ${String(h.head).padStart(4)}${f(h.previousToken)}${f(h.induction).padStart(10)}${f(h.pronoun)}${f(h.entropy)}${f(h.sink)}  ${h.role}`,
      );
    }
    const split = r.previousTokenSplit;
    console.log(
      `\nbest previous-token head: layer ${split.layer} head ${split.head}, ` +
        `${split.afterNameStart.mass.toFixed(2)} on i-1 where i-1 starts a name (${split.afterNameStart.queries} queries), ` +
        `${split.elsewhere.mass.toFixed(2)} elsewhere (${split.elsewhere.queries})`,
    );
    const { layer, head } = r.pronounHead;
    console.log(`pronoun head: layer ${layer} head ${head}`);
    for (const l of r.lesson) console.log(`  ${l.text}: ${l.mass.toFixed(2)} of the pronoun's attention on ${l.referent}`);
    console.log(
      `referent's habit predicted after the pronoun (${r.probes.heldOut} held-out sentences): ` +
        `${(100 * r.referentAccuracy.on).toFixed(1)}% with the head, ${(100 * r.referentAccuracy.off).toFixed(1)}% with it switched off`,
    );
    const group = r.referentAccuracy.pronounHeads;
    if (group.length > 1)
      console.log(
        `  ${(100 * r.referentAccuracy.allOff).toFixed(1)}% with every pronoun head switched off (${group.map(([l, h]) => `${l}:${h}`).join(', ')})`,
      );
  } finally {
    tokenizer.dispose();
    model.dispose();
  }
}

const COMMANDS = {
  heads: commandHeads,
  info: commandInfo,
  run: commandRun,
  generate: commandGenerate,
  lab: commandLab,
  train: commandTrain,
  grad: commandGrad,
  ...interpCommands({ openModel, openTokenizer, inputTokens, integerOption, ablation, UsageError }),
  ...circuitCommands({ openModel, openTokenizer, inputTokens, integerOption, ablation, UsageError }),
};

// --build and --threads as loadMiniMind options: --build names the instruction set
// (simd, relaxed, scalar, or a variant's own name), --threads N > 1 its pthreads twin.
const BUILDS = ['auto', 'simd', 'relaxed', 'scalar', 'threads', 'relaxed-threads'];
function buildOptions(values) {
  const threads = values.threads === undefined ? undefined : positiveIntegerOption(values, 'threads', 1);
  if (threads !== undefined && threads > 16) throw new UsageError(`--threads must be between 1 and 16, got ${threads}`);
  const build = values.build ?? 'auto';
  if (!BUILDS.includes(build)) throw new UsageError(`--build must be one of ${BUILDS.join(', ')}, got "${build}"`);
  if (build === 'auto') return threads === undefined ? {} : { variant: threads > 1 ? 'threads' : 'auto', threads };
  const twin = { simd: 'threads', relaxed: 'relaxed-threads' }[build];
  const variant = threads > 1 && twin ? twin : build;
  return threads === undefined ? { variant } : { variant, threads };
}

async function main(argv) {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    console.log(USAGE);
    return 0;
  }
  try {
    if (!COMMANDS[command]) throw new UsageError(`unknown command "${command}"`);
    let parsed;
    try {
      parsed = parseArgs({ args: rest, options: OPTIONS, allowPositionals: false, strict: true });
    } catch (error) {
      throw new UsageError(error.message);
    }
    if (parsed.values.help) {
      console.log(USAGE);
      return 0;
    }
    const mm = await loadMiniMind(buildOptions(parsed.values));
    await COMMANDS[command](mm, parsed.values);
    // Which build ran (after the command's own lines): the relaxed build's numbers are not the same bits as the others'.
    console.error(`minimind: build ${mm.variant}, ${mm.threads} thread${mm.threads === 1 ? '' : 's'}`);
    return 0;
  } catch (error) {
    const message = String(error?.message ?? error)
      .split('\n')
      .join('; ');
    console.error(`minimind: ${message}`);
    if (error instanceof UsageError) console.error('run "minimind help" for usage');
    return error instanceof UsageError ? 2 : 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
