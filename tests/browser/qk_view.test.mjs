// "Why this weight" (web/panels/qk_panel.mjs) in headless Chromium on the
// trained model, in zh and en, desktop and phone: a click on the cell 她 → 小
// (of 小红) at the pronoun head opens the view, whose score, table and
// sentences are model.qk's in Node, worded by js/qk_text.mjs; Enter on a
// focused cell opens it too; a key after the query says the mask sets its
// weight to 0 and still gives the score; on a repeated sequence the induction
// head's cell at the second 小, key the token after the first 小, names what
// wrote the key side; no sideways scrolling on a phone; no page error.
// Screenshots of the section go to test-artifacts/.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { RANK_ASKED, componentRoles, qkSentences, shownComponents } from '../../js/qk_text.mjs';
import { encodeText } from '../../js/text_encoding.mjs';
import { wordParams } from '../../js/why_text.mjs';
import { errorText } from '../../web/error_text.mjs';
import { translate } from '../../web/i18n.mjs';
import { DEFAULTS } from '../../web/url_state.mjs';
import { ARTIFACTS, openPage, useServedBrowser } from './browser.mjs';
import { trainedModel } from './demo.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const site = useServedBrowser(ROOT);
const SIZES = { desktop: { width: 1400, height: 1000 }, phone: { width: 390, height: 844 } };
const REPEATED = '小红唱起了歌。小红唱起了歌';

/**
 * The text's ids and labels as the page reads them, and every layer's attention weights from the API in
 * Node with the page's switches (switches: {causalMask, ablate}).
 */
async function run(text, switches = {}) {
  const { model, tokenizer } = await trainedModel();
  const ids = encodeText(tokenizer, text);
  const tokens = tokenizer.display(ids).map((t) => t.text);
  const L = model.info().num_hidden_layers;
  const trace = model.forward(ids, { trace: { layers: 'all', stages: ['attn_weights'] }, ...switches }).trace;
  const T = ids.length;
  const attention = (name, position) => {
    const m = /^L(\d+)H(\d+)$/.exec(name);
    if (!m || Number(m[1]) >= L) return null;
    const data = trace.get(Number(m[1]), 'attn_weights').data;
    const start = (Number(m[2]) * T + position) * T;
    return data.subarray(start, start + T);
  };
  return { ids, tokens, attention };
}

/** model.qk in Node for a cell, and the sentences the page should show for it, in `lang`. */
async function expected(text, { layer, head, query, key }, lang, switches = {}) {
  const { model, tokenizer, heads } = await trainedModel();
  const { ids, tokens, attention } = await run(text, switches);
  const rank = layer === 0 ? { rankKeys: RANK_ASKED } : {};
  const answer = model.qk({ ids, layer, head, query, key, versus: 'mean', ...rank, ...switches });
  const lines = qkSentences(answer, {
    tokens,
    ids,
    roles: componentRoles(heads),
    attention,
    labelOf: (id) => tokenizer.display([id])[0].text,
    world: true,
  });
  const t = (k, params) => translate(lang, k, params);
  return { answer, sentences: lines.map(({ key: k, params }) => [k, t(k, wordParams(t, params))]) };
}

