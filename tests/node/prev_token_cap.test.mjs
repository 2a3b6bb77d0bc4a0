// js/prev_token_cap.mjs: the most a positional head can put on the
// previous token under q/k norm and RoPE grows with the norm weights' gain
// and with head_dim; a gain of 1 (the initialisation) keeps it under 0.8 at
// head_dim 16. normGains reads the q/k norm weights of a model file.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

import { normGains } from '../../bench/training/prev_token_cap.mjs';
import { previousTokenCap } from '../../js/prev_token_cap.mjs';

test('the previous-token cap of a positional head rises with the q/k norm gain and with head_dim', () => {
  const quick = { restarts: 2, iterations: 3000 };
  const at1 = previousTokenCap(16, 14, 1, quick);
  const at2 = previousTokenCap(16, 14, 2, quick);
  const wide = previousTokenCap(32, 14, 1, quick);
  assert.ok(at1 > 0.3 && at1 < 0.8, `head_dim 16, gain 1: ${at1}`);
  assert.ok(at2 > 0.9, `head_dim 16, gain 2: ${at2}`);
  assert.ok(wide > at1, `head_dim 32 (${wide}) above head_dim 16 (${at1})`);
  // Longer sequences have more keys to share the weight with.
  assert.ok(previousTokenCap(16, 40, 1, quick) < at1);
});

test('normGains reads the RMS of every q/k norm weight of a model file', () => {
  const file = fileURLToPath(new URL('../../models/minimind-demo/model.safetensors', import.meta.url));
  const { min, max, count } = normGains(file);
  assert.equal(count, 8, 'q_norm and k_norm of 4 layers');
  assert.ok(min > 0.5 && min <= max && max < 4, `${min}..${max}`);
});
