#!/usr/bin/env node
// Peak Wasm memory while loading a float16 MiniMind checkpoint, against what
// the weights take once loaded. Writes a minimind2-small-shaped
// model.safetensors in memory (F16, with lm_head.weight stored next to the
// tied embedding, as released checkpoints often carry it: ~58 MB), then loads
// it in a fresh module instance twice:
//   streamed: the JS API's loadModel (the core reads one tensor at a time);
//   whole:    the file copied into Wasm memory first (the binding
//             fromSafetensors), for contrast.
// Wasm memory never shrinks, so its size after loading is the peak.
// Usage: node bench/memory/load_memory.mjs [--preset minimind2-small] [--json]
import { readFile } from 'node:fs/promises';

import { loadMiniMind } from '../../js/minimind.mjs';

const MiB = 2 ** 20;
const args = process.argv.slice(2);
const preset = args.includes('--preset') ? args[args.indexOf('--preset') + 1] : 'minimind2-small';
const asJson = args.includes('--json');

// Every tensor of a MiniMind config, as load_weights expects them (names and shapes).
function checkpointTensors(c) {
  const D = c.hidden_size;
  const Dh = c.head_dim ?? D / c.num_attention_heads;
  const q = c.num_attention_heads * Dh;
  const kv = c.num_key_value_heads * Dh;
  const F = c.intermediate_size;
  const tensors = [['model.embed_tokens.weight', [c.vocab_size, D]]];
  for (let l = 0; l < c.num_hidden_layers; l += 1) {
    const p = `model.layers.${l}`;
    tensors.push(
      [`${p}.input_layernorm.weight`, [D]],
      [`${p}.self_attn.q_proj.weight`, [q, D]],
      [`${p}.self_attn.k_proj.weight`, [kv, D]],
      [`${p}.self_attn.v_proj.weight`, [kv, D]],
      [`${p}.self_attn.o_proj.weight`, [D, q]],
      [`${p}.post_attention_layernorm.weight`, [D]],
      [`${p}.mlp.gate_proj.weight`, [F, D]],
      [`${p}.mlp.up_proj.weight`, [F, D]],
      [`${p}.mlp.down_proj.weight`, [D, F]],
    );
    if (c.use_qk_norm) tensors.push([`${p}.self_attn.q_norm.weight`, [Dh]], [`${p}.self_attn.k_norm.weight`, [Dh]]);
  }
  tensors.push(['model.norm.weight', [D]], ['lm_head.weight', [c.vocab_size, D]]);
  return tensors;
}

// A safetensors file of float16 values: small finite numbers (0.01·k, k in -8..8).
function float16Safetensors(tensors) {
  const header = {};
  let offset = 0;
  for (const [name, shape] of tensors) {
    const bytes = shape.reduce((a, b) => a * b, 1) * 2;
    header[name] = { dtype: 'F16', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let text = JSON.stringify(header);
  text += ' '.repeat((8 - (text.length % 8)) % 8);
  const headerBytes = new TextEncoder().encode(text);
  const file = new Uint8Array(8 + headerBytes.length + offset);
  new DataView(file.buffer).setBigUint64(0, BigInt(headerBytes.length), true);
  file.set(headerBytes, 8);
  const halves = new Uint16Array(file.buffer, 8 + headerBytes.length, offset / 2);
  // float16 bits of 0.01·k for k = -8..8 (0x211f is 0.01).
  const palette = Array.from({ length: 17 }, (_, k) => {
    const value = 0.01 * (k - 8);
    const f32 = new Float32Array([value]);
    const u = new Uint32Array(f32.buffer)[0];
    const sign = (u >>> 16) & 0x8000;
    const exponent = ((u >>> 23) & 0xff) - 127 + 15;
    return value === 0 ? 0 : sign | (exponent << 10) | ((u >>> 13) & 0x3ff);
  });
  for (let i = 0; i < halves.length; i += 1) halves[i] = palette[(i * 7) % 17];
  return file;
}

// A fresh module instance and its WebAssembly.Memory.
async function freshInstance() {
  const factory = (await import(`../../dist/wasm/minimind.mjs?instance=${Math.random()}`)).default;
  const wasmBinary = await readFile(new URL('../../dist/wasm/minimind.wasm', import.meta.url));
  let memory = null;
  const original = WebAssembly.instantiate;
  WebAssembly.instantiate = async function capture(source, imports) {
    const result = await original.call(this, source, imports);
    const instance = result.instance ?? result;
    memory = Object.values(instance.exports).find((e) => e instanceof WebAssembly.Memory) ?? memory;
    return result;
  };
  try {
    const module = await factory({ wasmBinary });
    return { module, memory };
  } finally {
    WebAssembly.instantiate = original;
  }
}

export async function measureLoadMemory(presetName) {
  const mm = await loadMiniMind();
  const config = mm.presetConfig(presetName);
  const file = float16Safetensors(checkpointTensors(config));
  const configText = JSON.stringify(config);
  const results = { preset: presetName, fileBytes: file.length };

  {
    const { module, memory } = await freshInstance();
    const { loadMiniMind: load } = await import(`../../js/minimind.mjs?streamed=${Math.random()}`);
    const api = await load({ moduleFactory: () => Promise.resolve(module) });
    const before = memory.buffer.byteLength;
    const model = api.loadModel({ config: configText, weights: file });
    results.storedBytes = model.info().stored_weights.bytes;
    results.storage = model.info().stored_weights.tensors_by_storage;
    results.streamed = { before, peak: memory.buffer.byteLength };
    model.forward([1, 2, 3]);
    results.streamed.afterForward = memory.buffer.byteLength;
    model.dispose();
  }
  {
    const { module, memory } = await freshInstance();
    const before = memory.buffer.byteLength;
    const native = module.NativeModel.fromSafetensors(configText, file);
    results.whole = { before, peak: memory.buffer.byteLength };
    native.delete();
  }
  results.limit = results.storedBytes + 64 * MiB;
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await measureLoadMemory(preset);
  if (asJson) {
    console.log(JSON.stringify(r));
  } else {
    const m = (bytes) => `${(bytes / MiB).toFixed(1)} MiB`;
    console.log(`${r.preset}: F16 file ${m(r.fileBytes)}, weights in memory ${m(r.storedBytes)} (${JSON.stringify(r.storage)})`);
    console.log(
      `  streamed load: Wasm memory ${m(r.streamed.before)} -> peak ${m(r.streamed.peak)} (after a forward ${m(r.streamed.afterForward)})`,
    );
    console.log(`  whole-file load: Wasm memory ${m(r.whole.before)} -> peak ${m(r.whole.peak)}`);
    console.log(`  limit (weights + 64 MiB): ${m(r.limit)}; streamed ${r.streamed.peak <= r.limit ? 'within' : 'OVER'}`);
  }
}