async function openPlayground(query, size) {
  const { page, errors } = await openPage(site.context);
  await page.setViewportSize(size);
  await page.goto(`${site.url}dist/site/index.html${query}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  await page.waitForFunction(() => document.getElementById('heatmap').dataset.layout);
  return { page, errors };
}

/** Clicks the matrix's cell (query i, key j), from the canvas's own layout. */
async function clickCell(page, i, j) {
  const layout = JSON.parse(await page.getAttribute('#heatmap', 'data-layout'));
  await page.locator('#heatmap').scrollIntoViewIfNeeded();
  const box = await page.locator('#heatmap').boundingBox();
  await page.mouse.click(box.x + layout.left + (j + 0.5) * layout.cell, box.y + layout.top + (i + 0.5) * layout.cell);
}

/**
 * Whether the matrix's cell (i, j) has the dashed red outline: the pixel inside its top edge's first dash
 * (the line is 2 px wide, centred 2 px into the cell; a whole pixel of it at a fractional origin).
 */
async function outlined(page, i, j) {
  const layout = JSON.parse(await page.getAttribute('#heatmap', 'data-layout'));
  return page.evaluate(
    ({ x, y }) => {
      const canvas = document.getElementById('heatmap');
      const ratio = canvas.width / canvas.getBoundingClientRect().width;
      const [r, g, b] = canvas.getContext('2d').getImageData(Math.floor(x * ratio), Math.floor(y * ratio), 1, 1).data;
      return r > 150 && g < 90 && b < 90;
    },
    { x: layout.left + j * layout.cell + 4, y: layout.top + i * layout.cell + 2 },
  );
}

/** Waits until the section's sentences are `sentences` ([key, text]): it followed a change on the page. */
function sentencesBecome(page, sentences) {
  return page.waitForFunction(
    (want) => {
      const qk = document.getElementById('qk');
      const shown = [...qk.querySelectorAll('.qk-sentences li')].map((li) => [li.dataset.key, li.textContent]);
      return qk.dataset.pending === 'false' && JSON.stringify(shown) === JSON.stringify(want);
    },
    sentences,
    { timeout: 60000 },
  );
}

/** The section once it answered the cell on screen: its sentences, table cells and ranked bars. */
async function qkShown(page) {
  await page.waitForFunction(
    () => {
      const qk = document.getElementById('qk');
      return !qk.hidden && qk.dataset.pending === 'false' && qk.querySelectorAll('.qk-sentences li').length > 0;
    },
    null,
    { timeout: 60000 },
  );
  return page.evaluate(() => {
    const qk = document.getElementById('qk');
    return {
      title: qk.querySelector('h3').textContent,
      sentences: [...qk.querySelectorAll('.qk-sentences li')].map((li) => [li.dataset.key, li.textContent]),
      cells: [...qk.querySelectorAll('.qk-cell')].map((c) => ({ q: c.dataset.q, k: c.dataset.k, value: Number(c.dataset.value) })),
      ranked: [...qk.querySelectorAll('.qk-ranked .qk-bar-row')].map((r) => ({ name: r.dataset.name, value: Number(r.dataset.value) })),
      rope: [...qk.querySelectorAll('.qk-rope .qk-bar-row[data-pair]')].map((r) => ({
        pair: Number(r.dataset.pair),
        rotated: Number(r.dataset.rotated),
        unrotated: Number(r.dataset.unrotated),
      })),
      error: qk.querySelector('.qk-error').hidden ? null : qk.querySelector('.qk-error').textContent,
      overflow: document.documentElement.scrollWidth - window.innerWidth,
    };
  });
}

function close(a, b, what) {
  assert.ok(Math.abs(a - b) <= 1e-4 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);
}

/** The table's cells drawn are model.qk's, the components shownComponents keeps. */
function checkTable(shown, answer) {
  const table = answer.versus && !answer.masked ? answer.versus.table : answer.table;
  const keep = shownComponents(table);
  assert.equal(shown.cells.length, keep.q.length * keep.k.length);
  for (const cell of shown.cells) {
    const a = answer.components.indexOf(cell.q);
    const b = answer.components.indexOf(cell.k);
    close(cell.value, table[a][b], `${cell.q} × ${cell.k}`);
  }
}

for (const lang of ['zh-CN', 'en'])
  for (const [sizeName, size] of Object.entries(SIZES)) {
    test(`${sizeName} ${lang}: 她 → 小 at the pronoun head, a masked cell, Enter on a cell`, async () => {
      const { heads } = await trainedModel();
      const { layer, head } = heads.pronounHead;
      const { tokens } = await run(DEFAULTS.text);
      const query = tokens.lastIndexOf('她');
      const key = tokens.lastIndexOf('小', query); // 小红's 小
      assert.ok(query > 0 && key > 0, 'the lesson sentence has 她 and 小红');
      const { page, errors } = await openPlayground(`?lang=${lang}`, size);
      assert.equal(await page.locator('#layer').inputValue(), String(layer), 'the page opens at the pronoun head');
      assert.equal(await page.locator('#head').inputValue(), String(head));

      await clickCell(page, query, key);
      const want = await expected(DEFAULTS.text, { layer, head, query, key }, lang);
      const shown = await qkShown(page);
      assert.deepEqual(shown.sentences, want.sentences);
      assert.ok(shown.sentences.some(([k]) => k === 'qk.ranked'));
      assert.ok(shown.sentences.some(([k]) => k === 'qk.ropePair'));
      checkTable(shown, want.answer);
      assert.equal(shown.ranked.length, 10);
      want.answer.ranked.slice(0, 10).forEach((r, k) => close(shown.ranked[k].value, r.score, `rank ${k + 1}`));
      assert.ok(shown.rope.length > 0);
      for (const { pair, rotated, unrotated } of shown.rope) {
        close(rotated, want.answer.ropePairs[pair], `pair ${pair}`);
        close(unrotated, want.answer.ropePairsUnrotated[pair], `pair ${pair} unrotated`);
      }
      assert.equal(shown.error, null);
      assert.ok(shown.overflow <= 0, `the page is ${shown.overflow}px wider than the window`);
      assert.match(page.url(), new RegExp(`cell=${query}%3A${key}`), 'the cell is in the link');
      await page.mouse.move(0, 0); // the focus ring off the cell: the dashed outline is the chosen cell's
      assert.ok(await outlined(page, query, key), 'the explained cell is outlined on the matrix');
      await page.locator('#qk').scrollIntoViewIfNeeded();
      await page.locator('#qk').screenshot({ path: `${ARTIFACTS}qk-${sizeName}-${lang}.png` });

      // A key after the query: the weight is 0 by the mask, the score still shown.
      await clickCell(page, 2, 5);
      const masked = await qkShown(page);
      const wantMasked = await expected(DEFAULTS.text, { layer, head, query: 2, key: 5 }, lang);
      assert.equal(wantMasked.answer.masked, true);
      assert.equal(masked.sentences[0][0], 'qk.masked');
      assert.deepEqual(masked.sentences, wantMasked.sentences);
      await page.locator('#qk').screenshot({ path: `${ARTIFACTS}qk-${sizeName}-${lang}-masked.png` });

      // Enter on the focused cell (moved to with the arrow keys from the first cell, the pointer away).
      await page.mouse.move(0, 0);
      await page.evaluate(() => {
        const canvas = document.getElementById('heatmap');
        canvas.blur();
        canvas.focus();
      });
      for (let k = 0; k < 3; k += 1) await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('Enter');
      const entered = await qkShown(page);
      const wantEntered = await expected(DEFAULTS.text, { layer, head, query: 3, key: 1 }, lang);
      assert.deepEqual(entered.sentences, wantEntered.sentences);
      assert.deepEqual(errors, []);
      await page.close();
    });
  }

for (const lang of ['zh-CN', 'en'])
  test(`desktop ${lang}: the induction head on a repeated sequence names what wrote the key side`, async () => {
    const { heads } = await trainedModel();
    const induction = heads.heads.find((h) => h.role === 'induction');
    const { tokens } = await run(REPEATED);
    const first = tokens.indexOf('小');
    const query = tokens.indexOf('小', first + 1);
    const key = first + 1; // the token after the first 小
    assert.ok(first > 0 && query > first);
    const text = encodeURIComponent(REPEATED);
    const { page, errors } = await openPlayground(
      `?lang=${lang}&text=${text}&layer=${induction.layer}&head=${induction.head}`,
      SIZES.desktop,
    );
    await clickCell(page, query, key);
    const want = await expected(REPEATED, { layer: induction.layer, head: induction.head, query, key }, lang);
    const shown = await qkShown(page);
    assert.deepEqual(shown.sentences, want.sentences);
    // The story the trained model tells: the previous-token head wrote the induction key, reading the 小 before it.
    const previous = heads.heads.find((h) => h.role === 'previous-token');
    const keySide = shown.sentences.find(([k]) => k === 'qk.keySide')[1];
    assert.ok(keySide.includes(`L${previous.layer}H${previous.head}`), keySide);
    assert.ok(keySide.includes(translate(lang, 'qk.role.previous-token')), keySide);
    assert.ok(shown.sentences.some(([k]) => k === 'qk.readsPrevious'));
    checkTable(shown, want.answer);
    await page.locator('#qk').scrollIntoViewIfNeeded();
    await page.locator('#qk').screenshot({ path: `${ARTIFACTS}qk-induction-${lang}.png` });

    // It follows the switches: the causal mask off, then L1H1 switched off as well, then another head.
    const cell = { layer: induction.layer, head: induction.head, query, key };
    await page.click('#causal');
    await sentencesBecome(page, (await expected(REPEATED, cell, lang, { causalMask: false })).sentences);
    assert.equal(
      await page.locator('#qk .qk-switches').textContent(),
      translate(lang, 'qk.switches', { switches: translate(lang, 'why.maskOff') }),
    );
    await page.click('#causal');
    const ablate = [[previous.layer, previous.head]];
    await page.goto(
      `${site.url}dist/site/index.html?lang=${lang}&text=${text}&layer=${induction.layer}&head=${induction.head}&cell=${query}:${key}&ablate=${previous.layer}:${previous.head}`,
    );
    const off = await expected(REPEATED, cell, lang, { ablate });
    await sentencesBecome(page, off.sentences);
    assert.ok(
      !off.sentences.find(([k]) => k === 'qk.keySide')[1].includes(`L${previous.layer}H${previous.head}`),
      'a head switched off writes nothing',
    );
    await page.selectOption('#head', '0');
    await sentencesBecome(page, (await expected(REPEATED, { ...cell, head: 0 }, lang, { ablate })).sentences);
    assert.match(await page.locator('#qk h3').textContent(), new RegExp(`L${induction.layer}H0`));

    // A cell kept in the link past the text's end: the message in the page's language.
    await page.goto(`${site.url}dist/site/index.html?lang=${lang}&text=${encodeURIComponent('小红')}&cell=9:1`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
    await page.waitForFunction(() => !document.querySelector('#qk .qk-error').hidden, null, { timeout: 60000 });
    const message = await page.locator('#qk .qk-error').textContent();
    const short = (await run('小红')).ids.length;
    const values = { which: 'query', position: 9, tokens: short };
    assert.equal(message, errorText(lang, { message: '', kind: 'qk.position_out_of_range', values }).text);
    assert.deepEqual(errors, []);
    await page.close();
  });
