// The Train panel's store of saved runs (web/train/run_store.mjs) against a
// stand-in IndexedDB whose transactions finish, fail for quota, or never
// finish: every save settles with a result, and the store stays usable.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { RunStore, failureReason } from '../../web/train/run_store.mjs';

// A minimal IndexedDB: one database; a readwrite transaction's puts are applied when it
// completes. outcome(): 'complete', 'quota' (aborts with QuotaExceededError) or 'never'.
function fakeIndexedDB(outcome) {
  const stores = new Map();
  const log = { aborted: 0 };
  const db = {
    objectStoreNames: { contains: (name) => stores.has(name) },
    createObjectStore: (name) => stores.set(name, new Map()),
    transaction(names) {
      const pending = [];
      const tx = {
        error: null,
        objectStore: (name) => ({
          put: (value, key) => pending.push(() => stores.get(name).set(key, value)),
          getAll() {
            const request = {};
            setTimeout(() => {
              request.result = [...stores.get(name).values()];
              request.onsuccess?.();
            }, 0);
            return request;
          },
        }),
        abort() {
          log.aborted += 1;
          tx.error = new DOMException('the transaction was aborted', 'AbortError');
          setTimeout(() => tx.onabort?.(), 0);
        },
      };
      const how = outcome();
      setTimeout(() => {
        if (how === 'complete') {
          for (const apply of pending) apply();
          tx.oncomplete?.();
        } else if (how === 'quota') {
          tx.error = new DOMException('the quota was exceeded', 'QuotaExceededError');
          tx.onabort?.();
        }
      }, 5);
      assert.ok(names.length > 0);
      return tx;
    },
  };
  const indexedDB = {
    open() {
      const request = { result: db };
      setTimeout(() => {
        request.onupgradeneeded?.();
        request.onsuccess?.();
      }, 0);
      return request;
    },
  };
  return { indexedDB, log };
}

const run = (step) => ({ savedAt: step, model: {}, history: {} });

test('a save that finishes is listed; one over quota says quota; the store stays usable', async () => {
  let next = 'complete';
  const { indexedDB } = fakeIndexedDB(() => next);
  const store = await RunStore.open({ indexedDB, locks: null, storage: null });
  assert.equal(store.problem, null);
  assert.deepEqual(await store.save('a', run(1), { step: 1 }), { ok: true });
  next = 'quota';
  const full = await store.save('b', run(2), { step: 2 });
  assert.equal(full.ok, false);
  assert.equal(full.reason, 'quota');
  next = 'complete';
  assert.deepEqual(await store.save('c', run(3), { step: 3 }), { ok: true });
  assert.deepEqual(
    (await store.list()).map((entry) => entry.id),
    ['c', 'a'],
    'newest first; the failed save left nothing',
  );
});

test('a write the browser never finishes is aborted at the deadline and fails with a message', async () => {
  let next = 'never';
  const { indexedDB, log } = fakeIndexedDB(() => next);
  const store = await RunStore.open({ indexedDB, locks: null, storage: null, deadlineMs: 40 });
  const result = await store.save('a', run(1), { step: 1 });
  assert.equal(result.ok, false);
  assert.equal(result.reason, 'failed');
  assert.match(result.message, /did not finish writing the run within 0\.04 s/);
  assert.equal(log.aborted, 1, 'the transaction was aborted');
  next = 'complete';
  assert.deepEqual(await store.save('a', run(2), { step: 2 }), { ok: true }, 'the next save goes through');
  assert.equal((await store.list()).length, 1);
});

test('no IndexedDB: the store opens with a problem, and saves say so', async () => {
  const store = await RunStore.open({ indexedDB: null, locks: null, storage: null });
  assert.equal(store.problem.reason, 'unavailable');
  const result = await store.save('a', run(1), { step: 1 });
  assert.equal(result.ok, false);
  assert.equal(result.reason, 'unavailable');
  assert.deepEqual(await store.list(), []);
  assert.equal(failureReason(new DOMException('x', 'QuotaExceededError')), 'quota');
  assert.equal(failureReason(new DOMException('blocked', 'SecurityError')), 'unavailable');
  assert.equal(failureReason(new Error('disk on fire')), 'failed');
});
