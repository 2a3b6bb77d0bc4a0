// The why section follows what is on screen (issue "A why section that stays
// true to the screen"), on the trained model in headless Chromium, zh and en,
// desktop and phone: the default pair swaps the referent for another name and
// its residual grid moves from the name's first token to the pronoun; a typed
// sentence selects its pronoun's row, derives its own pair, and every sentence
// of the story is the one the JS API's numbers give for that text and row;
// switching L0H3 off reaches the lens, attribution and patching, and each says
// so; clicking the selected row keeps it selected.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { nextToken } from '../../js/pronoun_pair.mjs';
import { attributionSentences, defaultRow, measuresDiffer, patchSentences, rowStory, storyPair, wordParams } from '../../js/why_text.mjs';
import { encodeText } from '../../js/text_encoding.mjs';
import { translate } from '../../web/i18n.mjs';
import { ARTIFACTS, openPage, useServedBrowser } from './browser.mjs';
import { trainedModel } from './demo.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const site = useServedBrowser(ROOT);
const SIZES = { desktop: { width: 1400, height: 1000 }, phone: { width: 390, height: 844 } };
const TYPED = '小红把球给了小明，他很开心';

// What the page should say for `text` at its default row, by the JS API in Node:
// {row, pair, lines: {key: text}} for the story's patching and attribution sentences.
async function expectedStory(text, lang, ablate = []) {
  const { model, tokenizer, heads } = await trainedModel();
  const ids = encodeText(tokenizer, text);
  const labels = tokenizer.display(ids).map((t) => t.text);
  const row = defaultRow(text, labels);
  const story = rowStory(text, labels, row);
  const pair = storyPair(story, tokenizer);
  const options = ablate.length ? { ablate } : {};
  const cleanIds = encodeText(tokenizer, pair.clean);
  const patch = model.patch({
    clean: cleanIds,
    corrupt: encodeText(tokenizer, pair.corrupt),
    answer: nextToken(tokenizer, pair.clean, pair.answer),
    wrong: nextToken(tokenizer, pair.clean, pair.wrong),
    ...options,
  });
  const cleanLabels = tokenizer.display(cleanIds).map((t) => t.text);
  const corruptLabels = tokenizer.display(encodeText(tokenizer, pair.corrupt)).map((t) => t.text);
  const result = { ...patch, tokens: { clean: cleanLabels, corrupt: corruptLabels } };
  const attribution = model.attribute(ids, {
    position: row,
    answer: nextToken(tokenizer, story.prefix, story.answer),
    wrong: nextToken(tokenizer, story.prefix, story.wrong),
    ...options,
  });
  const t = (key, params) => translate(lang, key, params);
  const lines = {};
  const add = (line) => line && (lines[line.key] = t(line.key, wordParams(t, line.params)));
  patchSentences(result)
    .filter((line) => !line.key.startsWith('why.patch.residual'))
    .forEach(add);
  attributionSentences(attribution, heads.pronounHead)
    .filter((line) => line.key !== 'why.attr.total')
    .forEach(add);
  add(measuresDiffer(result, attribution, heads.pronounHead));
  return { row, story, pair, lines, patch };
}

// The section once every part answered the text on screen.
async function whySettled(page) {
  await page.waitForFunction(
    () => {
      const why = document.getElementById('why');
      const patch = why.querySelector('.why-patch');
      return (
        !why.hidden &&
        why.dataset.pending === 'false' &&
        patch.dataset.pending === 'false' &&
        !patch.querySelector('.why-patch-heads').hidden &&
        why.querySelectorAll('.why-story li').length > 0 &&
        document.getElementById('prediction-box').dataset.pending === 'false'
      );
    },
    null,
    { timeout: 60000 },
  );
  return page.evaluate(() => {
    const why = document.getElementById('why');
    const grid = (selector) =>
      [...why.querySelectorAll(`${selector} .value-cell`)].map((c) => ({
        row: Number(c.dataset.row),
        col: Number(c.dataset.col),
        value: c.dataset.value,
        text: c.textContent,
      }));
    return {
      row: Number(new URLSearchParams(location.search).get('row')),
      noteRow: Number(document.getElementById('head-note').dataset.row),
      title: why.querySelector('h4').textContent,
      story: Object.fromEntries([...why.querySelectorAll('.why-story li')].map((li) => [li.dataset.key, li.textContent])),
      storyTitle: why.querySelector('.why-story').previousElementSibling.textContent,
      pairNote: why.querySelector('.why-pair').hidden ? null : why.querySelector('.why-pair').textContent,
      clean: why.querySelector('.why-patch input[name="clean"]').value,
      corrupt: why.querySelector('.why-patch input[name="corrupt"]').value,
      heads: grid('.why-patch-heads'),
      residual: grid('.why-patch-residual'),
      ablated: why.querySelector('.why-ablated').hidden ? null : why.querySelector('.why-ablated').textContent,
      bars: [...why.querySelectorAll('.attribution-row')].map((r) => ({
        kind: r.dataset.kind,
        name: r.dataset.name,
        value: r.dataset.value,
      })),
      prediction: document.querySelector('#prediction li')?.textContent ?? '',
      overflow: document.documentElement.scrollWidth - window.innerWidth,
    };
  });
}

