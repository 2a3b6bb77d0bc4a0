// The golden fixtures of the native tests, through the Wasm module (the SIMD
// build and the relaxed one): logits and every attention weight within 1e-5
// abs + 1e-4 rel, greedy tokens exact.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { GOLDEN_CASES, assertClose, loadCase, rows } from './helpers.mjs';
import { loadVariants } from './variants.mjs';

for (const [variant, mm] of await loadVariants()) {
  for (const name of GOLDEN_CASES) {
    test(`golden ${name} (${variant}): logits and attention weights match the PyTorch reference`, () => {
      const c = loadCase(name);
      const model = mm.loadModel({ config: c.config, weights: c.weights });
      try {
        const ids = rows(c.expected.tensors.input_ids);
        const options = { trace: { layers: 'all', stages: ['attn_weights'] } };
        if (c.expected.tensors.attention_mask) options.attentionMask = rows(c.expected.tensors.attention_mask);
        const { logits, trace } = model.forward(ids, options);
        assert.deepEqual(logits.shape, c.expected.tensors.logits.shape);
        const logitDiff = assertClose(logits.data, c.expected.tensors.logits.data, { what: `${name} logits` });
        let attentionDiff = 0;
        for (let layer = 0; layer < model.info().num_hidden_layers; layer += 1) {
          const expected = c.expected.tensors[`attn_weights.${layer}`];
          const weights = trace.get(layer, 'attn_weights');
          assert.deepEqual(weights.shape, expected.shape);
          attentionDiff = Math.max(attentionDiff, assertClose(weights.data, expected.data, { what: `${name} attn_weights.${layer}` }));
        }
        console.log(
          `# ${name} (${variant}): max abs diff logits ${logitDiff.toExponential(2)}, attention ${attentionDiff.toExponential(2)}`,
        );
      } finally {
        model.dispose();
      }
    });

    test(`golden ${name} (${variant}): greedy generation with the KV cache gives the reference tokens`, () => {
      const c = loadCase(name);
      const model = mm.loadModel({ config: c.config, weights: c.weights });
      const maxNew = Number(c.expected.metadata.greedy_max_new_tokens);
      const prompt = Array.from(c.expected.tensors['greedy.prompt'].data);
      const run = (repetitionPenalty) => {
        const generator = model.generator(prompt, { greedy: true, repetitionPenalty });
        const tokens = [];
        while (tokens.length < maxNew && !generator.finished) tokens.push(generator.step({ trace: false }).token);
        generator.dispose();
        return tokens;
      };
      try {
        assert.deepEqual(run(1.0), Array.from(c.expected.tensors['greedy.ids'].data));
        assert.deepEqual(run(Number(c.expected.metadata.repetition_penalty)), Array.from(c.expected.tensors['greedy_penalty.ids'].data));
      } finally {
        model.dispose();
      }
    });

    test(`golden ${name} (${variant}): each cached decoding step gives the logits of a forward over the whole text`, () => {
      const c = loadCase(name);
      const model = mm.loadModel({ config: c.config, weights: c.weights });
      const prompt = Array.from(c.expected.tensors['greedy.prompt'].data);
      const generator = model.generator(prompt, { greedy: true });
      try {
        const ids = [...prompt];
        for (let step = 0; step < 4 && !generator.finished; step += 1) {
          const { token, logits } = generator.step({ trace: false });
          const { logits: full } = model.forward(ids);
          const V = full.shape.at(-1);
          assertClose(logits, full.data.subarray((ids.length - 1) * V, ids.length * V), { what: `${name} step ${step}` });
          ids.push(token);
        }
      } finally {
        generator.dispose();
        model.dispose();
      }
    });
  }
}
