// Lesson mode in headless Chromium, checked against the lessons' own text:
// every worked example of lesson 2.5 (Attention and the causal mask) must
// show the numbers the lesson prints, to the precision it prints them; labs
// A and B of lesson 11 must show the records the lesson expects. Also: the
// switches, restoring from the URL, the compact embed view, the embed-code
// dialog and bad input. Screenshots go to test-artifacts/.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { FRAME_HEIGHT } from '../../web/embed_code.mjs';
import { ARTIFACTS, openPage, useServedBrowser } from './browser.mjs';

const site = useServedBrowser();

async function open(query, { width = 1400, height = 1000, ready = '#lesson-panels' } = {}) {
  const { page, errors } = await openPage(site.context);
  await page.setViewportSize({ width, height });
  await page.goto(`${site.url}${query}`);
  if (ready) await page.waitForSelector(ready, { timeout: 30000 });
  return { page, errors };
}

// One step of the hand computation as {cols, rows, text[][], values[][], masked[][]}.
function readPanel(page, stage) {
  return page.evaluate((s) => {
    const figure = document.querySelector(`#lesson-panels [data-lesson-stage="${s}"]`);
    if (!figure) return null;
    const rows = [...figure.querySelectorAll('tbody tr')];
    return {
      title: figure.querySelector('figcaption').textContent,
      cols: [...figure.querySelectorAll('thead th')].slice(1).map((th) => th.textContent),
      rows: rows.map((r) => r.querySelector('th').textContent),
      text: rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)),
      values: rows.map((r) => [...r.querySelectorAll('td')].map((td) => Number(td.dataset.value))),
      masked: rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.dataset.masked === 'true')),
    };
  }, stage);
}

function readChecks(page) {
  return page.$$eval('#lesson-checks tbody tr', (rows) =>
    rows.map((r) => ({
      label: r.children[0].textContent,
      lesson: r.children[1].textContent,
      ours: r.children[2].textContent,
      status: r.dataset.status,
    })),
  );
}

// Until the matrices on screen answer the newest input.
function settled(page) {
  return page.waitForFunction(() => document.getElementById('lesson-view').dataset.pending === 'false');
}

// Clicks an example and waits until its matrices are drawn.
async function loadExample(page, id) {
  await page.click(`[data-example="${id}"]`);
  await settled(page);
  await page.waitForFunction(
    (example) =>
      document.querySelector(`[data-example="${example}"]`).getAttribute('aria-pressed') === 'true' &&
      document.querySelector('#lesson-panels') &&
      document.querySelector('.lesson-title').textContent === document.querySelector(`[data-example="${example}"]`).textContent,
    id,
  );
}

const fixed = (rows, decimals) => rows.map((row) => row.map((x) => (x === -Infinity ? '−∞' : x.toFixed(decimals))));

// Lesson 2.5's printed numbers, copied from the lesson.
const SHE_SCORES = [
  ['0.4000', '0.1400', '0.3000'],
  ['0.0400', '0.1300', '0.0100'],
  ['1.4600', '0.1100', '1.2000'],
];
const SHE_WEIGHTS = [
  ['0.3737', '0.2881', '0.3381'],
  ['0.3263', '0.3570', '0.3167'],
  ['0.4925', '0.1277', '0.3798'],
];

test('lesson 2.5, 她 → 小红: the lesson’s scores, weights and 0.493 / 0.128 / 0.380', async () => {
  const { page, errors } = await open('?lang=en', { ready: 'body[data-ready="true"]' });
  await page.selectOption('#input-mode', 'manual');
  await loadExample(page, 'she');
  // The lesson computes this one without ÷√d and without the mask.
  assert.equal(await page.isChecked('#causal'), false);
  assert.equal(await page.isChecked('#scale'), false);
  assert.equal(await page.inputValue('#lesson-labels'), '小红 很 她');
  const raw = await readPanel(page, 'raw');
  assert.deepEqual(raw.cols, ['小红', '很', '她']);
  assert.deepEqual(raw.rows, ['小红', '很', '她']);
  assert.deepEqual(raw.text, SHE_SCORES);
  const weights = await readPanel(page, 'weights');
  assert.deepEqual(weights.text, SHE_WEIGHTS);
  assert.deepEqual(
    weights.values[2].map((x) => x.toFixed(3)),
    ['0.493', '0.128', '0.380'],
  );
  // scores[2][0] spelled out as the lesson does.
  assert.equal(await page.textContent('#lesson-dot'), 'scores[2][0] = q(她) · k(小红) = 0.9×0.8 + 0.1×0.2 + 0.8×0.9 + 0.0×0.1 = 1.4600');
  // The row of 她 as a weighted sum (the example selects it).
  assert.equal(await page.textContent('#lesson-row'), 'output(她) = 0.4925×V(小红) + 0.3798×V(她) + 0.1277×V(很)');
  const checks = await readChecks(page);
  assert.equal(checks.length, 9);
  assert.ok(
    checks.every((c) => c.status === 'same'),
    JSON.stringify(checks),
  );
  assert.deepEqual(checks.at(-3), { label: '她→小红', lesson: '0.493', ours: '0.493', status: 'same' });
  assert.deepEqual(errors, []);
  await page.close();
});