// The column of each residual row's largest cell.
function largestColumns(cells) {
  const rows = new Map();
  for (const c of cells) {
    const v = Number(c.value);
    if (!Number.isFinite(v)) continue;
    if (!rows.has(c.row) || v > rows.get(c.row).v) rows.set(c.row, { v, col: c.col });
  }
  return [...rows.keys()].sort((a, b) => a - b).map((r) => rows.get(r).col);
}

function checkLines(shown, expected, keys) {
  for (const key of keys) assert.equal(shown.story[key], expected.lines[key], key);
}

for (const lang of ['zh-CN', 'en']) {
  for (const [size, viewport] of Object.entries(SIZES)) {
    test(`${size} ${lang}: the why section follows the typed sentence, its row and the head switches`, async () => {
      const t = (key, params) => translate(lang, key, params);
      const { page, errors } = await openPage(site.context);
      await page.setViewportSize(viewport);
      await page.goto(`${site.url}dist/site/index.html?lang=${lang}`);
      await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });

      // The default pair swaps 小红 for 苏静; the residual grid moves from 小 to 她 in block 0.
      const first = await whySettled(page);
      const { tokenizer } = await trainedModel();
      assert.equal(first.corrupt, first.clean.replace('小红', '苏静'));
      const cleanLabels = tokenizer.display(encodeText(tokenizer, first.clean)).map((x) => x.text);
      const columns = largestColumns(first.residual);
      assert.equal(cleanLabels[columns[0]], '小', 'after the embeddings: the name’s first token');
      assert.equal(cleanLabels[columns[0] + 1], '红');
      for (const col of columns.slice(1)) assert.equal(col, cleanLabels.length - 1, 'after every block: the pronoun');
      assert.equal(first.story['why.patch.jump']?.includes('L0'), true, JSON.stringify(first.story));

      // A typed sentence: its pronoun's row is selected, and its own pair and story follow.
      await page.fill('#text', TYPED);
      // Until the answer for the typed text is in, the section says it is updating.
      await page.waitForSelector('#why .why-updating:not([hidden])', { timeout: 10000 });
      const expected = await expectedStory(TYPED, lang);
      await page.waitForFunction((row) => new URLSearchParams(location.search).get('row') === String(row), expected.row);
      const typed = await whySettled(page);
      assert.equal(typed.row, expected.row);
      assert.equal(typed.noteRow, expected.row, 'the note talks about the selected row');
      assert.deepEqual([typed.clean, typed.corrupt], [expected.pair.clean, expected.pair.corrupt]);
      assert.equal(expected.pair.kind, 'pronoun'); // 小明 is the only one-token name
      assert.ok(typed.pairNote.includes('小明') && typed.pairNote.includes('他 → 她'), typed.pairNote);
      assert.ok(typed.storyTitle.includes('他') && typed.storyTitle.includes('小明'), typed.storyTitle);
      checkLines(typed, expected, [
        'why.patch.metrics',
        'why.patch.head',
        'why.patch.lastOnly',
        'why.attr.top',
        'why.attr.named',
        'why.attr.versusPatch',
      ]);
      assert.ok(!Object.values(typed.story).some((line) => line.includes('10.23')), 'no number of the lesson’s pair');
      assert.ok(typed.overflow <= 0, `the page is ${typed.overflow}px wider than the screen`);
      await page.locator('#why').screenshot({ path: `${ARTIFACTS}why-follows-${size}-${lang}.png` });

      // L0H3 off: every view is of the model without it, and says so.
      await page.click('.head-switch[data-layer="0"][data-head="3"]');
      await page.waitForFunction(() => !document.querySelector('#why .why-ablated').hidden);
      const offExpected = await expectedStory(TYPED, lang, [[0, 3]]);
      const off = await whySettled(page);
      assert.ok(off.ablated.includes('L0H3'), off.ablated);
      assert.ok(off.story['why.story.off']?.includes('L0H3'), JSON.stringify(off.story));
      const cell = off.heads.find((c) => c.row === 0 && c.col === 3);
      assert.deepEqual([cell.value, cell.text], ['off', t('why.patch.off')]);
      assert.equal(Number(off.bars.find((b) => b.name === 'L0H3')?.value ?? NaN), 0, 'a switched-off head writes nothing');
      checkLines(off, offExpected, ['why.patch.metrics', 'why.patch.head', 'why.attr.top']);
      assert.notEqual(off.story['why.patch.metrics'], typed.story['why.patch.metrics'], 'patching changed');
      assert.notEqual(off.story['why.attr.top'] ?? '', typed.story['why.attr.top'], 'attribution changed');
      await page.click('.head-switch[data-layer="0"][data-head="3"]');
      await page.waitForFunction(() => document.querySelector('#why .why-ablated').hidden);

      // Enter on the selected row keeps it selected (no silent deselection).
      await page.focus('#heatmap');
      for (let i = 0; i < expected.row; i += 1) await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await page.keyboard.press('Enter');
      assert.equal(new URL(page.url()).searchParams.get('row'), String(expected.row));
      assert.deepEqual(errors, []);
      await page.close();
    });
  }
}
