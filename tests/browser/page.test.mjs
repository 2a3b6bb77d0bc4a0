// The playground page in headless Chromium, as a learner uses it: type the
// lesson's sentence, read the matrix through its accessible table and check
// it against the module, the mask, the URL, the languages, hostile input,
// a bad config. These run on lab-a, named in the URL (the page's own
// tokenisation, random weights); the trained model the page opens on has its
// own tests (demo_model.test.mjs). Screenshots go to test-artifacts/.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { loadMiniMind } from '../../js/minimind.mjs';
import { tokenize } from '../../js/preset_tokens.mjs';
import { ARTIFACTS, openPage, useServedBrowser } from './browser.mjs';

const LESSON = '小明 把 苹果 给了 小红 ， 她 很 开心';

const site = useServedBrowser();

async function openPlayground(query = '', { languages = ['en-US', 'en'], watchProgress = false } = {}) {
  const { page, errors } = await openPage(site.context);
  await page.setViewportSize({ width: 1400, height: 1000 });
  if (watchProgress) {
    // Notes whether the build progress bar was ever visible with some progress.
    await page.addInitScript(() => {
      document.addEventListener('DOMContentLoaded', () => {
        const bar = document.getElementById('build-progress');
        new MutationObserver(() => {
          if (!bar.hidden) window.progressSeen = true;
        }).observe(bar, { attributes: true });
      });
    });
  }
  // The browser's language preference, as navigator.languages reports it.
  await page.addInitScript((list) => Object.defineProperty(navigator, 'languages', { get: () => list }), languages);
  await page.goto(`${site.url}${query}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  return { page, errors };
}

// Waits until the drawn matrix is for `tokens`.
async function waitForTokens(page, tokens) {
  await page.waitForFunction(
    (expected) => {
      const heads = [...document.querySelectorAll('#matrix-table thead th')].slice(1).map((th) => th.textContent);
      return JSON.stringify(heads) === JSON.stringify(expected);
    },
    tokens,
    { timeout: 30000 },
  );
}

// The accessible table as {keys, queries, cells: [[{masked, value}]]}.
function readTable(page) {
  return page.evaluate(() => {
    const table = document.getElementById('matrix-table');
    const keys = [...table.querySelectorAll('thead th')].slice(1).map((th) => th.textContent);
    const rows = [...table.querySelectorAll('tbody tr')];
    return {
      keys,
      queries: rows.map((r) => r.querySelector('th').textContent),
      cells: rows.map((r) =>
        [...r.querySelectorAll('td')].map((td) => ({
          masked: td.dataset.masked === 'true',
          value: td.dataset.value === undefined ? null : Number(td.dataset.value),
          text: td.textContent,
        })),
      ),
    };
  });
}

async function typeText(page, text) {
  await page.fill('#text', '');
  await page.type('#text', text, { delay: 5 });
}

test('typing the lesson sentence gives chips, and the matrix equals what the module computes', async () => {
  const { page, errors } = await openPlayground('?preset=lab-a');
  await typeText(page, LESSON);
  const tokens = LESSON.split(' ');
  await waitForTokens(page, tokens);
  const chips = await page.$$eval('#chips .chip', (items) =>
    items.map((li) => [li.querySelector('.chip-text').textContent, li.querySelector('.chip-id').textContent]),
  );
  const { ids } = tokenize(LESSON, 128, 128);
  assert.deepEqual(
    chips,
    tokens.map((t, i) => [t, `#${ids[i]}`]),
  );

  // Layer 1, head 2, softmax: compare every cell with the module in Node.
  await page.selectOption('#layer', '1');
  await page.selectOption('#head', '2');
  const table = await readTable(page);
  const mm = await loadMiniMind();
  const model = mm.createModel({ preset: 'lab-a', seed: 0 });
  const expected = model.forward(ids, { trace: { layers: [1], stages: ['attn_weights'] } }).trace.get(1, 'attn_weights');
  model.dispose();
  const T = tokens.length;
  assert.deepEqual(table.queries, tokens);
  for (let i = 0; i < T; i += 1) {
    let sum = 0;
    for (let j = 0; j < T; j += 1) {
      const cell = table.cells[i][j];
      const want = expected.data[(2 * T + i) * T + j];
      if (j > i) {
        assert.equal(cell.masked, true, `cell ${i},${j} shows as masked`);
        assert.equal(want, 0);
      } else {
        assert.equal(cell.value, want, `cell ${i},${j}`);
        assert.equal(cell.text, want.toFixed(3));
        sum += cell.value;
      }
    }
    assert.ok(Math.abs(sum - 1) < 1e-6, `row ${i} sums to ${sum}`);
  }

  // Selecting the row of 她 explains it with the real weights.
  await page.evaluate(() => document.getElementById('heatmap').focus());
  for (let k = 0; k < 6; k += 1) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  const explanation = await page.textContent('#row-explanation');
  assert.match(explanation, /^output\(她\) = \d\.\d\d×V\(/);
  const terms = [...explanation.matchAll(/(\d\.\d\d)×V\(([^)]+)\)/g)].map((m) => m[2]);
  assert.deepEqual([...terms].sort(), tokens.slice(0, 7).sort());
  assert.match(await page.textContent('#cell-info'), /^她 → 小明: q·k = -?\d+\.\d{3}, ÷√d = -?\d+\.\d{3}, weight = \d\.\d{3}$/);
  await page.screenshot({ path: `${ARTIFACTS}lesson-sentence.png`, fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test('the stage switch shows QKᵀ, ÷√d, + mask and softmax with their shapes', async () => {
  const { page } = await openPlayground(`?preset=lab-a&text=${encodeURIComponent('今天 天气 很 好')}`);
  await waitForTokens(page, ['今天', '天气', '很', '好']);
  const read = async (stage) => {
    await page.click(`[data-stage="${stage}"]`);
    await page.waitForFunction(
      (s) => new URLSearchParams(location.search).get('stage') === s || (s === 'attn_weights' && !location.search.includes('stage=')),
      stage,
    );
    return {
      table: await readTable(page),
      caption: await page.textContent('#stage-caption'),
      shape: await page.textContent('#matrix-shape'),
    };
  };
  const raw = await read('scores_raw');
  const scaled = await read('scores_scaled');
  const masked = await read('scores_masked');
  assert.match(raw.caption, /q \[4, 4, 16\].*k \[4, 2, 16\]/);
  // The shape is printed once, by the matrix, not again in the caption.
  assert.match(raw.shape, /\[H, T, T\] = \[4, 4, 4\]/);
  for (const { caption } of [raw, scaled, masked]) assert.doesNotMatch(caption, /\[4, 4, 4\]/);
  assert.match(scaled.caption, /√16 = 4\.000/);
  for (let i = 0; i < 4; i += 1) {
    for (let j = 0; j < 4; j += 1) {
      assert.ok(Math.abs(scaled.table.cells[i][j].value - raw.table.cells[i][j].value / 4) < 1e-5);
      if (j > i) {
        assert.equal(raw.table.cells[i][j].masked, false, 'QKᵀ has real numbers above the diagonal');
        assert.equal(masked.table.cells[i][j].masked, true);
        assert.equal(masked.table.cells[i][j].text, '—'); // one legend says what "—" is
      } else {
        assert.equal(masked.table.cells[i][j].value, scaled.table.cells[i][j].value);
      }
    }
  }
  await page.close();
});

test('the switches show why: no mask leaks the future, no √d makes softmax winner-takes-all', async () => {
  const { page } = await openPlayground(`?preset=lab-a&text=${encodeURIComponent(LESSON)}`);
  await waitForTokens(page, LESSON.split(' '));
  const peak = (table) => table.cells.reduce((sum, row) => sum + Math.max(...row.map((c) => c.value ?? 0)), 0) / table.cells.length;
  const normal = await readTable(page);
  await page.uncheck('#causal');
  await page.waitForFunction(() => !document.querySelector('#matrix-table td[data-masked]'));
  const leaked = await readTable(page);
  const future = leaked.cells.flatMap((row, i) => row.slice(i + 1)).reduce((a, c) => a + c.value, 0);
  assert.ok(future > 1, `the future now gets weight (${future})`);
  assert.match(await page.textContent('#toggle-note'), /Causal mask is off: tokens now read the future\. \d+\.\d% of this head/);
  await page.check('#causal');
  await page.uncheck('#scale');
  await page.waitForFunction(() => document.getElementById('toggle-note').textContent.includes('No √d'));
  await page.waitForFunction(() => location.search.includes('scale=0') && document.querySelector('#matrix-table td[data-masked]'));
  const sharp = await readTable(page);
  assert.ok(peak(sharp) > peak(normal), `largest weight per row grows: ${peak(normal)} -> ${peak(sharp)}`);
  assert.match(await page.textContent('#toggle-note'), /scores are 4\.0× larger/);
  await page.screenshot({ path: `${ARTIFACTS}no-scaling.png`, fullPage: true });
  // The overview opens a head with a click; heads are grouped by kv head.
  assert.equal(await page.$$eval('.kv-group', (groups) => groups.length), 4); // 2 layers × 2 kv heads
  await page.click('.thumb[data-layer="1"][data-head="3"]');
  assert.equal(await page.inputValue('#layer'), '1');
  assert.equal(await page.inputValue('#head'), '3');
  assert.match(await page.textContent('#view-title'), /Layer 1 · head 3 \(reads kv head 1\)/);
  await page.close();
});

test('the URL restores the same view exactly', async () => {
  const { page } = await openPlayground('?preset=lab-a');
  await typeText(page, '今天 天气 很 好 ！');
  await waitForTokens(page, ['今天', '天气', '很', '好', '！']);
  await page.selectOption('#preset', 'lab-b');
  await page.waitForFunction(() => document.getElementById('model-status').textContent.startsWith('lab-b'));
  await page.fill('#seed', '7');
  await page.dispatchEvent('#seed', 'change');
  await page.waitForFunction(() => document.getElementById('model-status').textContent.includes('seed 7'));
  await page.selectOption('#layer', '1');
  await page.selectOption('#head', '5');
  await page.click('[data-stage="scores_scaled"]');
  await page.uncheck('#scale');
  await page.waitForFunction(() => location.search.includes('scale=0'));
  await waitForTokens(page, ['今天', '天气', '很', '好', '！']);
  const url = page.url();
  const before = { table: await readTable(page), title: await page.textContent('#view-title') };
  const { page: restored } = await openPlayground(url.slice(site.url.length));
  await waitForTokens(restored, ['今天', '天气', '很', '好', '！']);
  assert.equal(await restored.inputValue('#text'), '今天 天气 很 好 ！');
  assert.equal(await restored.inputValue('#preset'), 'lab-b');
  assert.equal(await restored.inputValue('#seed'), '7');
  assert.equal(await restored.inputValue('#layer'), '1');
  assert.equal(await restored.inputValue('#head'), '5');
  assert.equal(await restored.isChecked('#scale'), false);
  assert.equal(await restored.textContent('#view-title'), before.title);
  assert.deepEqual(await readTable(restored), before.table);
  await page.close();
  await restored.close();
});

test('the language switch changes the text, and Chinese browsers get Chinese', async () => {
  const { page } = await openPlayground('', { languages: ['zh-CN', 'zh'] });
  assert.equal(await page.textContent('h1'), 'MiniMind 注意力游乐场');
  assert.equal(await page.getAttribute('html', 'lang'), 'zh-CN');
  await page.selectOption('#lang', 'en');
  assert.equal(await page.textContent('h1'), 'MiniMind Attention Playground');
  assert.match(await page.textContent('#stage-caption'), /softmax over each row/);
  assert.match(page.url(), /lang=en/);
  await page.selectOption('#lang', 'zh-CN');
  assert.match(await page.textContent('#stage-caption'), /对每一行做 softmax/);
  await page.screenshot({ path: `${ARTIFACTS}zh-CN.png`, fullPage: true });
  await page.close();
});

test('hostile input is shown as text, never run as HTML', async () => {
  const { page, errors } = await openPlayground('?preset=lab-a');
  let dialogs = 0;
  page.on('dialog', async (dialog) => {
    dialogs += 1;
    await dialog.dismiss();
  });
  const hostile = '<img src=x onerror=alert(1)> <b>bold</b> "quoted" \u202Eevil';
  await typeText(page, hostile);
  const tokens = hostile.split(' ');
  await waitForTokens(page, tokens);
  const chips = await page.$$eval('#chips .chip-text', (items) => items.map((s) => s.textContent));
  assert.deepEqual(chips, tokens);
  assert.equal(await page.$$eval('img, b', (found) => found.length), 0);
  assert.equal((await readTable(page)).queries[0], '<img');
  await page.click('#heatmap', { position: { x: 5, y: 200 } });
  assert.equal(dialogs, 0);
  // An empty text shows a message instead of a blank page; a huge one is cut.
  await page.fill('#text', '   ');
  await page.waitForFunction(() => document.getElementById('input-message').textContent.length > 0);
  assert.match(await page.textContent('#input-message'), /at least one token/);
  await page.fill('#text', Array.from({ length: 300 }, (_, i) => `w${i}`).join(' '));
  await page.waitForFunction(() => document.getElementById('input-message').textContent.includes('128'));
  assert.match(await page.textContent('#input-message'), /first 128 tokens are used; 172 more/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a bad config shows the core’s message and the page keeps working', async () => {
  const { page, errors } = await openPlayground(`?preset=lab-a&text=${encodeURIComponent('a b c')}`);
  await waitForTokens(page, ['a', 'b', 'c']);
  await page.click('#config summary');
  await page.fill('#config input[name="num_attention_heads"]', '6');
  await page.waitForFunction(() => document.querySelectorAll('#config-problems li').length > 0);
  const problems = await page.$$eval('#config-problems li', (items) => items.map((li) => li.textContent));
  assert.ok(
    problems.includes('hidden_size (64) is not divisible by num_attention_heads (6) (head_dim = hidden_size / num_attention_heads)'),
    problems.join(' | '),
  );
  assert.equal(await page.isDisabled('#config-apply'), true);
  await page.fill('#config input[name="num_key_value_heads"]', '4');
  await page.waitForFunction(() => document.querySelectorAll('#config-problems li').length === 2);
  assert.match(await page.textContent('#config-problems'), /num_attention_heads \(6\) is not a multiple of num_key_value_heads \(4\)/);
  // The old model still answers.
  await typeText(page, 'a b c d');
  await waitForTokens(page, ['a', 'b', 'c', 'd']);
  // A valid edit (lab B's heads on lab A) builds, with its derived shapes.
  await page.fill('#config input[name="hidden_size"]', '96');
  await page.fill('#config input[name="num_key_value_heads"]', '3');
  await page.waitForFunction(() => document.querySelector('#config-problems .ok'));
  const derived = await page.$$eval('#derived dd', (dds) => dds.map((dd) => dd.textContent));
  assert.deepEqual(derived.slice(0, 4), ['16', '6 / 3 = 2', '(1, 4, 96)', '(1, 4, 48)']);
  await page.click('#config-apply');
  await page.waitForFunction(() => document.getElementById('head').options.length === 6);
  await waitForTokens(page, ['a', 'b', 'c', 'd']);
  assert.equal(await page.inputValue('#preset'), 'custom');
  assert.deepEqual(errors, []);
  await page.close();
});

test('exports: CSV and JSON hold the matrix, PNG is an image', async () => {
  const { page } = await openPlayground(`?preset=lab-a&text=${encodeURIComponent('a b, "c" =d')}`);
  await waitForTokens(page, ['a', 'b,', '"c"', '=d']);
  const grab = async (button) => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
    const path = await download.path();
    const { readFile } = await import('node:fs/promises');
    return { name: download.suggestedFilename(), bytes: await readFile(path) };
  };
  const csv = await grab('#export-csv');
  assert.equal(csv.name, 'minimind-lab-a-L0-H0-attn_weights.csv');
  // after the '# key: value' lines that say what the matrix is
  const all = csv.bytes.toString('utf8').trim().split('\r\n');
  const header = Object.fromEntries(
    all.filter((l) => l.startsWith('# ')).map((l) => [l.slice(2, l.indexOf(': ')), l.slice(l.indexOf(': ') + 2)]),
  );
  assert.match(header.model, /^lab-a \(untrained/, all.join('\n'));
  assert.equal(header.stage, 'attn_weights (softmax)');
  assert.equal(header.causal_mask, 'on');
  assert.deepEqual(JSON.parse(header.tokens), ['a', 'b,', '"c"', '=d']);
  const lines = all.filter((l) => !l.startsWith('# '));
  assert.equal(lines[0], 'query\\key,a,"b,","""c""",\'=d');
  assert.equal(lines.length, 5);
  assert.deepEqual(lines[1].split(',').slice(1).map(Number), [1, 0, 0, 0]);
  const json = JSON.parse((await grab('#export-json')).bytes.toString('utf8'));
  assert.deepEqual(json.tokens, ['a', 'b,', '"c"', '=d']);
  assert.deepEqual(json.shape, [4, 4]);
  const table = await readTable(page);
  assert.deepEqual(
    json.values[3],
    table.cells[3].map((c) => c.value),
  );
  const png = await grab('#export-png');
  assert.deepEqual([...png.bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  await page.close();
});

test('timings: load to first matrix and keystroke to redraw (lab-a, minimind2-small)', async () => {
  for (const preset of ['lab-a', 'minimind2-small']) {
    const { page } = await openPlayground(`?preset=${preset}&text=${encodeURIComponent(LESSON)}`, { watchProgress: true });
    await waitForTokens(page, LESSON.split(' '));
    const firstMatrix = await page.evaluate(() => performance.getEntriesByName('minimind:first-matrix')[0].startTime);
    const redraws = [];
    let keystrokes = 0;
    for (const word of ['今天', '天气', '很', '好', '吗']) {
      keystrokes += 1 + [...word].length;
      await page.type('#text', ` ${word}`, { delay: 20 });
      await page.waitForFunction((w) => [...document.querySelectorAll('#matrix-table thead th')].at(-1)?.textContent === w, word);
      // One measure per keystroke, ending after the frame that painted its matrix.
      await page.waitForFunction((n) => performance.getEntriesByName('minimind:keystroke-to-redraw').length >= n, keystrokes);
      redraws.push(await page.evaluate(() => performance.getEntriesByName('minimind:keystroke-to-redraw').at(-1).duration));
    }
    redraws.sort((a, b) => a - b);
    console.log(
      `# ${preset}: load to first matrix ${firstMatrix.toFixed(0)} ms; keystroke to redraw median ${redraws[2].toFixed(1)} ms (${redraws.map((r) => r.toFixed(1)).join(', ')})`,
    );
    assert.ok(firstMatrix > 0);
    // The build showed its progress bar (in the worker, the page stayed live).
    assert.ok(await page.evaluate(() => window.progressSeen), 'a progress bar was shown while the model built');
    if (preset === 'minimind2-small') await page.screenshot({ path: `${ARTIFACTS}minimind2-small.png`, fullPage: true });
    await page.close();
  }
});