test('lesson 2.5, softmax of [1, 2, 3] vs [10, 20, 30], and of [1, 2, −∞]', async () => {
  const { page } = await open('?input=manual&lang=en');
  await loadExample(page, 'softmax');
  const weights = await readPanel(page, 'weights');
  assert.deepEqual(weights.text, [
    ['0.09', '0.24', '0.67'],
    ['0.00', '0.00', '1.00'],
  ]);
  assert.deepEqual((await readPanel(page, 'raw')).text, [
    ['1.00', '2.00', '3.00'],
    ['10.00', '20.00', '30.00'],
  ]);
  // Typed scores are not divided by √d: the switch is off limits.
  assert.equal(await page.isDisabled('#scale'), true);
  assert.match(await page.textContent('.lesson-switch-note'), /does not apply/);

  await loadExample(page, 'masked-softmax');
  const masked = await readPanel(page, 'weights');
  assert.deepEqual(masked.text, [['0.27', '0.73', '0.00']]);
  assert.deepEqual(masked.masked, [[false, false, true]]);
  assert.equal(masked.values[0][2], 0);
  assert.deepEqual((await readPanel(page, 'raw')).text, [['1.00', '2.00', '−∞']]);
  assert.ok((await readChecks(page)).every((c) => c.status === 'same'));
  await page.close();
});

test('lesson 2.5, the causal mask on 今天 天气 很 好: −∞ above the diagonal, exact 0 after softmax, exact values shown', async () => {
  const { page } = await open('?input=manual&lang=en');
  await loadExample(page, 'causal');
  assert.equal(await page.isChecked('#causal'), true);
  const masked = await readPanel(page, 'masked');
  assert.deepEqual(masked.cols, ['今天', '天气', '很', '好']);
  // The lesson's masked scores, to the one decimal it prints.
  assert.deepEqual(fixed(masked.values, 1), [
    ['0.8', '−∞', '−∞', '−∞'],
    ['0.5', '0.6', '−∞', '−∞'],
    ['0.3', '0.7', '0.4', '−∞'],
    ['0.2', '0.5', '0.3', '0.8'],
  ]);
  assert.equal(masked.text[0][1], '−∞');
  const weights = await readPanel(page, 'weights');
  for (let i = 0; i < 4; i += 1) {
    for (let j = i + 1; j < 4; j += 1) {
      assert.equal(weights.values[i][j], 0, `future weight ${i},${j} is exactly 0`);
      assert.equal(weights.masked[i][j], true);
    }
    const sum = weights.values[i].reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - 1) < 1e-6, `row ${i} sums to ${sum}`);
  }
  assert.deepEqual(weights.text[0], ['1.00', '0.00', '0.00', '0.00']);
  // The lesson prints 0.47 / 0.53; the exact softmax of (0.5, 0.6) is shown, with a note.
  assert.deepEqual(
    weights.values[1].slice(0, 2).map((x) => x.toFixed(4)),
    ['0.4750', '0.5250'],
  );
  assert.deepEqual(weights.text[1].slice(0, 2), ['0.48', '0.52']);
  const note = await page.textContent('#lesson-note');
  assert.match(note, /0\.47 \/ 0\.53/);
  assert.match(note, /0\.4750 \/ 0\.5250/);
  const checks = await readChecks(page);
  assert.deepEqual(
    checks.map((c) => c.status),
    ['same', 'same', 'same', 'same', 'same', 'rounded', 'illustrative', 'illustrative'],
  );
  assert.equal(checks[5].lesson, '[0.47, 0.53, 0.00, 0.00]');
  assert.equal(checks[5].ours, '[0.48, 0.52, 0.00, 0.00]');
  // Chinese learners read the same note in Chinese.
  await page.selectOption('#lang', 'zh-CN');
  await page.waitForFunction(() => document.getElementById('lesson-note').textContent.includes('舍入'));
  assert.match(await page.textContent('#lesson-note'), /0\.4750 \/ 0\.5250/);
  await page.close();
});

