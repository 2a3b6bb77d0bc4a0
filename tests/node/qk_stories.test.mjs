// js/qk_stories.mjs: the sums and spreads of the "why this weight" stories on
// hand-made tables, and the demo model's qk_stories.json (which the model
// card and the gallery read) equal to what the measurement computes now.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { loadMiniMind } from '../../js/minimind.mjs';
import {
  countNameStarts,
  inductionReading,
  keySide,
  measureQkStories,
  pronounCell,
  pronounReading,
  querySide,
  spread,
  summariseKeySide,
} from '../../js/qk_stories.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DEMO = join(ROOT, 'models/minimind-demo');
const json = (path) => JSON.parse(readFileSync(path, 'utf8'));

const close = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);

test('spread: mean, population standard deviation, min and max', () => {
  const s = spread([1, 2, 3, 4]);
  assert.equal(s.n, 4);
  assert.equal(s.mean, 2.5);
  close(s.sd, Math.sqrt(1.25), 'sd'); // ((1.5² + 0.5²) · 2) / 4
  assert.equal(s.min, 1);
  assert.equal(s.max, 4);
  assert.deepEqual(spread([-0.21, -0.21]), { n: 2, mean: -0.21, sd: 0, min: -0.21, max: -0.21 });
  assert.equal(spread([]).n, 0);
  assert.ok(Number.isNaN(spread([]).mean));
});

test('the key side sums each column over the query side, the query side each row; both add up to the table', () => {
  // q-side rows × k-side columns: embed, L0H0, L0ffn.
  const nested = [
    [1, 2, 3],
    [4, 5, 6],
    [7, 8, 9],
  ];
  const flat = new Float32Array(nested.flat());
  assert.deepEqual(keySide(nested), [12, 15, 18]);
  assert.deepEqual(keySide(flat, 3), [12, 15, 18]);
  assert.deepEqual(querySide(nested), [6, 15, 24]);
  assert.deepEqual(querySide(flat, 3), [6, 15, 24]);
  const total = nested.flat().reduce((a, b) => a + b, 0);
  assert.equal(
    keySide(nested).reduce((a, b) => a + b, 0),
    total,
  );
  assert.equal(
    querySide(nested).reduce((a, b) => a + b, 0),
    total,
  );
});

test('summariseKeySide: each component its parts spread, shares of the mean contrast adding up to 1, largest first', () => {
  const components = ['embed', 'L0H0', 'L0ffn'];
  // Cell 1: key side [1, 4, -1] (contrast 4); cell 2: [3, 2, 1] (contrast 6).
  const cells = [
    {
      contrast: 4,
      weight: 0.5,
      components,
      table: [
        [1, 3, 0],
        [0, 1, -1],
        [0, 0, 0],
      ],
    },
    {
      contrast: 6,
      weight: 0.7,
      components,
      table: [
        [2, 2, 0],
        [1, 0, 1],
        [0, 0, 0],
      ],
    },
  ];
  const s = summariseKeySide(cells);
  assert.equal(s.cells, 2);
  assert.equal(s.contrast.mean, 5);
  assert.equal(s.contrast.sd, 1);
  assert.equal(s.notAbove, 0);
  assert.equal(summariseKeySide([{ ...cells[0], contrast: -1 }, cells[1]]).notAbove, 1);
  close(s.weight.mean, 0.6, 'weight');
  assert.deepEqual(
    s.parts.map((p) => p.component),
    ['L0H0', 'embed', 'L0ffn'],
  );
  const [l0h0, embed, ffn] = s.parts;
  assert.deepEqual([l0h0.mean, l0h0.min, l0h0.max, l0h0.sd], [3, 2, 4, 1]);
  assert.deepEqual([embed.mean, embed.min, embed.max, embed.sd], [2, 1, 3, 1]);
  assert.deepEqual([ffn.mean, ffn.min, ffn.max, ffn.sd], [0, -1, 1, 1]);
  assert.equal(l0h0.share, 0.6);
  assert.equal(embed.share, 0.4);
  assert.equal(
    s.parts.reduce((a, p) => a + p.share, 0),
    1,
  );
  // The largest part: L0H0 in cell 1, embed in cell 2.
  assert.deepEqual(s.largest, { embed: 1, L0H0: 1, L0ffn: 0 });
  assert.throws(() => summariseKeySide([]), RangeError);
});

