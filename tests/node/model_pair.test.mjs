// The one load path of a model and its tokenizer (js/model_pair.mjs): a load
// that fails disposes what it built and leaves the model in use untouched.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { MiniMindError, loadMiniMind } from '../../js/minimind.mjs';
import { buildModelPair, replaceModel } from '../../js/model_pair.mjs';

const mm = await loadMiniMind();
const TOKENIZER = readFileSync(new URL('../../models/minimind-tokenizer/tokenizer.json', import.meta.url), 'utf8');

// A module whose models and tokenizers count their disposals.
function counting() {
  const disposed = { model: 0, tokenizer: 0 };
  const wrap = (thing, kind) => {
    const dispose = thing.dispose.bind(thing);
    thing.dispose = () => {
      disposed[kind] += 1;
      dispose();
    };
    return thing;
  };
  return {
    disposed,
    mm: {
      loadTokenizer: (text) => wrap(mm.loadTokenizer(text), 'tokenizer'),
      createModel: (spec) => wrap(mm.createModel(spec), 'model'),
    },
  };
}

test('a model with a tokenizer it can read comes back with both', () => {
  const { mm: counted, disposed } = counting();
  const config = { ...mm.presetConfig('lab-b'), vocab_size: 6400 }; // MiniMind's tokenizer's ids
  const pair = buildModelPair(counted, { build: () => counted.createModel({ config, seed: 1 }), tokenizer: TOKENIZER });
  assert.deepEqual([pair.info.vocab_size, pair.tokenizer.vocabSize], [6400, 6400]);
  assert.equal(pair.tokenizerText, TOKENIZER);
  assert.deepEqual(disposed, { model: 0, tokenizer: 0 });
  pair.model.dispose();
  pair.tokenizer.dispose();
});

test('a tokenizer with more ids than the model: a MiniMindError naming both sizes, and nothing kept', () => {
  const { mm: counted, disposed } = counting();
  // lab-a has 128 ids; MiniMind's tokenizer 6400.
  assert.throws(
    () => buildModelPair(counted, { build: () => counted.createModel({ preset: 'lab-a', seed: 1 }), tokenizer: TOKENIZER }),
    (error) =>
      error instanceof MiniMindError &&
      error.kind === 'tokenizer.vocab_mismatch' &&
      error.values.tokenizer === 6400 &&
      error.values.model === 128,
  );
  assert.deepEqual(disposed, { model: 1, tokenizer: 1 });
});

test('a build the core refuses, or one the holder does not accept, disposes the tokenizer read before it', () => {
  const { mm: counted, disposed } = counting();
  assert.throws(() =>
    buildModelPair(counted, { build: () => counted.createModel({ preset: 'no-such-preset', seed: 1 }), tokenizer: TOKENIZER }),
  );
  assert.deepEqual(disposed, { model: 0, tokenizer: 1 });
  assert.throws(
    () =>
      buildModelPair(counted, {
        build: () => counted.createModel({ preset: 'lab-b', seed: 1 }),
        accept: (info) => {
          if (info.num_hidden_layers === 2) throw new Error('two layers are not wanted here');
        },
      }),
    /two layers are not wanted here/,
  );
  assert.deepEqual(disposed, { model: 1, tokenizer: 1 });
});

test('replaceModel disposes the model in use only when handed the new one', () => {
  const { mm: counted, disposed } = counting();
  const first = buildModelPair(counted, { build: () => counted.createModel({ preset: 'lab-a', seed: 1 }) });
  let holding = replaceModel({ model: null, tokenizer: null }, first);
  assert.throws(() => buildModelPair(counted, { build: () => counted.createModel({ preset: 'no-such-preset', seed: 1 }) }));
  assert.deepEqual(disposed, { model: 0, tokenizer: 0 });
  assert.equal(holding.model.info().hidden_size, 64, 'the model in use still answers');
  const second = buildModelPair(counted, { build: () => counted.createModel({ preset: 'lab-b', seed: 1 }) });
  holding = replaceModel(holding, second);
  assert.deepEqual(disposed, { model: 1, tokenizer: 0 });
  assert.equal(holding.model.info().hidden_size, 96);
  holding.model.dispose();
});
