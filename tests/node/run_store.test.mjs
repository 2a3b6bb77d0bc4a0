// The Train panel's store of saved runs (web/train/run_store.mjs) against a
// stand-in IndexedDB whose transactions finish, fail for quota, or never
// finish: every save settles with a result, and the store stays usable.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { RunAutosave } from '../../web/train/run_autosave.mjs';
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

// Web Locks stand-ins: `held` names are taken by another tab; refusing: every request
// rejects, as navigator.locks does in a sandboxed frame.
function fakeLocks({ held = [], refusing = false } = {}) {
  const taken = new Set(held);
  return {
    async request(name, options, callback) {
      if (refusing) throw new DOMException('locks are not allowed in this frame', 'SecurityError');
      if (taken.has(name) && options.ifAvailable) return callback(null);
      taken.add(name);
      await callback({ name });
      taken.delete(name);
    },
    async query() {
      return { held: [...taken].map((name) => ({ name })) };
    },
  };
}

test('a refused lock request does not claim a saved run, and says so; a free lock claims it', async () => {
  const { indexedDB } = fakeIndexedDB(() => 'complete');
  const refusing = await RunStore.open({ indexedDB, locks: fakeLocks({ refusing: true }), storage: null });
  assert.equal(refusing.locksRefused, false);
  assert.equal(await refusing.claim('saved-run'), null, 'nobody can tell whether another tab trains it');
  assert.equal(refusing.locksRefused, true, 'the reason is kept for the message');

  const free = await RunStore.open({ indexedDB, locks: fakeLocks(), storage: null });
  const release = await free.claim('saved-run');
  assert.equal(typeof release, 'function');
  assert.deepEqual([...(await free.liveIds())], ['saved-run']);
  assert.equal(await free.claim('saved-run'), null, 'held: live in another tab');
  assert.equal(free.locksRefused, false, 'held is not refused');
  release();
});

test('where locks are refused, a new run is still kept and autosaved; a saved run is not adopted', async () => {
  const { indexedDB } = fakeIndexedDB(() => 'complete');
  const store = await RunStore.open({ indexedDB, locks: fakeLocks({ refusing: true }), storage: null });
  const results = [];
  const autosave = new RunAutosave({
    store,
    capture: async () => ({ model: {} }),
    pagePart: () => ({ summary: { step: 3 }, history: {} }),
    onResult: (result) => results.push(result),
    target: {},
  });
  assert.equal(await autosave.adopt('saved-run', 2), false, 'a saved run: may be open elsewhere');
  assert.equal(autosave.id, null);
  assert.equal(await autosave.save(), null, 'nothing kept, nothing saved');

  assert.equal(await autosave.adopt('new-run', -1, { fresh: true }), true);
  assert.equal(autosave.id, 'new-run');
  assert.deepEqual(await autosave.save(), { ok: true, step: 3 });
  assert.deepEqual(
    (await store.list()).map((entry) => entry.id),
    ['new-run'],
  );
  assert.deepEqual(results, [{ ok: true, step: 3 }]);
});
