#!/usr/bin/env node
// minimind: the playground's model from the command line, on the Wasm module.
// Run `minimind help` for the commands.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { loadMiniMind } from './minimind.mjs';
import { whitespaceTokens } from './whitespace_tokens.mjs';

const USAGE = `usage: minimind <command> [options]

commands:
  info      (--preset NAME [--seed N] | --model DIR) [--json]
            config, derived shapes, parameter count
  run       (--preset NAME [--seed N] | --model DIR) (--ids 1,2,3 | --text "...") [--json]
            tokens, attention weights of every layer and head, logits
  generate  (--preset NAME [--seed N] | --model DIR) (--ids ... | --text "...")
            [--max-new-tokens N] [--greedy | --temperature T --top-k K --top-p P
            --repetition-penalty R --sample-seed S] [--json]
  lab       [--preset lab-a|lab-b] [--seed N]
            lesson 11's lab record, computed by the module

A model folder DIR holds config.json and model.safetensors (F32, F16 or BF16).
--text splits on whitespace and numbers the distinct words 3, 4, 5, ... in order
of first appearance (ids 0-2 are MiniMind's special tokens); it is a stand-in
until a tokenizer is loaded.`;

class UsageError extends Error {}

const OPTIONS = {
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

async function openModel(mm, values) {
  if (values.model !== undefined && values.preset !== undefined) throw new UsageError('give --preset or --model, not both');
  if (values.model !== undefined) {
    const read = async (file, encoding) => {
      try {
        return await readFile(join(values.model, file), encoding);
      } catch (error) {
        throw new Error(
          error.code === 'ENOENT' ? `no ${file} in ${values.model}` : `cannot read ${join(values.model, file)}: ${error.message}`,
        );
      }
    };
    const config = await read('config.json', 'utf8');
    const weights = await read('model.safetensors');
    return mm.loadModel({ config, weights: new Uint8Array(weights.buffer, weights.byteOffset, weights.byteLength) });
  }
  return mm.createModel({ preset: values.preset ?? 'lab-a', seed: integerOption(values, 'seed', 0) });
}

// Token ids and their labels from --ids or --text.
function inputTokens(values) {
  if (values.ids !== undefined && values.text !== undefined) throw new UsageError('give --ids or --text, not both');
  if (values.ids !== undefined) {
    const parts = values.ids.split(',').map((s) => s.trim());
    if (parts.some((p) => !/^\d+$/.test(p)))
      throw new UsageError(`--ids must be comma-separated non-negative integers, got "${values.ids}"`);
    const ids = parts.map(Number);
    return { ids, labels: ids.map(String) };
  }
  if (values.text !== undefined) {
    const { ids, tokens } = whitespaceTokens(values.text);
    if (ids.length === 0) throw new UsageError('--text holds no tokens (it is empty or only whitespace)');
    return { ids, labels: tokens };
  }
  throw new UsageError('give the input as --ids 1,2,3 or --text "..."');
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

function topK(values, k) {
  return [...values.keys()].sort((a, b) => values[b] - values[a]).slice(0, k);
}

async function commandInfo(mm, values) {
  const model = await openModel(mm, values);
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
  const { ids, labels } = inputTokens(values);
  const model = await openModel(mm, values);
  try {
    const { logits, trace } = model.forward(ids, { trace: { layers: 'all', stages: ['attn_weights'] } });
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
          .map((id) => `${id} (${row[id].toFixed(3)})`)
          .join(', ')}`,
      ),
    );
  } finally {
    model.dispose();
  }
}

async function commandGenerate(mm, values) {
  const { ids } = inputTokens(values);
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
  const model = await openModel(mm, values);
  const generator = model.generator(ids, sampling);
  try {
    const generated = [];
    while (generated.length < maxNew && !generator.finished) generated.push(generator.step({ trace: false }).token);
    if (values.json) return console.log(JSON.stringify({ prompt: ids, generated, ids: [...ids, ...generated] }));
    console.log(`prompt:    ${ids.join(' ')}`);
    console.log(`generated: ${generated.join(' ')}`);
  } finally {
    generator.dispose();
    model.dispose();
  }
}

async function commandLab(mm, values) {
  process.stdout.write(mm.labRecord(values.preset ?? 'lab-a', integerOption(values, 'seed', 0)));
}

const COMMANDS = { info: commandInfo, run: commandRun, generate: commandGenerate, lab: commandLab };

export async function main(argv) {
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
    const mm = await loadMiniMind();
    await COMMANDS[command](mm, parsed.values);
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
