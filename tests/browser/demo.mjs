// The trained model (models/minimind-demo/) in Node, through the JS API, for
// the browser tests' expected numbers: its text is read as the page and the
// element read it (js/text_encoding.mjs: the bos, then MiniMind's tokenizer),
// and what each head does comes from its heads.json.
import { readFile } from 'node:fs/promises';

import { loadMiniMind } from '../../js/minimind.mjs';
import { lessonPositions, tokenizeText } from '../../web/demo_model.mjs';

const DIR = new URL('../../models/minimind-demo/', import.meta.url);
const loading = new Map(); // variant -> Promise

/**
 * {mm, model, tokenizer, heads, sentence, kvHeadOf}: the model, its tokenizer, heads.json, the lesson
 * sentence's positions, and the kv head a q head reads (repeat_kv). variant: the build, by default the one
 * the page picks in Chromium ('auto': the relaxed build); 'simd' for the single-file element.
 */
export function trainedModel({ variant = 'auto' } = {}) {
  if (!loading.has(variant)) loading.set(variant, load(variant));
  return loading.get(variant);
}

async function load(variant) {
  const mm = await loadMiniMind({ variant });
  const [config, weights, tokenizerJson, headsJson] = await Promise.all([
    readFile(new URL('config.json', DIR), 'utf8'),
    readFile(new URL('model.safetensors', DIR)),
    readFile(new URL('tokenizer.json', DIR), 'utf8'),
    readFile(new URL('heads.json', DIR), 'utf8'),
  ]);
  const model = mm.loadModel({ config, weights });
  const tokenizer = mm.loadTokenizer(tokenizerJson);
  const heads = JSON.parse(headsJson);
  const { num_attention_heads: q, num_key_value_heads: kv } = JSON.parse(config);
  const kvHeadOf = (head) => Math.floor(head / (q / kv));
  return { mm, model, tokenizer, heads, sentence: lessonPositions(tokenizer, heads.lesson[0]), kvHeadOf };
}

/** {tokens, ids, rows}: the trained model's matrix of `stage` at (layer, head) for `text`, rows = queries. */
export async function trainedMatrix({ text, layer, head, stage = 'attn_weights', causal = true, ablate, variant }) {
  const { model, tokenizer } = await trainedModel({ variant });
  const { tokens, ids } = tokenizeText(tokenizer, text, 128);
  const options = { trace: { layers: [layer], stages: [stage] }, causalMask: causal, ...(ablate ? { ablate } : {}) };
  const data = model.forward(ids, options).trace.get(layer, stage).data;
  const T = ids.length;
  return { tokens, ids, rows: Array.from({ length: T }, (_, i) => Array.from(data.subarray((head * T + i) * T, (head * T + i + 1) * T))) };
}
