// The shipped models/timelines/induction.json, the induction recipe's run
// as the Train panel records it: its shape (an entry at batch 0, every
// ⌊batches / 100⌋ and at the end, within 8 MiB, an induction head forming
// in it), and its first two entries made again by
// scripts/recipe_timeline.mjs --check, bit for bit.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { ROLE_THRESHOLDS } from '../../js/head_roles.mjs';
import { TRAIN_RECIPES, recipeTokens } from '../../js/train_recipes.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FILE = `${ROOT}models/timelines/induction.json`;
const timeline = JSON.parse(readFileSync(FILE, 'utf8'));
const recipe = TRAIN_RECIPES.induction;

test("the induction recipe's timeline: every floor(batches / 100) batches to the end, within 8 MiB, an induction head forming", () => {
  assert.ok(statSync(FILE).size <= 8 * 2 ** 20, `${statSync(FILE).size} bytes`);
  const every = Math.floor(recipe.batches / 100);
  assert.equal(timeline.every, every);
  const steps = timeline.snapshots.map((e) => e.step);
  const expected = [];
  for (let s = 0; s < recipe.batches; s += every) expected.push(s);
  expected.push(recipe.batches);
  assert.deepEqual(steps, expected);
  assert.equal(timeline.snapshots.at(-1).tokens, recipeTokens(recipe));
  const formed = timeline.snapshots.find((e) => Object.values(e.heads).some((h) => h.induction >= ROLE_THRESHOLDS.induction));
  assert.ok(formed, 'an induction head crosses its threshold');
});

test('its first two entries, made again by scripts/recipe_timeline.mjs, are the file’s, bit for bit', async () => {
  const every = String(timeline.every);
  const { stdout } = await promisify(execFile)(process.execPath, ['scripts/recipe_timeline.mjs', '--check', '--to', every], {
    cwd: ROOT,
    maxBuffer: 1 << 26,
  });
  assert.match(stdout, /2 entries made again equal/);
});
