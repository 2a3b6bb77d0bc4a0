#!/usr/bin/env node
// Writes a MiniMind model as a GGUF file that llama.cpp (and so wllama, its
// WebAssembly build) runs: the same weights, the same function. Used by
// bench/speed/wllama.mjs to time llama.cpp's Wasm build on our benchmark presets.
//
//   node bench/speed/make_gguf.mjs --preset minimind-3 [--seed 0] [--init minimind] [--dtype F32|F16] --out FILE.gguf
//
// The architecture is llama.cpp's "qwen3" for a config with q/k norm and its
// "qwen2" (with zero q/k/v biases, which add nothing) for one without: both
// rotate the two halves of each head as MiniMind does (NEOX order), so no
// weight needs permuting. Norm weights stay float32 (llama.cpp's CPU
// kernels multiply by float32 norms); with --dtype F16 the matrices are
// stored as float16, exactly (the seeded weights are float16 values: a value
// that is not is an error). The tokenizer is MiniMind's
// (models/minimind-tokenizer/tokenizer.json) as a GPT-2 byte-level BPE.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const ALIGNMENT = 32;

// GGUF value types (ggml's gguf.h).
const T = { UINT32: 4, INT32: 5, FLOAT32: 6, BOOL: 7, STRING: 8, ARRAY: 9, UINT64: 10 };
// ggml tensor types.
const GGML = { F32: 0, F16: 1 };

/** A growing little-endian byte buffer. */
class Bytes {
  constructor() {
    this.chunks = [];
    this.length = 0;
  }
  push(u8) {
    this.chunks.push(u8);
    this.length += u8.length;
  }
  // One fixed-size little-endian value written by a DataView setter.
  scalar(size, set) {
    const b = new Uint8Array(size);
    set(new DataView(b.buffer));
    this.push(b);
  }
  u32(v) {
    this.scalar(4, (d) => d.setUint32(0, v, true));
  }
  i32(v) {
    this.scalar(4, (d) => d.setInt32(0, v, true));
  }
  f32(v) {
    this.scalar(4, (d) => d.setFloat32(0, v, true));
  }
  u64(v) {
    this.scalar(8, (d) => d.setBigUint64(0, BigInt(v), true));
  }
  string(s) {
    const u8 = new TextEncoder().encode(s);
    this.u64(u8.length);
    this.push(u8);
  }
  pad(to) {
    const rest = (to - (this.length % to)) % to;
    if (rest) this.push(new Uint8Array(rest));
  }
  concat() {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}

/** One metadata value: [type, value] with type a T key or ['ARRAY', elementType, values]. */
function writeValue(out, type, value, elementType) {
  out.u32(T[type]);
  if (type === 'ARRAY') {
    out.u32(T[elementType]);
    out.u64(value.length);
    for (const v of value) writeScalar(out, elementType, v);
    return;
  }
  writeScalar(out, type, value);
}
function writeScalar(out, type, v) {
  if (type === 'UINT32') out.u32(v);
  else if (type === 'INT32') out.i32(v);
  else if (type === 'FLOAT32') out.f32(v);
  else if (type === 'BOOL') out.push(Uint8Array.of(v ? 1 : 0));
  else if (type === 'STRING') out.string(v);
  else if (type === 'UINT64') out.u64(v);
  else throw new Error(`gguf: no writer for ${type}`);
}

/** float32 -> float16 bits, exact only: throws for a value float16 cannot hold. */
function exactHalf(value, name) {
  const f = new Float32Array([value]);
  const bits = new Uint32Array(f.buffer)[0];
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  const mantissa = bits & 0x7fffff;
  if (exponent === 0 && mantissa === 0) return sign;
  const e = exponent - 127;
  let half;
  if (e >= -14 && e <= 15 && (mantissa & 0x1fff) === 0) half = sign | ((e + 15) << 10) | (mantissa >>> 13);
  else if (e < -14 && e >= -24) {
    // A float16 subnormal: (1.m) · 2^e = k · 2^-24 for an integer k < 1024.
    const shift = -14 - e; // 1 .. 10
    const full = 0x800000 | mantissa;
    if (full & ((1 << (13 + shift)) - 1)) half = -1;
    else half = sign | (full >>> (13 + shift));
  } else half = -1;
  if (half < 0) throw new Error(`gguf: ${name} holds ${value}, which float16 cannot store exactly`);
  return half;
}

/** safetensors bytes -> Map name -> {dtype, shape, data: Float32Array}. F32 only. */
function readSafetensors(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength)));
  const tensors = new Map();
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    if (info.dtype !== 'F32') throw new Error(`gguf: ${name} is ${info.dtype}; export the model as F32`);
    const [begin, end] = info.data_offsets;
    const raw = bytes.slice(8 + headerLength + begin, 8 + headerLength + end);
    tensors.set(name, { shape: info.shape, data: new Float32Array(raw.buffer, raw.byteOffset, (end - begin) / 4) });
  }
  return tensors;
}

