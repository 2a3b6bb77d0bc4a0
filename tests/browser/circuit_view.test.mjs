// The circuit view (web/panels/circuit_panel.mjs) in headless Chromium on the
// trained model, in zh and en, desktop and phone: it draws the circuit of the
// why section's pair (the demo text's referent swapped), its faithfulness at
// the slider's N is model.circuit's in Node, moving the slider changes the N
// and the share shown, a tap on an edge shows its numbers, a head node opens
// that head's matrix and "why this weight", a typed text is followed, a text
// typed twice gets the induction pair, heads switched off are off in the
// circuit (its numbers are model.circuit's with them off) and named; no
// sideways scrolling on a phone, no
// page error. Screenshots of the section go to test-artifacts/.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { curveAt, curveSteps, edgeShares, inductionPair } from '../../js/circuit_text.mjs';
import { nextToken } from '../../js/pronoun_pair.mjs';
import { encodeText } from '../../js/text_encoding.mjs';
import { patchStory, storyPair } from '../../js/why_text.mjs';
import { DEFAULTS } from '../../web/url_state.mjs';
import { ARTIFACTS, openPage, useServedBrowser } from './browser.mjs';
import { trainedModel } from './demo.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const site = useServedBrowser(ROOT);
const SIZES = { desktop: { width: 1400, height: 1000 }, phone: { width: 390, height: 844 } };
const TYPED = '小红把书给了小明，他';
const TWICE = '小红唱起了歌。小红唱';

/** model.circuit in Node for the pair the why section derives from `text` (its last pronoun). */
async function expected(text, ablate = []) {
  const { model, tokenizer } = await trainedModel();
  const ids = encodeText(tokenizer, text);
  const labels = tokenizer.display(ids).map((d) => d.text);
  const pair = storyPair(patchStory(text, labels, labels.length - 1).story, tokenizer);
  const answer = nextToken(tokenizer, pair.clean, pair.answer);
  const wrong = nextToken(tokenizer, pair.clean, pair.wrong);
  const clean = encodeText(tokenizer, pair.clean);
  const corrupt = encodeText(tokenizer, pair.corrupt);
  return { pair, result: model.circuit({ clean, corrupt, answer, wrong, top: 50, positions: true, ablate }) };
}

async function openPlayground(query, size) {
  const { page, errors } = await openPage(site.context);
  await page.setViewportSize(size);
  await page.goto(`${site.url}dist/site/index.html${query}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  return { page, errors };
}

/** The view once it answered what is on screen (and shows N = `edges` when given). */
async function circuitShown(page, edges = null) {
  await page.waitForFunction(
    (n) => {
      const c = document.getElementById('circuit');
      const keeps = c?.querySelector('.circuit-keeps');
      return c && !c.hidden && c.dataset.pending === 'false' && keeps?.dataset.edges && (n === null || keeps.dataset.edges === String(n));
    },
    edges,
    { timeout: 60000 },
  );
  return page.evaluate(() => {
    const c = document.getElementById('circuit');
    const keeps = c.querySelector('.circuit-keeps');
    return {
      edges: Number(keeps.dataset.edges),
      eap: Number(keeps.dataset.eap),
      keeps: keeps.textContent,
      pair: c.querySelector('.circuit-pair').textContent,
      drawn: c.querySelectorAll('.circuit-edge').length,
      table: [...c.querySelectorAll('.circuit-table tr')].slice(1).map((tr) => tr.firstChild.textContent),
      sentences: [...c.querySelectorAll('.circuit-sentences li')].map((li) => li.dataset.key),
      overflow: document.documentElement.scrollWidth - window.innerWidth,
    };
  });
}

function close(a, b, what) {
  assert.ok(Math.abs(a - b) <= 1e-4, `${what}: ${a} vs ${b}`);
}

for (const lang of ['zh-CN', 'en'])
  for (const [sizeName, size] of Object.entries(SIZES)) {
    test(`${sizeName} ${lang}: the demo pair's circuit, the N slider, an edge's numbers, a head's matrix, a typed text`, async () => {
      const { pair, result } = await expected(DEFAULTS.text);
      assert.equal(pair.kind, 'name');
      const { page, errors } = await openPlayground(`?lang=${lang}`, size);
      const steps = curveSteps(result.curves);
      const start = steps.filter((n) => n <= 10).at(-1);
      const shown = await circuitShown(page);
      assert.equal(shown.edges, start);
      close(shown.eap, curveAt(result.curves, start).eap, `share at N = ${start}`);
      assert.equal(shown.drawn, start);
      assert.ok(shown.pair.includes(pair.corrupt), `the pair line names the corrupt text: ${shown.pair}`);
      assert.deepEqual(
        shown.table,
        result.edges.slice(0, shown.table.length).map((e) => `${e.from} → ${e.to}`),
      );
      assert.ok(shown.sentences.includes('circuit.metric'));
      assert.ok(shown.overflow <= 0, `the page is ${shown.overflow}px wider than the window`);
      await page.locator('#circuit').scrollIntoViewIfNeeded();
      await page.locator('#circuit').screenshot({ path: `${ARTIFACTS}circuit-${sizeName}-${lang}.png` });

      // The slider: N = 20 edges, the share the circuit of 20 keeps.
      const at = steps.indexOf(20);
      await page.locator('#circuit input[name="circuit-n"]').fill(String(at));
      const moved = await circuitShown(page, 20);
      close(moved.eap, curveAt(result.curves, 20).eap, 'share at N = 20');
      assert.notEqual(moved.keeps, shown.keeps);
      assert.equal(moved.drawn, 20);

      // A tap on the strongest edge (drawn last, on top): its numbers, inside the window.
      const strongest = result.edges[0];
      await page.locator(`#circuit .circuit-hit[data-edge="${strongest.from}->${strongest.to}"]`).dispatchEvent('click');
      const tip = await page.evaluate(() => {
        const b = document.querySelector('#circuit .circuit-tip');
        const r = b.getBoundingClientRect();
        return { hidden: b.hidden, text: b.textContent, edge: b.dataset.edge, right: r.right, width: window.innerWidth };
      });
      assert.equal(tip.hidden, false);
      assert.equal(tip.edge, `${strongest.from}->${strongest.to}`);
      const share = edgeShares(strongest, result.metric).patched;
      assert.ok(tip.text.includes(`${Math.round(share * 100)}%`), tip.text);
      assert.ok(tip.text.includes(strongest.score.toFixed(2)), tip.text);
      assert.ok(tip.right <= tip.width, 'the tooltip stays inside the window');

      // A head node: its matrix and "why this weight".
      await page.locator('#circuit [data-node="L2H2"]').dispatchEvent('click');
      await page.waitForFunction(() => document.getElementById('layer').value === '2' && document.getElementById('head').value === '2');
      await page.waitForFunction(() => !document.getElementById('qk').hidden && /cell=/.test(location.search), null, { timeout: 30000 });

      // A typed text: the circuit of its own pair.
      const typed = await expected(TYPED);
      await page.fill('#text', TYPED);
      await page.waitForFunction((c) => document.querySelector('#circuit .circuit-pair')?.textContent.includes(c), typed.pair.corrupt, {
        timeout: 60000,
      });
      const followed = await circuitShown(page);
      close(followed.eap, curveAt(typed.result.curves, followed.edges).eap, `typed text's share at N = ${followed.edges}`);
      assert.deepEqual(
        followed.table,
        typed.result.edges.slice(0, followed.table.length).map((e) => `${e.from} → ${e.to}`),
      );
      assert.ok(followed.overflow <= 0);
      assert.deepEqual(errors, []);
      await page.close();
    });
  }