test('countNameStarts: a token that starts a name of each gender is counted once, as both', () => {
  const starts = { female: new Set([10, 11, 12]), male: new Set([12, 20]) };
  assert.deepEqual(countNameStarts([10, 12, 20, 30, 11], starts), { female: 2, male: 1, both: 1, neither: 1 });
});

test("pronounCell: the key's rank, the top tokens' name starts, content and distance adding up to the score", () => {
  const answer = {
    score: 5,
    weight: 0.8,
    versus: { score: 3 },
    ranked: [
      { id: 7, score: 6 },
      { id: 3, score: 5.5 },
      { id: 9, score: 5 },
      { id: 4, score: 1 },
    ],
    ropePairs: new Float32Array([1, 3.5, 0.5]),
    ropePairsUnrotated: new Float32Array([0.5, 2, 1]),
  };
  const starts = { female: new Set([7, 3]), male: new Set([9]) };
  const cell = pronounCell(answer, 9, starts, 3);
  assert.equal(cell.rank, 3);
  assert.deepEqual(
    cell.top.map((t) => t.id),
    [7, 3, 9],
  );
  assert.deepEqual(cell.starts, { female: 2, male: 1, both: 0, neither: 0 });
  assert.equal(cell.content, 3.5);
  assert.equal(cell.distance, 1.5);
  assert.equal(cell.content + cell.distance, cell.score);
  assert.equal(cell.contrast, 3);
  assert.deepEqual(cell.bestPair, { pair: 1, rotated: 3.5, unrotated: 2 });
  assert.equal(pronounCell(answer, 99, starts, 3).rank, null);
});

test('inductionReading: whether the previous-token head writes most of the key side, the largest part, or not', () => {
  const summary = (contrast, parts) => ({
    contrast: { mean: contrast },
    parts: parts.map(([component, share]) => ({ component, share, mean: share * contrast })),
  });
  const read = (s) => inductionReading(s, ['L1H1']).kind;
  assert.equal(
    read(
      summary(6, [
        ['L1H1', 0.7],
        ['embed', 0.3],
      ]),
    ),
    'most',
  );
  assert.equal(
    read(
      summary(6, [
        ['L1H1', 0.4],
        ['embed', 0.35],
        ['L0ffn', 0.25],
      ]),
    ),
    'largest',
  );
  assert.equal(
    read(
      summary(6, [
        ['embed', 0.6],
        ['L1H1', 0.4],
      ]),
    ),
    'not-largest',
  );
  assert.equal(
    read(
      summary(-1, [
        ['L1H1', 0.5],
        ['embed', 0.5],
      ]),
    ),
    'no-contrast',
  );
  assert.equal(
    read(
      summary(6, [
        ['embed', 0.6],
        ['L0H2', 0.4],
      ]),
    ),
    'none',
  );
  assert.equal(
    inductionReading(
      summary(6, [
        ['embed', 0.6],
        ['L1H1', 0.4],
      ]),
      ['L1H1'],
    ).previous.component,
    'L1H1',
  );
});

test("pronounReading: the top tokens counted against the pronoun's own gender", () => {
  const sentence = (pronoun, female, male) => ({
    pronoun,
    top: new Array(20),
    starts: { female, male, both: 0, neither: 20 - female - male },
  });
  assert.deepEqual(pronounReading(sentence('她', 12, 2)), { own: 12, other: 2, kind: 'own' });
  assert.deepEqual(pronounReading(sentence('他', 12, 2)), { own: 2, other: 12, kind: 'other' });
  assert.equal(pronounReading(sentence('她', 8, 2)).kind, 'mixed'); // more, but under half of the top
  assert.equal(pronounReading(sentence('他', 3, 3)).kind, 'mixed');
});

