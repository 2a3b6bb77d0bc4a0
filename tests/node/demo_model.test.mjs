// The committed demo model (models/minimind-demo/), measured fresh by the
// project's own probes against the targets its issue sets: the pronoun head
// finds the referent, the model predicts the referent's habit, previous-token
// and induction heads exist, and its files load and run from the CLI.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, statSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { GENDER, HABITS } from '../../js/corpus.mjs';
import { measureHeads } from '../../js/head_roles.mjs';
import { loadMiniMind } from '../../js/minimind.mjs';

const run = promisify(execFile);
const DIR = fileURLToPath(new URL('../../models/minimind-demo/', import.meta.url));
const CLI = fileURLToPath(new URL('../../js/cli.mjs', import.meta.url));

const mm = await loadMiniMind();
const model = mm.loadModel({
  config: readFileSync(join(DIR, 'config.json'), 'utf8'),
  weights: new Uint8Array(readFileSync(join(DIR, 'model.safetensors'))),
});
const tokenizer = mm.loadTokenizer(readFileSync(join(DIR, 'tokenizer.json'), 'utf8'));
// On the held-out probe seed heads.json records (scripts/demo_recipe.json),
// not the development seed 7 whose probes shaped the corpus and the model.
const committed = JSON.parse(readFileSync(join(DIR, 'heads.json'), 'utf8'));
const measured = measureHeads(model, tokenizer, { count: 500, seed: committed.probes.seed });

test('the pronoun head puts >= 0.6 of the pronoun on the referent (500 held-out sentences)', () => {
  const { layer, head } = measured.pronounHead;
  const score = measured.heads.find((h) => h.layer === layer && h.head === head).pronoun;
  assert.ok(score >= 0.6, `best pronoun head L${layer}H${head}: ${score.toFixed(3)}`);
});

test('the same head puts >= 0.5 on the right name in the lesson sentence and each of its three swaps', () => {
  assert.equal(measured.lesson.length, 4);
  for (const l of measured.lesson) assert.ok(l.mass >= 0.5, `${l.text}: ${l.mass.toFixed(3)} on ${l.referent}`);
});

test('the referent-dependent token after the pronoun is predicted in >= 95% of held-out sentences, and less without the head', () => {
  assert.ok(measured.referentAccuracy.on >= 0.95, `accuracy ${measured.referentAccuracy.on}`);
  assert.ok(measured.referentAccuracy.off < measured.referentAccuracy.on, 'switching the pronoun head off costs accuracy');
});

test('switching every pronoun head off costs at least as much as the best one alone', () => {
  const { pronounHeads, allOff, off } = measured.referentAccuracy;
  const { layer, head } = measured.pronounHead;
  assert.ok(
    pronounHeads.some(([l, h]) => l === layer && h === head),
    'the pronoun head is among them',
  );
  for (const [l, h] of pronounHeads) assert.ok(measured.heads.find((x) => x.layer === l && x.head === h).pronoun >= 0.5, `${l}:${h}`);
  assert.ok(allOff <= off, `${allOff} with all off, ${off} with one`);
});

const best = (key) => Math.max(...measured.heads.map((h) => h[key]));

test('some head is an induction head (>= 0.5)', () => {
  assert.ok(best('induction') >= 0.5, `induction ${best('induction').toFixed(3)}`);
});

test('some head is a previous-token head (>= 0.8)', () => {
  assert.ok(best('previousToken') >= 0.8, `previous-token ${best('previousToken').toFixed(3)}`);
});

test("the previous-token split by where i-1 starts a name adds up to the best head's score", () => {
  const { layer, head, afterNameStart, elsewhere } = measured.previousTokenSplit;
  const h = measured.heads.find((x) => x.layer === layer && x.head === head);
  assert.equal(h.previousToken, best('previousToken'));
  assert.ok(afterNameStart.queries > 0 && elsewhere.queries > 0);
  assert.equal(afterNameStart.queries + elsewhere.queries, measured.probes.previousToken);
  const mean = (afterNameStart.mass * afterNameStart.queries + elsewhere.mass * elsewhere.queries) / measured.probes.previousToken;
  // The core averages in float32.
  assert.ok(Math.abs(mean - h.previousToken) < 1e-6, `${mean} vs ${h.previousToken}`);
});

test('heads.json is what minimind heads measures on the committed weights', () => {
  assert.notEqual(committed.probes.seed, 7, 'heads.json is measured on the development seed');
  assert.deepEqual(committed.pronounHead, measured.pronounHead);
  assert.deepEqual(committed.referentAccuracy, measured.referentAccuracy);
  const split = committed.previousTokenSplit;
  assert.deepEqual([split.layer, split.head], [measured.previousTokenSplit.layer, measured.previousTokenSplit.head]);
  for (const key of ['afterNameStart', 'elsewhere']) {
    assert.equal(split[key].queries, measured.previousTokenSplit[key].queries);
    assert.ok(Math.abs(split[key].mass - measured.previousTokenSplit[key].mass) < 1e-6, `previousTokenSplit.${key}`);
  }
  for (const [i, h] of measured.heads.entries()) {
    for (const key of ['previousToken', 'induction', 'pronoun', 'entropy', 'sink']) {
      assert.ok(Math.abs(committed.heads[i][key] - h[key]) < 1e-6, `L${h.layer}H${h.head} ${key}`);
    }
  }
});

test('greedy generation from 小明把苹果给了 continues with a sentence of the corpus: a name, its pronoun, the referent habit', () => {
  const prompt = '小明把苹果给了';
  const generator = model.generator([1, ...tokenizer.encode(prompt)], { greedy: true });
  const ids = [];
  while (ids.length < 16 && !generator.finished) ids.push(generator.step({ trace: false }).token);
  generator.dispose();
  const text = prompt + tokenizer.decode(ids, { skipSpecialTokens: true });
  const m = /^小明把苹果给了(\p{Script=Han}{2})，(他|她)(.+?)[。，]/u.exec(text);
  assert.ok(m, `not a corpus sentence: ${text}`);
  const [, other, pronoun, rest] = m;
  assert.ok(GENDER[other], `${other} is a corpus name`);
  const referent = GENDER['小明'] === (pronoun === '他' ? 'male' : 'female') ? '小明' : other;
  assert.ok(
    rest.startsWith(HABITS[referent]) || /^(很开心|很高兴|笑了)/.test(rest),
    `${text}: after ${pronoun} expected ${HABITS[referent]}`,
  );
});

test('the model folder is at most 8 MB and runs from the CLI with the bos first', async () => {
  // The model's own files: the training timeline beside them (timeline.json, "how this model
  // learned") has its own bound of 8 MiB (tests/node/demo_timeline.test.mjs).
  const files = readdirSync(DIR).filter((f) => f !== 'timeline.json');
  assert.ok(files.includes('model.safetensors') && files.length === readdirSync(DIR).length - 1);
  const bytes = files.reduce((sum, f) => sum + statSync(join(DIR, f)).size, 0);
  assert.ok(bytes <= 8 * 2 ** 20, `${bytes} bytes`);
  const { stdout } = await run(process.execPath, [CLI, 'run', '--model', DIR, '--text', '小明把苹果给了小红，她很开心', '--json'], {
    maxBuffer: 64 * 2 ** 20, // the logits: 13 rows of 6400
  });
  const out = JSON.parse(stdout);
  assert.deepEqual(out.tokens.slice(0, 2), ['<|im_start|>', '小明']);
  assert.equal(out.attention.length, 4);
});