test('a text typed twice gets the induction pair and its sentence', async () => {
  const { model, tokenizer } = await trainedModel();
  const ids = encodeText(tokenizer, TWICE);
  const induction = inductionPair(Array.from(ids));
  assert.ok(induction, 'the text is typed twice');
  const result = model.circuit({ ...induction, top: 50, positions: true });
  const { page, errors } = await openPlayground('?lang=en', SIZES.phone);
  await page.fill('#text', TWICE);
  await page.waitForFunction(() => document.querySelector('#circuit .circuit-sentences li[data-key^="circuit.induction"]'), null, {
    timeout: 60000,
  });
  const shown = await circuitShown(page);
  close(shown.eap, curveAt(result.curves, shown.edges).eap, 'share of the induction pair');
  assert.ok(shown.overflow <= 0);
  await page.locator('#circuit').screenshot({ path: `${ARTIFACTS}circuit-induction-phone-en.png` });
  assert.deepEqual(errors, []);
  await page.close();
});

test('names the heads switched off: the circuit is computed with them off, and its numbers change', async () => {
  const { result: on } = await expected(DEFAULTS.text);
  const { result } = await expected(DEFAULTS.text, [[0, 3]]);
  // The switch matters on this pair: the metric and the curve differ with L0H3 off.
  assert.ok(Math.abs(result.metric.clean - on.metric.clean) > 1e-3, `clean metric ${result.metric.clean} vs ${on.metric.clean}`);
  const { page, errors } = await openPlayground('?lang=zh-CN&ablate=0:3', SIZES.desktop);
  const shown = await circuitShown(page);
  // The view's share is model.circuit's with L0H3 off, and every edge from or to L0H3 is 0.
  close(shown.eap, curveAt(result.curves, shown.edges).eap, 'share with L0H3 off');
  for (const edge of result.edges.filter((e) => e.from === 'L0H3' || e.to.startsWith('L0H3.'))) assert.equal(edge.score, 0);
  const differs = result.curves.eap.some((p, i) => Math.abs(p.share - on.curves.eap[i].share) > 1e-4);
  assert.ok(differs, 'the faithfulness curve changes with L0H3 off');
  const note = await page.evaluate(() => {
    const p = document.querySelector('#circuit .circuit-plain');
    return p.hidden ? null : p.textContent;
  });
  assert.ok(note?.includes('关掉 L0H3'), `the note says the circuit is computed with L0H3 off: ${note}`);
  assert.ok(!note.includes('√d'), `mask and √d are on, so the note does not mention them: ${note}`);
  await page.locator('#circuit').screenshot({ path: `${ARTIFACTS}circuit-ablate-desktop-zh.png` });
  assert.deepEqual(errors, []);
  await page.close();
});