test('lesson 2.5, the whole flow and the random-weights run: scores ÷ √4, softmax', async () => {
  const { page } = await open('?input=manual&lang=en');
  await loadExample(page, 'flow');
  const raw = await readPanel(page, 'raw');
  assert.deepEqual(fixed(raw.values, 1), [
    ['0.8', '0.1', '0.3'],
    ['0.2', '0.5', '0.1'],
    ['0.9', '0.1', '0.7'],
  ]);
  const scaled = await readPanel(page, 'scaled');
  assert.match(scaled.title, /÷ √4 = ÷ 2\.000/);
  scaled.values.forEach((row, i) => row.forEach((x, j) => assert.ok(Math.abs(x - raw.values[i][j] / 2) < 1e-7)));
  // The weights the lesson prints here are illustrations, and the page says so.
  assert.match(await page.textContent('#lesson-note'), /illustrations/);
  const flowChecks = await readChecks(page);
  assert.deepEqual(
    flowChecks.map((c) => c.status),
    ['same', 'same', 'same', 'illustrative', 'illustrative', 'illustrative'],
  );

  await loadExample(page, 'random');
  // The lesson's printed scores, ÷ √4 and weights (4 decimals, from its unrounded run).
  assert.deepEqual((await readPanel(page, 'raw')).text, [
    ['-0.0169', '0.1395', '-0.0236'],
    ['-0.3668', '-0.1999', '-0.3604'],
    ['-0.0078', '0.1269', '-0.0131'],
  ]);
  const near = (got, want) =>
    got.forEach((row, i) => row.forEach((x, j) => assert.ok(Math.abs(x - Number(want[i][j])) <= 1.01e-4, `${x} vs ${want[i][j]}`)));
  near((await readPanel(page, 'scaled')).values, [
    ['-0.0085', '0.0698', '-0.0118'],
    ['-0.1834', '-0.0999', '-0.1802'],
    ['-0.0039', '0.0635', '-0.0066'],
  ]);
  const weights = await readPanel(page, 'weights');
  near(weights.values, [
    ['0.3249', '0.3513', '0.3238'],
    ['0.3236', '0.3518', '0.3246'],
    ['0.3261', '0.3488', '0.3252'],
  ]);
  // What the lesson prints at 3 decimals agrees exactly.
  assert.deepEqual(
    weights.values[2].map((x) => x.toFixed(3)),
    ['0.326', '0.349', '0.325'],
  );
  await page.close();
});

test('the causal and √d switches change the matrices as they should', async () => {
  const { page } = await open('?input=manual&lang=en');
  await loadExample(page, 'she');
  const before = await readPanel(page, 'weights');
  await page.check('#scale');
  await settled(page);
  const raw = await readPanel(page, 'raw');
  const scaled = await readPanel(page, 'scaled');
  assert.match(scaled.title, /÷ √4 = ÷ 2\.000/);
  scaled.values.forEach((row, i) => row.forEach((x, j) => assert.ok(Math.abs(x - raw.values[i][j] / 2) < 1e-7)));
  const softmax = (row) => {
    const e = row.map((x) => Math.exp(x - Math.max(...row)));
    const sum = e.reduce((a, b) => a + b, 0);
    return e.map((x) => x / sum);
  };
  const halved = await readPanel(page, 'weights');
  halved.values.forEach((row, i) => softmax(scaled.values[i]).forEach((w, j) => assert.ok(Math.abs(row[j] - w) < 1e-6)));
  // ÷√d makes 她's row flatter: its largest weight shrinks.
  assert.ok(Math.max(...halved.values[2]) < Math.max(...before.values[2]));
  // The lesson's printed lines no longer match, and the page says why.
  assert.match(await page.textContent('.lesson-switches-differ'), /causal mask off and ÷ √d off/);
  assert.ok((await readChecks(page)).some((c) => c.status === 'differs'));

  await page.check('#causal');
  await settled(page);
  const masked = await readPanel(page, 'masked');
  const weights = await readPanel(page, 'weights');
  for (let i = 0; i < 3; i += 1) {
    for (let j = 0; j < 3; j += 1) {
      if (j > i) {
        assert.equal(masked.values[i][j], -Infinity);
        assert.equal(masked.text[i][j], '−∞');
        assert.equal(weights.values[i][j], 0);
      } else assert.equal(masked.values[i][j], scaled.values[i][j]);
    }
  }
  assert.deepEqual(weights.text[0], ['1.0000', '0.0000', '0.0000']);
  await page.click('#lesson-use-switches');
  await settled(page);
  assert.ok((await readChecks(page)).every((c) => c.status === 'same'));
  assert.equal(await page.isChecked('#causal'), false);
  assert.equal(await page.isChecked('#scale'), false);
  await page.close();
});