test('qk_stories.json, which the model card and the gallery read, is what the measurement computes on the demo model now', async () => {
  const recipe = json(join(ROOT, 'scripts/demo_recipe.json'));
  const mm = await loadMiniMind({ variant: 'simd' }); // as scripts/qk_stories.mjs: the same bits on every engine
  const model = mm.loadModel({
    config: readFileSync(join(DEMO, 'config.json'), 'utf8'),
    weights: new Uint8Array(readFileSync(join(DEMO, 'model.safetensors'))),
  });
  const tokenizer = mm.loadTokenizer(readFileSync(join(DEMO, 'tokenizer.json'), 'utf8'));
  try {
    // The seeds scripts/qk_stories.mjs measures: the development seed (the `heads` command's default) and the held-out one.
    const seeds = [recipe.probes.developmentSeed, recipe.probes.heldOutSeed];
    const measured = JSON.parse(JSON.stringify(measureQkStories(model, tokenizer, json(join(DEMO, 'heads.json')), { seeds })));
    assert.deepEqual(
      measured,
      json(join(DEMO, 'qk_stories.json')),
      'qk_stories.json is stale: run node scripts/qk_stories.mjs, then node scripts/model_card.mjs',
    );
    // 40 sequences of 20 tokens: 19 induction cells each, per seed and per induction head.
    for (const record of measured.induction) for (const h of record.heads) assert.equal(h.cells, 760, h.name);
    assert.equal(measured.pronoun.sentences.length, 4);
  } finally {
    tokenizer.dispose();
    model.dispose();
  }
});

test('the gallery\'s two "why this weight" captions and cells read qk_stories.json, in both languages', async () => {
  const stories = json(join(DEMO, 'qk_stories.json'));
  const { GALLERY_TEXT } = await import('../../web/gallery_text.mjs');
  const { SECTIONS } = await import('../../web/gallery.mjs');
  const she = stories.pronoun.sentences.find((s) => s.text === '小明把苹果给了小红，她很开心');
  const { en, 'zh-CN': zh } = GALLERY_TEXT;
  assert.ok(en['why-pronoun.caption'].includes(`小 itself scores ${she.score.toFixed(2)} and ranks ${she.rank}`));
  assert.ok(zh['why-pronoun.caption'].includes(`“小”本身得 ${she.score.toFixed(2)} 分，排第 ${she.rank}`));
  assert.ok(en['why-pronoun.caption'].includes(`${she.starts.female} of the 20 tokens`));
  const record = stories.induction.find((r) => r.seed === stories.figure.seed);
  const examples = Object.fromEntries(SECTIONS.flatMap((s) => s.examples).map((e) => [e.id, e]));
  const shown = record.heads.find(
    (h) => h.layer === examples['why-induction'].iframe.layer && h.head === examples['why-induction'].iframe.head,
  );
  const previous = shown.parts.find((p) => record.previousTokenHeads.includes(p.component));
  assert.ok(en['why-induction.caption'].includes(`the induction head ${shown.name}`));
  assert.ok(
    en['why-induction.caption'].includes(`its part is the largest in ${shown.largest[previous.component]} of ${shown.cells} cells`),
  );
  assert.ok(zh['why-induction.caption'].includes(`有 ${shown.largest[previous.component]} 个是最大的一份`));
  // The iframes open at the cells the captions tell.
  assert.deepEqual(examples['why-pronoun'].iframe.cell, { query: she.query, key: she.key });
  assert.deepEqual(examples['why-induction'].iframe.cell, { query: stories.figure.query, key: stories.figure.key });
  assert.equal(examples['why-induction'].iframe.text, stories.figure.text);
});