/** The tokenizer as GGUF metadata (llama.cpp's "gpt2" BPE, GPT-2 pre-tokenizer). */
function tokenizerMetadata(tokenizerJson, config) {
  const t = JSON.parse(tokenizerJson);
  if (t.model?.type !== 'BPE') throw new Error('gguf: the tokenizer must be a BPE tokenizer');
  const size = Math.max(config.vocab_size, Object.keys(t.model.vocab).length);
  const tokens = new Array(size).fill(null);
  for (const [piece, id] of Object.entries(t.model.vocab)) tokens[id] = piece;
  const types = new Array(size).fill(1); // normal
  for (const added of t.added_tokens ?? []) {
    tokens[added.id] = added.content;
    types[added.id] = added.special ? 3 : 4; // control, user-defined
  }
  for (let i = 0; i < size; i += 1) {
    if (tokens[i] === null) {
      tokens[i] = `[PAD${i}]`;
      types[i] = 5; // unused
    }
  }
  const merges = t.model.merges.map((m) => (Array.isArray(m) ? m.join(' ') : m));
  return [
    ['tokenizer.ggml.model', 'STRING', 'gpt2'],
    ['tokenizer.ggml.pre', 'STRING', 'gpt-2'],
    ['tokenizer.ggml.tokens', 'ARRAY', tokens, 'STRING'],
    ['tokenizer.ggml.token_type', 'ARRAY', types, 'INT32'],
    ['tokenizer.ggml.merges', 'ARRAY', merges, 'STRING'],
    ['tokenizer.ggml.bos_token_id', 'UINT32', config.bos_token_id ?? 1],
    ['tokenizer.ggml.eos_token_id', 'UINT32', config.eos_token_id ?? 2],
    ['tokenizer.ggml.add_bos_token', 'BOOL', false],
  ];
}

/**
 * GGUF bytes for a MiniMind config and its F32 safetensors (MiniMind's tensor
 * names). dtype: 'F32' or 'F16' for the matrices.
 */