test('lesson mode restores exactly from its URL', async () => {
  const { page } = await open('?input=manual&lang=en');
  await loadExample(page, 'causal');
  await page.selectOption('#lesson-decimals', '3');
  await page.check('input[name="lesson-kind"][value="qkv"]');
  await page.fill('#lesson-q', '1 0 2\n0 1 -1');
  await page.fill('#lesson-k', '1 1 0\n0 2 1\n1 0 1');
  await page.fill('#lesson-v', '1 2\n3 4\n5 6');
  await page.fill('#lesson-labels', 'A B <i>C</i>');
  await page.uncheck('#scale');
  await settled(page);
  await page.click('[data-lesson-stage="weights"] tbody tr:nth-child(2) th');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('row') === '1');
  const url = page.url();
  const read = async (p) => ({
    panels: await Promise.all(['raw', 'scaled', 'masked', 'weights', 'output'].map((s) => readPanel(p, s))),
    row: await p.textContent('#lesson-row'),
    q: await p.inputValue('#lesson-q'),
    labels: await p.inputValue('#lesson-labels'),
    decimals: await p.inputValue('#lesson-decimals'),
    causal: await p.isChecked('#causal'),
    scale: await p.isChecked('#scale'),
    mode: await p.inputValue('#input-mode'),
  });
  const before = await read(page);
  assert.equal(before.panels[0].cols[2], '<i>C</i>', 'a label is text, never HTML');
  // Under the causal mask the 2 queries are the last 2 of the 3 positions.
  assert.deepEqual(before.panels[0].rows, ['B', '<i>C</i>']);
  assert.match(
    before.row,
    /^output\(<i>C<\/i>\) = \d\.\d{3}×V\((A|B|<i>C<\/i>)\)( \+ \d\.\d{3}×V\((A|B|<i>C<\/i>)\)){2} = \[\d+\.\d{3}, \d+\.\d{3}\]$/,
  );
  const { page: restored } = await open(url.slice(site.url.length));
  await restored.waitForSelector('[data-lesson-stage="output"]');
  assert.deepEqual(await read(restored), before);
  // An example's link is short and restores it too.
  await loadExample(restored, 'softmax');
  assert.match(restored.url(), /[?&]example=softmax(&|$)/);
  assert.doesNotMatch(restored.url(), /scores=/);
  const { page: again } = await open(restored.url().slice(site.url.length));
  assert.deepEqual((await readPanel(again, 'weights')).text, [
    ['0.09', '0.24', '0.67'],
    ['0.00', '0.00', '1.00'],
  ]);
  await page.close();
  await restored.close();
  await again.close();
});

test('bad manual input gives a clear message, and fixing it brings the matrices back', async () => {
  const { page, errors } = await open('?input=manual&lang=en');
  const problem = async (q, k, v = '') => {
    await page.fill('#lesson-q', q);
    await page.fill('#lesson-k', k);
    await page.fill('#lesson-v', v);
    await page.waitForSelector('#lesson-problems');
    assert.equal(await page.$('#lesson-panels'), null, 'no stale matrices beside a problem');
    return page.$$eval('#lesson-problems li', (items) => items.map((li) => li.textContent));
  };
  assert.deepEqual(await problem('0.1 abc', '1 2'), ['Q, row 1, column 2: “abc” is not a number.']);
  assert.deepEqual(await problem('1 2\n3', '1 2'), ['Q: row 2 has 1 numbers but row 1 has 2; every row needs the same number of columns.']);
  assert.deepEqual(await problem('1 2 3', '1 2'), ['Q has 3 columns and K has 2: q·k needs vectors of the same length d.']);
  assert.deepEqual(await problem('1 2', ''), ['K is empty: type one row per token, numbers separated by spaces.']);
  assert.deepEqual(await problem('1 -inf', '1 2'), [
    'Q, row 1, column 2: −∞ belongs in typed scores (it is what the mask puts there); Q needs finite numbers.',
  ]);
  assert.deepEqual(await problem('1 2', '1 2\n3 4', '1'), ['V has 1 rows and K has 2: every key needs its value.']);
  const big = Array.from({ length: 17 }, () => '1 2').join('\n');
  assert.deepEqual(await problem(big, '1 2'), ['Q is 17×2; at most 16×64 here (a worked example, not a model).']);
  // In Chinese too.
  await page.selectOption('#lang', 'zh-CN');
  await page.fill('#lesson-q', '0.1 abc');
  await page.waitForFunction(() => document.querySelector('#lesson-problems li')?.textContent.includes('不是数字'));
  assert.equal(await page.textContent('#lesson-problems li'), 'Q 第 1 行第 2 列：“abc”不是数字。');
  // Fixed: the matrices come back; lines pasted from the lesson's Python and Chinese punctuation work.
  await page.fill('#lesson-q', '[[0.9, 0.1, 0.8, 0.0]]  # "她"的 Q');
  await page.fill('#lesson-k', '[0.8, 0.2, 0.9, 0.1],\n0.0，0.3，0.1，0.5；0.7、0.1、0.7、0.0');
  await page.fill('#lesson-v', '');
  await settled(page);
  assert.equal(await page.$('#lesson-problems'), null);
  assert.deepEqual((await readPanel(page, 'raw')).text, [['1.4600', '0.1100', '1.2000']]);
  assert.deepEqual(errors, []);
  await page.close();
});

