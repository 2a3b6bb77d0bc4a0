// The GGUF files bench/speed/make_gguf.mjs writes for the llama.cpp benchmark run
// the same model in llama.cpp (the @wllama/wllama package, in Chromium) as in
// ours: for a config with q/k norm (llama.cpp's qwen3) and one without
// (qwen2 with zero biases), float32 and float16 matrices, both write the
// same 8 greedy tokens after each of 3 prompts (with float16 matrices
// llama.cpp rounds the activations to float16 too, so there only the first
// 4 must agree). A wrong tensor name, shape, order or hyperparameter changes
// them (or llama.cpp refuses the file).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

import { seededGguf } from '../../bench/speed/make_gguf.mjs';
import { oneTokenText } from '../../bench/speed/one_token_text.mjs';
import { openPage, useServedBrowser } from './browser.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const served = useServedBrowser(root);
const DIR = 'build/test-gguf';

const SMALL = { hidden_size: 64, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, vocab_size: 6400 };
const CASES = [
  { name: 'gen3', config: { ...SMALL, use_qk_norm: true, intermediate_size: 192, rope_theta: 1e6 } },
  { name: 'gen2', config: { ...SMALL, use_qk_norm: false, intermediate_size: 192, rope_theta: 1e4, rms_norm_eps: 1e-5 } },
];
// 24 characters that are one token each and never merge: the same ids in both tokenizers.
const PROMPTS = [0, 4, 9].map((variant) => oneTokenText(24, variant));

for (const { name, config } of CASES) {
  for (const dtype of ['F32', 'F16']) {
    test(`a ${name} GGUF (${dtype}) is the same model in llama.cpp as in ours`, async () => {
      mkdirSync(`${root}${DIR}`, { recursive: true });
      const file = `${DIR}/${name}.${dtype.toLowerCase()}.gguf`;
      // Seeded at MiniMind's init and then float16-rounded (createModel's seeded weights are float16 values).
      writeFileSync(`${root}${file}`, await seededGguf({ config, seed: 3, init: 'minimind', dtype }));
      const { page, errors } = await openPage(served.context, `${served.url}bench/speed/wllama_page.html`);
      await page.waitForFunction(() => document.getElementById('status').textContent === 'ready', null, { timeout: 60000 });
      const spec = { prefill: [], decode: { prompt: 24, steps: 2 }, reps: 1 };
      const theirs = await page.evaluate((s) => window.benchWllama(s), { ...spec, url: `/${file}`, threads: 1, prompts: { 24: PROMPTS } });
      const ids = await page.evaluate(async (texts) => {
        const { loadMiniMind } = await import('/js/minimind.mjs');
        const mm = await loadMiniMind({ variant: 'simd' });
        const tokenizer = mm.loadTokenizer(await (await fetch('/models/minimind-tokenizer/tokenizer.json')).text());
        return texts.map((text) => Array.from(tokenizer.encode(text)));
      }, PROMPTS);
      for (const list of ids) assert.equal(list.length, 24);
      const ours = await page.evaluate((s) => window.benchOurs(s), {
        ...spec,
        config,
        seed: 3,
        init: 'minimind',
        threads: 1,
        weightStorage: 'float32',
        ids: { 24: ids },
      });
      await page.close();
      assert.deepEqual(errors, []);
      assert.equal(theirs.greedy.length, 3);
      if (dtype === 'F32') assert.deepEqual(theirs.greedy, ours.greedy, 'greedy continuations');
      else
        ours.greedyHalf.forEach((half, v) =>
          assert.ok(theirs.greedy[v].startsWith(half), `llama.cpp ${theirs.greedy[v]}, ours ${ours.greedy[v]}`),
        );
      // Not a degenerate check: the three prompts do not all continue alike.
      assert.ok(new Set(ours.greedy).size > 1, `greedy continuations ${JSON.stringify(ours.greedy)}`);
    });
  }
}