function ggufFromSafetensors(config, safetensorsBytes, tokenizerJson, { dtype = 'F32', name = 'minimind' } = {}) {
  if (config.use_moe) throw new Error('gguf: MoE configs are not written (llama.cpp names its experts differently)');
  const tensors = readSafetensors(safetensorsBytes);
  const qkNorm = config.use_qk_norm !== false && tensors.has('model.layers.0.self_attn.q_norm.weight');
  const arch = qkNorm ? 'qwen3' : 'qwen2';
  const headDim = config.head_dim ?? config.hidden_size / config.num_attention_heads;
  const meta = [
    ['general.architecture', 'STRING', arch],
    ['general.name', 'STRING', name],
    ['general.alignment', 'UINT32', ALIGNMENT],
    [`${arch}.context_length`, 'UINT32', Math.min(config.max_position_embeddings ?? 32768, 32768)],
    [`${arch}.embedding_length`, 'UINT32', config.hidden_size],
    [`${arch}.block_count`, 'UINT32', config.num_hidden_layers],
    [`${arch}.feed_forward_length`, 'UINT32', config.intermediate_size],
    [`${arch}.attention.head_count`, 'UINT32', config.num_attention_heads],
    [`${arch}.attention.head_count_kv`, 'UINT32', config.num_key_value_heads],
    [`${arch}.attention.key_length`, 'UINT32', headDim],
    [`${arch}.attention.value_length`, 'UINT32', headDim],
    [`${arch}.rope.freq_base`, 'FLOAT32', config.rope_theta ?? 1e6],
    [`${arch}.attention.layer_norm_rms_epsilon`, 'FLOAT32', config.rms_norm_eps ?? 1e-5],
    ...tokenizerMetadata(tokenizerJson, config),
  ];

  // [gguf name, MiniMind name or a Float32Array, shape as MiniMind writes it (rows first)]
  const plan = [];
  const take = (ggufName, mmName) => {
    const t = tensors.get(mmName);
    if (!t) throw new Error(`gguf: the safetensors has no ${mmName}`);
    plan.push({ name: ggufName, shape: t.shape, data: t.data });
  };
  take('token_embd.weight', 'model.embed_tokens.weight');
  for (let l = 0; l < config.num_hidden_layers; l += 1) {
    const p = `model.layers.${l}.`;
    take(`blk.${l}.attn_norm.weight`, `${p}input_layernorm.weight`);
    take(`blk.${l}.attn_q.weight`, `${p}self_attn.q_proj.weight`);
    take(`blk.${l}.attn_k.weight`, `${p}self_attn.k_proj.weight`);
    take(`blk.${l}.attn_v.weight`, `${p}self_attn.v_proj.weight`);
    take(`blk.${l}.attn_output.weight`, `${p}self_attn.o_proj.weight`);
    if (qkNorm) {
      take(`blk.${l}.attn_q_norm.weight`, `${p}self_attn.q_norm.weight`);
      take(`blk.${l}.attn_k_norm.weight`, `${p}self_attn.k_norm.weight`);
    } else {
      const zeros = (n) => ({ shape: [n], data: new Float32Array(n) });
      plan.push({ name: `blk.${l}.attn_q.bias`, ...zeros(config.num_attention_heads * headDim) });
      plan.push({ name: `blk.${l}.attn_k.bias`, ...zeros(config.num_key_value_heads * headDim) });
      plan.push({ name: `blk.${l}.attn_v.bias`, ...zeros(config.num_key_value_heads * headDim) });
    }
    take(`blk.${l}.ffn_norm.weight`, `${p}post_attention_layernorm.weight`);
    take(`blk.${l}.ffn_gate.weight`, `${p}mlp.gate_proj.weight`);
    take(`blk.${l}.ffn_up.weight`, `${p}mlp.up_proj.weight`);
    take(`blk.${l}.ffn_down.weight`, `${p}mlp.down_proj.weight`);
  }
  take('output_norm.weight', 'model.norm.weight');
  // Tied: llama.cpp reuses token_embd when "output" is absent.
  if (!config.tie_word_embeddings) take('output.weight', 'lm_head.weight');

  const infos = new Bytes();
  const data = new Bytes();
  for (const t of plan) {
    const half = dtype === 'F16' && t.shape.length === 2;
    const payload = half ? new Uint16Array(t.data.length) : t.data;
    if (half) for (let i = 0; i < t.data.length; i += 1) payload[i] = exactHalf(t.data[i], t.name);
    data.pad(ALIGNMENT);
    infos.string(t.name);
    infos.u32(t.shape.length);
    for (const d of [...t.shape].reverse()) infos.u64(d); // ggml: innermost dimension first
    infos.u32(half ? GGML.F16 : GGML.F32);
    infos.u64(data.length);
    data.push(new Uint8Array(payload.buffer, payload.byteOffset, payload.byteLength));
  }

  const out = new Bytes();
  out.push(new TextEncoder().encode('GGUF'));
  out.u32(3);
  out.u64(plan.length);
  out.u64(meta.length);
  for (const [key, type, value, elementType] of meta) {
    out.string(key);
    writeValue(out, type, value, elementType);
  }
  out.push(infos.concat());
  out.pad(ALIGNMENT);
  out.push(data.concat());
  return out.concat();
}

/**
 * The GGUF of seeded weights: {preset} or {config}, as createModel builds
 * them (what bench/speed/make_onnx.py and our runtimes build for the same seed).
 */
export async function seededGguf({ preset, config: given, seed = 0, init = 'minimind', dtype = 'F32' }) {
  const { loadMiniMind } = await import('../../js/minimind.mjs');
  const mm = await loadMiniMind({ variant: 'simd' });
  const model = preset ? mm.createModel({ preset, seed, init }) : mm.createModel({ config: given, seed, init });
  const config = JSON.parse(model.configJson());
  const bytes = model.safetensors({ dtype: 'F32' });
  model.dispose();
  const tokenizer = readFileSync(`${root}models/minimind-tokenizer/tokenizer.json`, 'utf8');
  return ggufFromSafetensors(config, bytes, tokenizer, { dtype, name: `${preset ?? 'minimind'} seed ${seed}` });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const option = (name, fallback) => {
    const i = args.indexOf(name);
    return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
  };
  const preset = option('--preset', null);
  const out = option('--out', null);
  const dtype = option('--dtype', 'F32');
  if (!preset || !out || !['F32', 'F16'].includes(dtype)) {
    console.error('usage: node bench/speed/make_gguf.mjs --preset NAME [--seed 0] [--init minimind] [--dtype F32|F16] --out FILE.gguf');
    process.exit(2);
  }
  const bytes = await seededGguf({ preset, seed: Number(option('--seed', '0')), init: option('--init', 'minimind'), dtype });
  writeFileSync(out, bytes);
  console.log(`${out}: ${(bytes.length / 2 ** 20).toFixed(1)} MiB (${preset}, ${dtype})`);
}