// Lesson 2.5's Python, pasted as it is printed there, and the one-line forms.
const PASTED_Q = `Q = torch.tensor([
    [1.0, 0.0],   # 小明
    [0.0, 1.0],   # 小红
    [0.5, 0.5],   # 她
])`;
const PASTED_K = 'K = torch.tensor([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4],], dtype=torch.float32)';
const PASTED_V = `V = torch.tensor([
    [1.0, 2.0],  # 小明
    [3.0, 4.0],  # 小红
    [5.0, 6.0],  # 她
], dtype=torch.float32)`;

test('the lesson’s Python pasted as it is into Q, K and V: torch.tensor blocks, # comments as labels, one-line tensors, dtype=', async () => {
  const { page, errors } = await open('?input=manual&lang=en');
  // A paste: the field's text replaced by what the clipboard holds, one input event.
  const paste = async (selector, text) => {
    await page.fill(selector, '');
    await page.focus(selector);
    await page.keyboard.insertText(text);
  };
  await page.fill('#lesson-labels', '');
  await paste('#lesson-q', PASTED_Q);
  await paste('#lesson-k', PASTED_K);
  await paste('#lesson-v', PASTED_V);
  await page.check('#causal');
  await page.check('#scale');
  await settled(page);
  assert.equal(await page.$('#lesson-problems'), null, 'no problem with the pasted code');
  // The numbers the code holds, computed here: Q·Kᵀ, ÷ √2, the causal mask, softmax, · V.
  const Q = [
    [1, 0],
    [0, 1],
    [0.5, 0.5],
  ];
  const K = [
    [0.9, 0.1],
    [0.2, 0.8],
    [0.6, 0.4],
  ];
  const V = [
    [1, 2],
    [3, 4],
    [5, 6],
  ];
  const raw = Q.map((q) => K.map((k) => q[0] * k[0] + q[1] * k[1]));
  const weights = raw.map((row, i) => {
    const e = row.map((x, j) => (j > i ? 0 : Math.exp(x / Math.SQRT2)));
    const sum = e.reduce((a, b) => a + b, 0);
    return e.map((x) => x / sum);
  });
  const output = weights.map((w) => [0, 1].map((d) => w.reduce((sum, x, j) => sum + x * V[j][d], 0)));
  const close = (got, want, tolerance, what) =>
    got.forEach((row, i) =>
      row.forEach((x, j) => assert.ok(Math.abs(x - want[i][j]) < tolerance, `${what}[${i}][${j}] = ${x}, want ${want[i][j]}`)),
    );
  const rawPanel = await readPanel(page, 'raw');
  close(rawPanel.values, raw, 1e-6, 'Q·Kᵀ');
  close((await readPanel(page, 'weights')).values, weights, 1e-6, 'weights');
  const outputPanel = await readPanel(page, 'output');
  close(outputPanel.values, output, 1e-5, 'weights·V');
  // The rows' comments name the tokens (no labels typed), and the page says where they came from.
  assert.deepEqual(rawPanel.rows, ['小明', '小红', '她']);
  assert.deepEqual(rawPanel.cols, ['小明', '小红', '她']);
  assert.match(await page.textContent('.lesson-info'), /Labels from the # comments of Q: 小明 小红 她/);
  // The shapes, named by their axes.
  assert.match(rawPanel.title, /\[Tq, Tk\] = \[3, 3\]/);
  assert.match(outputPanel.title, /\[Tq, dv\] = \[3, 2\]/);
  // The dot product spelled out with the numbers as pasted.
  await page.click('#lesson-panels [data-lesson-stage="raw"] tbody tr:nth-child(3) td:nth-of-type(1)');
  assert.match(await page.textContent('#lesson-dot'), /^scores\[2\]\[0\] = q\(她\) · k\(小明\) = 0\.5×0\.9 \+ 0\.5×0\.1 = /);
  // Typed labels still win over the comments.
  await page.fill('#lesson-labels', 'A B C');
  await settled(page);
  assert.deepEqual((await readPanel(page, 'raw')).cols, ['A', 'B', 'C']);
  // Scores pasted as PyTorch writes them, −∞ as float('-inf').
  await page.check('input[name="lesson-kind"][value="scores"]');
  await paste('#lesson-scores', "scores = torch.tensor([1.0, 2.0, float('-inf')])");
  await page.uncheck('#causal');
  await settled(page);
  const pasted = (await readPanel(page, 'weights')).values[0];
  const e = Math.exp(1) / (Math.exp(1) + Math.exp(2));
  close([pasted], [[e, 1 - e, 0]], 1e-6, 'softmax([1, 2, −∞])');
  assert.equal(pasted[2], 0);
  // A call the page cannot run is named where it stands.
  await page.check('input[name="lesson-kind"][value="qkv"]');
  await paste('#lesson-k', 'K = torch.randn(3, 2)');
  await page.waitForSelector('#lesson-problems');
  assert.deepEqual(await page.$$eval('#lesson-problems li', (items) => items.map((li) => li.textContent)), [
    'K, row 1, column 1: “torch.randn” is not a number.',
  ]);
  assert.deepEqual(errors, []);
  await page.close();
});

test('lesson 11, labs A and B: the records the lesson expects, and the lab’s attention in the matrix', async () => {
  for (const lang of ['en', 'zh-CN']) {
    const { page, errors } = await open(`?lang=${lang}`, { ready: 'body[data-ready="true"]' });
    await page.click('[data-lab="lab-a"]');
    await page.waitForSelector('#lab-record');
    const record = async () =>
      page.$$eval('#lab-record tbody tr[data-key]', (rows) =>
        Object.fromEntries(
          rows.map((r) => [
            r.dataset.key,
            {
              lesson: r.querySelector('.lesson-value')?.textContent,
              ours: r.querySelector('.our-value')?.textContent,
              status: r.dataset.status,
            },
          ]),
        ),
      );
    const a = await record();
    const same = (key, value) => {
      assert.equal(a[key].lesson, value, key);
      assert.equal(a[key].ours, value, key);
      assert.equal(a[key].status, 'same', key);
    };
    same('x.shape', '(2, 5, 64)');
    same('q_proj(x).shape', '(2, 5, 64)');
    same('k_proj(x).shape', '(2, 5, 32)');
    same('v_proj(x).shape', '(2, 5, 32)');
    same('scores.shape', '(2, 4, 5, 5)');
    same('future_attention_mass_for_batch0_head0', '0.0000000000');
    // The hand-written attention adds in the module's order: exactly 0, as the lesson prints.
    same('manual_vs_module_max_abs_diff', '0.000000000000');
    // Batch 0, head 0: lower-triangular, the future exactly 0.
    const weights = await page.$$eval('#lab-weights tbody tr', (rows) =>
      rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)),
    );
    assert.equal(weights.length, 5);
    weights.forEach((row, i) => row.forEach((w, j) => j > i && assert.equal(w, '0.0000')));
    // The page's matrix switched to the lab: preset lab-a, batch 0's ids, layer 0, head 0.
    assert.equal(await page.inputValue('#preset'), 'lab-a');
    assert.equal(await page.inputValue('#input-mode'), 'ids');
    assert.equal(await page.inputValue('#text'), '3 4 5 6 7');
    await page.waitForFunction(() => document.querySelectorAll('#matrix-table tbody tr').length === 5);
    const matrix = await page.$$eval('#matrix-table tbody tr', (rows) =>
      rows.map((r) => [...r.querySelectorAll('td')].map((td) => (td.dataset.value === undefined ? 0 : Number(td.dataset.value)))),
    );
    assert.deepEqual(fixed(matrix, 4), weights, 'the matrix is the record’s attention');
    await page.screenshot({ path: `${ARTIFACTS}lab-a-${lang}.png`, fullPage: true });
    // Its embed code: the component's lab view, and an iframe of this page.
    await page.click('#embed-code');
    const component = await page.evaluate(
      (html) => {
        const element = new DOMParser().parseFromString(html, 'text/html').querySelector('minimind-attention');
        return Object.fromEntries([...element.attributes].map((a) => [a.name, a.value]));
      },
      await page.inputValue('#embed-component'),
    );
    assert.deepEqual(component, { view: 'lab', preset: 'lab-a', seed: '0', lang, playground: site.url });
    assert.match(await page.inputValue('#embed-iframe'), /(\?|&amp;)lab=lab-a(&amp;|")/);
    await page.click('#embed-close');

    await page.click('[data-lab="lab-b"]');
    await page.waitForFunction(() => document.querySelector('#lab-record tr[data-key="xq.shape"] .lesson-value'));
    const b = await record();
    const sameB = (key, value) => {
      assert.equal(b[key].lesson, value, key);
      assert.equal(b[key].ours, value, key);
      assert.equal(b[key].status, 'same', key);
    };
    sameB('head_dim', '16');
    sameB('q_proj(x).shape', '(2, 5, 96)');
    sameB('k_proj(x).shape', '(2, 5, 48)');
    sameB('xq.shape', '(2, 5, 6, 16)');
    sameB('xk after repeat shape', '(2, 5, 6, 16)');
    sameB('scores.shape', '(2, 6, 5, 5)');
    assert.equal(await page.inputValue('#preset'), 'lab-b');
    await page.waitForFunction(() => document.getElementById('head').options.length === 6);
    assert.match(page.url(), /[?&]lab=lab-b(&|$)/);
    // Another preset closes the lab's record.
    await page.selectOption('#preset', 'minimind2-small');
    await page.waitForFunction(() => document.getElementById('lab-view').hidden);
    assert.doesNotMatch(page.url(), /lab=/);
    assert.deepEqual(errors, []);
    await page.close();
  }
});

// The visible ones of these selectors.
function visible(page, selectors) {
  return page.evaluate(
    (list) =>
      list.filter((s) => {
        const el = document.querySelector(s);
        return el && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
      }),
    selectors,
  );
}

const CONTROLS = [
  'header.top',
  '.controls',
  '#text',
  '#preset',
  '.view-bar',
  '#layer',
  '.export',
  '#embed-code',
  '#overview',
  '#lesson-editor',
];

test('the embed view (?embed=1) shows only the figure, fitted to the frame, with a link to the full page', async () => {
  for (const lang of ['en', 'zh-CN']) {
    const text = '今天 天气 很 好';
    const query = `?embed=1&text=${encodeURIComponent(text)}&preset=lab-b&head=2&lang=${lang}`;
    const { page, errors } = await open(query, { width: 720, height: 420, ready: 'body[data-ready="true"]' });
    assert.deepEqual(await visible(page, CONTROLS), []);
    assert.deepEqual(await visible(page, ['#heatmap', '#view-title', '#stage-caption', '#legend', '#open-playground']), [
      '#heatmap',
      '#view-title',
      '#stage-caption',
      '#legend',
      '#open-playground',
    ]);
    // The matrix fits the 420-pixel frame.
    const box = await page.locator('#heatmap').boundingBox();
    assert.ok(box.y + box.height <= 420, `heatmap ends at ${box.y + box.height}`);
    const link = await page.$eval('#open-playground', (a) => ({ href: a.href, target: a.target, text: a.textContent }));
    assert.equal(link.target, '_blank');
    assert.equal(link.text, lang === 'en' ? 'open in playground' : '在 Playground 中打开');
    const linked = new URL(link.href).searchParams;
    assert.equal(linked.has('embed'), false);
    assert.equal(linked.get('text'), text);
    assert.equal(linked.get('preset'), 'lab-b');
    assert.equal(linked.get('head'), '2');
    await page.screenshot({ path: `${ARTIFACTS}embed-view-${lang}.png` });
    assert.deepEqual(errors, []);
    await page.close();

    // Lesson mode embeds its matrices, without the editor or the lesson's check table.
    const { page: lesson } = await open(`?embed=1&input=manual&example=causal&lang=${lang}`, { width: 720, height: 420 });
    assert.deepEqual(await visible(lesson, [...CONTROLS, '#lesson-checks']), []);
    assert.deepEqual(await visible(lesson, ['#lesson-panels', '#open-playground']), ['#lesson-panels', '#open-playground']);
    await lesson.screenshot({ path: `${ARTIFACTS}embed-lesson-${lang}.png` });
    await lesson.close();
  }
});

test('copy embed code: the iframe snippet restores the view, the component snippet has its attributes, HTML escaped', async () => {
  const text = '<b>"你好"</b> & 小明';
  const query = `?text=${encodeURIComponent(text)}&preset=lab-b&seed=3&layer=1&head=4&stage=scores_scaled&scale=0&lang=en`;
  const { page, errors } = await open(query, { ready: 'body[data-ready="true"]' });
  await page.waitForFunction(() => document.querySelectorAll('#matrix-table tbody tr').length === 3);
  await page.click('#embed-code');
  await page.waitForSelector('#embed-dialog[open]');
  const iframe = await page.inputValue('#embed-iframe');
  const component = await page.inputValue('#embed-component');
  assert.doesNotMatch(component, /<b>/, 'the text is escaped, never markup');
  assert.match(component, /text="&lt;b&gt;&quot;你好&quot;&lt;\/b&gt; &amp; 小明"/);
  const parsed = await page.evaluate(
    ([frameHtml, componentHtml]) => {
      const doc = new DOMParser().parseFromString(`${frameHtml}${componentHtml}`, 'text/html');
      const frame = doc.querySelector('iframe');
      const script = doc.querySelector('script');
      const element = doc.querySelector('minimind-attention');
      return {
        frame: Object.fromEntries([...frame.attributes].map((a) => [a.name, a.value])),
        script: { type: script.type, src: script.src },
        attributes: Object.fromEntries([...element.attributes].map((a) => [a.name, a.value])),
        count: doc.body.children.length,
      };
    },
    [iframe, component],
  );
  assert.equal(parsed.count, 3);
  assert.equal(parsed.frame.width, '100%');
  // As tall as the matrix needs to label every row (embed_frame.test.mjs checks that it does), 420 px at least.
  assert.equal(parsed.frame.height, String(await page.evaluate(() => Number(document.getElementById('embed-preview').height))));
  assert.ok(Number(parsed.frame.height) >= FRAME_HEIGHT, parsed.frame.height);
  assert.equal(parsed.frame.style, 'border:0');
  assert.equal(parsed.frame.loading, 'lazy');
  assert.match(parsed.frame.title, /lab-b, layer 1, head 4/);
  assert.equal(parsed.script.type, 'module');
  assert.equal(parsed.script.src, `${site.url}minimind-attention.js`);
  const { playground, ...attributes } = parsed.attributes;
  assert.deepEqual(attributes, {
    text,
    preset: 'lab-b',
    seed: '3',
    layer: '1',
    head: '4',
    stage: 'scores_scaled',
    scale: 'false',
    lang: 'en',
  });
  assert.equal(playground, site.url, '"open in playground" leads back to this page');
  // The iframe's src is this view, embedded.
  const src = new URL(parsed.frame.src);
  assert.equal(src.searchParams.get('embed'), '1');
  const original = await page.$$eval('#matrix-table td', (cells) => cells.map((td) => td.textContent));
  const title = await page.textContent('#view-title');
  const { page: framed } = await open(`${src.pathname.slice(1)}${src.search}`, {
    width: 720,
    height: 420,
    ready: 'body[data-ready="true"]',
  });
  await framed.waitForFunction(() => document.querySelectorAll('#matrix-table tbody tr').length === 3);
  assert.equal(await framed.textContent('#view-title'), title);
  assert.deepEqual(await framed.$$eval('#matrix-table td', (cells) => cells.map((td) => td.textContent)), original);
  assert.deepEqual(await visible(framed, CONTROLS), []);
  await framed.close();
  // Copy: to the clipboard, or the text selected for Ctrl+C.
  await page.click('#copy-iframe');
  await page.waitForFunction(() => document.getElementById('copy-iframe-status').textContent !== '');
  const status = await page.textContent('#copy-iframe-status');
  if (status.startsWith('Selected')) {
    const selection = await page.$eval('#embed-iframe', (t) => [t.selectionStart, t.selectionEnd, t.value.length]);
    assert.deepEqual(selection.slice(0, 2), [0, selection[2]]);
  } else assert.equal(status, 'Copied.');
  await page.click('#embed-close');
  assert.equal(await page.$('#embed-dialog[open]'), null);

  // Lesson mode: the iframe carries the typed matrices, the component its lesson view.
  await page.click('#open-lesson');
  await page.waitForSelector('#lesson-panels');
  await page.fill('#lesson-labels', 'x "y" z');
  await page.click('#embed-code');
  const lessonFrame = await page.inputValue('#embed-iframe');
  const lessonComponent = await page.evaluate(
    (html) => {
      const element = new DOMParser().parseFromString(html, 'text/html').querySelector('minimind-attention');
      return Object.fromEntries([...element.attributes].map((a) => [a.name, a.value]));
    },
    await page.inputValue('#embed-component'),
  );
  assert.deepEqual(lessonComponent, {
    view: 'lesson',
    q: '0.1 0.2 0.3 0.1\n0.0 0.1 0.0 0.2\n0.9 0.1 0.8 0.0',
    k: '0.8 0.2 0.9 0.1\n0.0 0.3 0.1 0.5\n0.7 0.1 0.7 0.0',
    labels: 'x "y" z',
    decimals: '4',
    stage: 'raw scaled masked weights',
    causal: 'false',
    scale: 'false',
    lang: 'en',
    playground: site.url,
  });
  const lessonSrc = await page.evaluate(
    (html) => new DOMParser().parseFromString(html, 'text/html').querySelector('iframe').src,
    lessonFrame,
  );
  const { page: lessonFramed } = await open(new URL(lessonSrc).search, { width: 720, height: 420 });
  assert.deepEqual((await readPanel(lessonFramed, 'raw')).cols, ['x', '"y"', 'z']);
  assert.deepEqual((await readPanel(lessonFramed, 'weights')).text, SHE_WEIGHTS);
  await lessonFramed.close();
  assert.deepEqual(errors, []);
  await page.close();
});

test('screenshots of lesson mode, in Chinese and English', async () => {
  for (const lang of ['zh-CN', 'en']) {
    const { page, errors } = await open(`?input=manual&example=causal&lang=${lang}`);
    await loadExample(page, 'she');
    await page.screenshot({ path: `${ARTIFACTS}lesson-mode-${lang}.png`, fullPage: true });
    // With a V typed, weights · V too.
    await page.fill('#lesson-v', '1 0 0 0\n0 1 0 0\n0 0 1 0');
    await settled(page);
    await page.click('[data-lesson-stage="weights"] tbody tr:nth-child(3) th');
    await page.waitForFunction(() => document.getElementById('lesson-row').textContent.startsWith('output(她)'));
    await page.screenshot({ path: `${ARTIFACTS}lesson-output-${lang}.png`, fullPage: true });
    await loadExample(page, 'causal');
    await page.screenshot({ path: `${ARTIFACTS}lesson-causal-${lang}.png`, fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  }
});
