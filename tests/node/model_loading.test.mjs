// The page's record of which model the worker holds (web/panels/model_loading.mjs)
// against a stand-in client and store: when a load fails after the worker
// finished a load the page had already replaced, the page loads what it showed
// again (the files of a model from files, read from their File once more).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { setupModelLoading } from '../../web/panels/model_loading.mjs';
import { DEFAULTS } from '../../web/url_state.mjs';

const INFO = { num_hidden_layers: 2, num_attention_heads: 4 };

function fakeStore(initial) {
  let state = { ...initial };
  return {
    get: () => state,
    set(patch) {
      state = { ...state, ...patch };
    },
  };
}

// The client as model_client.mjs: inUse is the record of what the worker last loaded.
function fakeClient() {
  return {
    inUse: null,
    loads: [],
    reloads: [],
    load(spec) {
      this.loads.push(spec);
      return this.loads.length;
    },
    reload(record) {
      this.reloads.push(record);
      return 100 + this.reloads.length;
    },
  };
}

function setup() {
  const store = fakeStore({
    ...DEFAULTS,
    preset: 'lab-a',
    lang: 'en',
    model: { status: 'building', fraction: 0, info: null, error: null },
    files: null,
    filesStatus: null,
    notice: null,
  });
  const client = fakeClient();
  const computed = [];
  const loading = setupModelLoading({
    store,
    t: (key, params) => `${key} ${JSON.stringify(params ?? {})}`,
    client,
    inlineModel: { prepare() {} },
    input: { compute: () => computed.push(store.get().files?.name ?? store.get().preset), computeKey: () => 'key' },
    defaultRowWanted: false,
  });
  return { store, client, loading, computed };
}

// A model from files, loaded and shown: {weights, config} stand for the File objects.
function loadFilesModel({ store, client, loading }) {
  const chosen = { weights: { name: 'model.safetensors' }, config: { name: 'config.json' } };
  loading.filesChosen(chosen);
  const record = { files: { config: '{}' }, weightsFile: chosen.weights, name: 'model.safetensors' };
  client.inUse = record;
  loading.loaded({ info: INFO, files: { config: '{}' }, demo: null, runtime: null });
  assert.equal(store.get().files.name, 'model.safetensors');
  return { chosen, record };
}

test('a failed load after a replaced one finished in the worker loads the files shown again', () => {
  const context = setup();
  const { store, client, loading } = context;
  const { chosen, record } = loadFilesModel(context);

  // lab-b is asked for, then the trained model; the worker finishes lab-b (the page
  // no longer waits for it) and the trained model's download fails.
  loading.choose({ preset: 'lab-b', config: null });
  client.inUse = { spec: { preset: 'lab-b', seed: 0, config: null } };
  loading.choose({ preset: 'minimind-demo', config: null });
  assert.doesNotThrow(() => loading.failed('load', 'HTTP 503', { load: { spec: { preset: 'minimind-demo' } } }));

  assert.deepEqual(client.reloads, [record], 'the files shown are read again from their File');
  assert.equal(store.get().filesStatus.name, 'model.safetensors');
  assert.equal(loading.loadingFiles, chosen);

  // They load: the page shows them, on the view it had.
  client.inUse = record;
  loading.loaded({ info: INFO, files: { config: '{}' }, demo: null, runtime: null });
  assert.equal(store.get().files.name, 'model.safetensors');
  assert.equal(store.get().model.status, 'ready');
});

test('a failed load after a replaced one finished in the worker loads the preset shown again', () => {
  const context = setup();
  const { store, client, loading } = context;
  client.inUse = { spec: { preset: 'lab-a', seed: 0, config: null } };
  loading.loaded({ info: INFO, files: null, demo: null, runtime: null });

  loading.choose({ preset: 'lab-b', config: null });
  client.inUse = { spec: { preset: 'lab-b', seed: 0, config: null } };
  loading.choose({ preset: 'minimind-demo', config: null });
  loading.failed('load', 'HTTP 503', { load: { spec: { preset: 'minimind-demo' } } });

  assert.deepEqual(client.loads.at(-1), { preset: 'lab-a', seed: 0, config: null });
  assert.equal(store.get().preset, 'lab-a');
  assert.deepEqual(client.reloads, []);
});

test('a failed load with the worker still on the model shown goes back to it at once', () => {
  const context = setup();
  const { store, client, loading } = context;
  loadFilesModel(context);
  loading.choose({ preset: 'minimind-demo', config: null });
  loading.failed('load', 'HTTP 503', { load: { spec: { preset: 'minimind-demo' } } });

  assert.deepEqual([client.loads.length, client.reloads.length], [1, 0], 'nothing is loaded again');
  assert.equal(store.get().files.name, 'model.safetensors');
  assert.equal(store.get().model.status, 'ready');
  assert.match(store.get().notice.text, /^model\.loadFailed /);
});
