// The gallery (dist/site/gallery.html) in headless Chromium: every figure
// draws, lazily and without console errors; every worked example of lesson
// 2.5 shows the numbers the lesson prints (LESSON_EXAMPLES' `checks`, which
// are copied from the lesson), and where the lesson rounded or drew an
// illustration the exact values are shown and the caption says so; labs A
// and B show the records lesson 11 expects; each "open in playground" link
// opens the playground on the same numbers; a copied snippet works on a page
// of its own; the language switch changes the captions. Full-page
// screenshots go to test-artifacts/.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { EXERCISES } from '../../js/exercises.mjs';
import { loadMiniMind } from '../../js/minimind.mjs';
import { SECTIONS } from '../../web/gallery.mjs';
import { LESSON_EXAMPLES } from '../../web/lesson_examples.mjs';
import { validateLesson } from '../../web/lesson_input.mjs';
import { translate } from '../../web/i18n.mjs';
import { readUrlState } from '../../web/url_state.mjs';
import { formatValue } from '../../web/views/lesson_matrices.mjs';
import { ARTIFACTS, afterFrames, openPage, useServedBrowser } from './browser.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const GALLERY = 'dist/site/gallery.html';
const FIGURE_COUNT = SECTIONS.flatMap((s) => s.examples).reduce((n, e) => n + (e.figures?.length ?? 0), 0);

const site = useServedBrowser(ROOT); // the repository: the gallery in dist/site/, a blank page in tests/browser/

/** The gallery with every figure scrolled to and drawn. */
async function openGallery(lang, { width = 1200, height = 900 } = {}) {
  const { page, errors } = await openPage(site.context);
  await page.setViewportSize({ width, height });
  await page.goto(`${site.url}${GALLERY}?lang=${lang}`);
  await page.waitForFunction((n) => document.querySelectorAll('minimind-attention').length === n, FIGURE_COUNT);
  const lazy = await page.$$eval('minimind-attention', (figures) => figures.map((f) => f.dataset.state));
  for (let i = 0; i < FIGURE_COUNT; i += 1) {
    await page.evaluate((k) => document.querySelectorAll('minimind-attention')[k].scrollIntoView(), i);
    await page.waitForFunction((k) => document.querySelectorAll('minimind-attention')[k].dataset.state !== 'loading', i, {
      timeout: 30000,
    });
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  return { page, errors, lazy };
}

/** Each figure of an example: {state, title, link, stages: {stage: {text, values}}, record, matrices}. */
function readExample(page, id) {
  return page.evaluate((exampleId) => {
    const article = document.getElementById(exampleId);
    const figures = [...article.querySelectorAll('minimind-attention')].map((figure) => {
      const root = figure.shadowRoot;
      const stages = {};
      for (const panel of root.querySelectorAll('.panel')) {
        const rows = [...panel.querySelectorAll('tbody tr')];
        stages[panel.dataset.stage] = {
          cols: [...panel.querySelectorAll('thead th')].slice(1).map((th) => th.textContent),
          text: rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)),
          values: rows.map((r) => [...r.querySelectorAll('td')].map((td) => Number(td.dataset.value))),
          masked: rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.dataset.masked === 'true')),
        };
      }
      const record = Object.fromEntries(
        [...root.querySelectorAll('table.record tr[data-key]')].map((tr) => [
          tr.dataset.key,
          { lesson: tr.querySelector('.expected').textContent, ours: tr.querySelector('.ours').textContent, status: tr.dataset.status },
        ]),
      );
      return {
        state: figure.dataset.state,
        title: root.querySelector('.title').textContent,
        link: root.querySelector('a.open').href,
        openLinks: root.querySelectorAll('a[href*="index.html"]').length,
        note: root.querySelector('.note:not([hidden])')?.textContent ?? null,
        weights: figure.weights,
        matrices: figure.matrices,
        stages,
        record,
      };
    });
    return {
      title: article.querySelector('h3').textContent,
      caption: article.querySelector('.caption').textContent,
      // The figure's own "open in playground" link (the iframe's: the framed page's, once it loaded).
      link: figures[0]?.link ?? article.querySelector('iframe')?.contentDocument?.getElementById('open-playground')?.href ?? null,
      articleLinks: article.querySelectorAll('a').length,
      snippet: article.querySelector('details.snippet code').textContent,
      frame: article.querySelector('iframe')?.src ?? null,
      figures,
    };
  }, id);
}

// The lesson's numbers, computed by the JS API in Node from the example's own matrices.
async function lessonInNode(example, mm) {
  const { request } = validateLesson(example, { causal: example.causal });
  const result =
    request.kind === 'scores'
      ? mm.lessonSoftmax(request.scores, { causal: example.causal })
      : mm.lessonAttention({ q: request.q, k: request.k, v: request.v, causal: example.causal, scale: example.scale });
  const rows = ({ shape, data }) => Array.from({ length: shape[0] }, (_, i) => Array.from(data.subarray(i * shape[1], (i + 1) * shape[1])));
  return Object.fromEntries(Object.entries(result).map(([name, m]) => [name, rows(m)]));
}

test('the gallery opens with its figures waiting below the fold, then draws every one without console errors', async () => {
  const { page, errors, lazy } = await openGallery('en');
  assert.ok(lazy.at(-1) === 'loading', `the last figure waits until it is scrolled to (${lazy.join(', ')})`);
  const states = await page.$$eval('minimind-attention', (figures) =>
    figures.map((f) => [f.closest('article').id, f.dataset.state, f.shadowRoot.querySelector('.status').textContent]),
  );
  assert.equal(states.length, FIGURE_COUNT);
  for (const [id, state, status] of states) assert.equal(state, 'ready', `${id}: ${status}`);
  // Every lesson 2.5 example is there, and lesson 11's.
  const ids = await page.$$eval('article.example', (articles) => articles.map((a) => a.id));
  for (const { id } of LESSON_EXAMPLES) assert.ok(ids.includes(id), id);
  for (const id of ['sentence', 'mask-off', 'raw-scaled', 'masked-iframe', 'gqa', 'lab-a', 'lab-b']) assert.ok(ids.includes(id), id);
  // One example is the playground in an iframe: its compact view draws.
  const frame = page.frames().find((f) => f.url().includes('embed=1'));
  assert.ok(frame, 'the iframe example loads the playground');
  await frame.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  assert.equal(new URL(frame.url()).searchParams.get('stage'), 'scores_masked');
  assert.deepEqual(errors, []);
  await page.close();
});

test('lesson 2.5: every worked example shows the numbers the lesson prints; where it rounded, the exact ones and a caption that says so', async () => {
  const mm = await loadMiniMind();
  const { page, errors } = await openGallery('en');
  for (const example of LESSON_EXAMPLES) {
    const shown = await readExample(page, example.id);
    assert.equal(shown.figures.length, 1, example.id);
    const [figure] = shown.figures;
    assert.equal(figure.state, 'ready', example.id);
    // The core's numbers, exactly as the JS API computes them in Node.
    const expected = await lessonInNode(example, mm);
    for (const [name, rows] of Object.entries(expected)) assert.deepEqual(figure.matrices[name], rows, `${example.id} ${name}`);
    const typed = example.kind === 'scores';
    for (const check of example.checks) {
      const stage = typed && check.stage === 'scaled' ? 'raw' : check.stage;
      const panel = figure.stages[stage];
      assert.ok(panel, `${example.id}: the figure shows ${stage} for "${check.label}"`);
      const values = panel.values[check.row];
      const ours =
        check.col === undefined ? values.map((x) => formatValue(x, check.decimals)) : formatValue(values[check.col], check.decimals);
      const what = `${example.id} ${check.label}: ours ${ours}, the lesson ${check.lesson}`;
      if (check.status === undefined) assert.deepEqual(ours, check.lesson, what);
      else if (check.status === 'input') {
        // The lesson started from unrounded numbers: the last printed digit may differ by 1.
        ours.forEach((x, j) => assert.ok(Math.abs(Number(x) - Number(check.lesson[j])) <= 1.01e-4, what));
      } else {
        assert.notDeepEqual(ours, check.lesson, `${what} (marked ${check.status})`);
        assert.match(shown.caption, check.status === 'rounded' ? /rounded/ : /illustration/, `${example.id}: the caption says why`);
      }
    }
    // Softmax rows sum to 1 and what the mask hides gets exactly 0.
    const weights = figure.stages.weights;
    weights.values.forEach((row, i) => {
      assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-6, `${example.id} row ${i}`);
      row.forEach((w, j) => weights.masked[i][j] && assert.equal(w, 0));
    });
  }

  // The lesson's own lines, as printed.
  const she = (await readExample(page, 'she')).figures[0];
  assert.deepEqual(she.stages.weights.cols, ['小红', '很', '她']);
  assert.deepEqual(she.stages.weights.text[2], ['0.4925', '0.1277', '0.3798']);
  assert.deepEqual(
    she.stages.weights.values[2].map((x) => x.toFixed(3)),
    ['0.493', '0.128', '0.380'],
  );
  assert.deepEqual(she.stages.raw.text[2], ['1.4600', '0.1100', '1.2000']);
  const softmax = (await readExample(page, 'softmax')).figures[0];
  assert.deepEqual(softmax.stages.weights.text, [
    ['0.09', '0.24', '0.67'],
    ['0.00', '0.00', '1.00'],
  ]);
  const maskedSoftmax = (await readExample(page, 'masked-softmax')).figures[0];
  assert.deepEqual(maskedSoftmax.stages.raw.text, [['1.00', '2.00', '−∞']]);
  assert.deepEqual(maskedSoftmax.stages.weights.text, [['0.27', '0.73', '0.00']]);
  // The causal mask on 今天 天气 很 好: −∞ above the diagonal; the exact softmax, 4 decimals.
  const causal = await readExample(page, 'causal');
  const mask = causal.figures[0].stages;
  assert.deepEqual(mask.masked.cols, ['今天', '天气', '很', '好']);
  assert.deepEqual(mask.masked.text, [
    ['0.8000', '−∞', '−∞', '−∞'],
    ['0.5000', '0.6000', '−∞', '−∞'],
    ['0.3000', '0.7000', '0.4000', '−∞'],
    ['0.2000', '0.5000', '0.3000', '0.8000'],
  ]);
  assert.deepEqual(mask.weights.text[0], ['1.0000', '0.0000', '0.0000', '0.0000']);
  assert.deepEqual(mask.weights.text[1], ['0.4750', '0.5250', '0.0000', '0.0000']);
  assert.match(causal.caption, /0\.47 \/ 0\.53/);
  assert.match(causal.caption, /0\.4750 \/ 0\.5250/);
  assert.match(causal.caption, /rounded/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('lesson 11, labs A and B: the records the lesson expects, beside batch 0, head 0’s weights', async () => {
  const { page, errors } = await openGallery('en');
  const expectations = {
    'lab-a': {
      'x.shape': '(2, 5, 64)',
      'q_proj(x).shape': '(2, 5, 64)',
      'k_proj(x).shape': '(2, 5, 32)',
      'v_proj(x).shape': '(2, 5, 32)',
      'scores.shape': '(2, 4, 5, 5)',
      future_attention_mass_for_batch0_head0: '0.0000000000',
    },
    'lab-b': {
      head_dim: '16',
      'q_proj(x).shape': '(2, 5, 96)',
      'k_proj(x).shape': '(2, 5, 48)',
      'xq.shape': '(2, 5, 6, 16)',
      'xk after repeat shape': '(2, 5, 6, 16)',
      'scores.shape': '(2, 6, 5, 5)',
    },
  };
  for (const [lab, lines] of Object.entries(expectations)) {
    const [figure] = (await readExample(page, lab)).figures;
    for (const [key, value] of Object.entries(lines)) {
      assert.deepEqual(figure.record[key], { lesson: value, ours: value, status: 'same' }, `${lab} ${key}`);
    }
    // The weights of batch 0, head 0: lower-triangular, rows summing to 1, printed to 4 decimals.
    const weights = figure.stages.weights;
    assert.deepEqual(weights.cols, ['#3', '#4', '#5', '#6', '#7']);
    weights.values.forEach((row, i) => {
      row.forEach((w, j) => j > i && assert.equal(w, 0, `${lab} future ${i},${j}`));
      assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 5e-4, `${lab} row ${i}`);
    });
    assert.deepEqual(figure.weights, weights.values);
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('each contents link lands with its heading at the top once the figures around it drew (desktop and phone)', async () => {
  for (const [width, height] of [
    [1200, 900],
    [390, 844],
  ]) {
    const { page, errors } = await openPage(site.context);
    await page.setViewportSize({ width, height });
    const open = async () => {
      await page.goto(`${site.url}${GALLERY}?lang=zh-CN`);
      await page.waitForFunction((n) => document.querySelectorAll('minimind-attention').length === n, FIGURE_COUNT);
    };
    await open();
    const targets = await page.$$eval('#contents a', (links) => links.map((a) => a.hash));
    // The sections and their examples, the tour's chapters (one link), then the exercises' section and its exercises.
    assert.equal(targets.length, SECTIONS.length + SECTIONS.flatMap((s) => s.examples).length + 1 + 1 + EXERCISES.length);
    for (const hash of targets) {
      await open(); // a reader arriving: no figure drawn yet
      await page.click(`#contents a[href="${hash}"]`);
      // Every figure within the element's 200 px margin of the window has drawn (or failed), then two frames pass.
      await page.waitForFunction(
        () =>
          [...document.querySelectorAll('minimind-attention')].every((f) => {
            const r = f.getBoundingClientRect();
            return r.bottom < -200 || r.top > innerHeight + 200 || f.dataset.state !== 'loading';
          }),
        null,
        { timeout: 30000 },
      );
      await afterFrames(page);
      const { top, atBottom } = await page.evaluate((id) => {
        const heading = document.getElementById(decodeURIComponent(id.slice(1))).querySelector('h2, h3');
        const end = document.documentElement.scrollHeight - innerHeight;
        return { top: heading.getBoundingClientRect().top, atBottom: scrollY >= end - 1 };
      }, hash);
      // The last examples sit too near the end of the page to reach the top: they are in view instead.
      if (atBottom) assert.ok(top >= -2 && top < height - 40, `${hash}: heading in view at ${Math.round(top)} px (${width}px)`);
      else assert.ok(top >= -2 && top <= 40, `${hash}: heading ${Math.round(top)} px from the top (${width}px)`);
    }
    assert.deepEqual(errors, []);
    await page.close();
  }
});

/** The playground page in example `id`'s iframe, scrolled to (it loads lazily) and ready. */
async function framedPage(page, id) {
  await page.evaluate((exampleId) => document.getElementById(exampleId).scrollIntoView(), id);
  const frame = await (await page.$(`#${id} iframe`)).contentFrame();
  await frame.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  return frame;
}

// The matrix the playground shows, as rows of numbers (masked cells: 0).
function playgroundMatrix(page) {
  return page.$$eval('#matrix-table tbody tr', (rows) =>
    rows.map((row) => [...row.querySelectorAll('td')].map((td) => (td.dataset.value === undefined ? 0 : Number(td.dataset.value)))),
  );
}

test('"open in playground": exactly one link per figure, opening the playground on the same numbers', async () => {
  const { page, errors } = await openGallery('en');
  const frames = {};
  for (const section of SECTIONS) {
    for (const example of section.examples) {
      if (example.iframe) frames[example.id] = await framedPage(page, example.id);
      const shown = await readExample(page, example.id);
      assert.equal(shown.articleLinks, 0, `${example.id}: the article adds no link of its own`);
      for (const figure of shown.figures) assert.equal(figure.openLinks, 1, `${example.id}: one link in each figure`);
      const url = new URL(shown.link);
      assert.equal(url.pathname, '/dist/site/index.html', example.id);
      assert.equal(url.searchParams.has('embed'), false, example.id);
      assert.equal(readUrlState(url.search).lang, 'en', example.id);
    }
  }
  const open = async (href, ready) => {
    const { page: playground, errors: playgroundErrors } = await openPage(site.context, href);
    await playground.waitForSelector(ready, { timeout: 30000 });
    return { playground, playgroundErrors };
  };

  // A lesson 2.5 example: lesson mode on the same matrices and switches.
  const she = await readExample(page, 'she');
  assert.deepEqual(readUrlState(new URL(she.link).search).lesson.example, 'she');
  let { playground, playgroundErrors } = await open(she.link, '#lesson-panels [data-lesson-stage="weights"]');
  await playground.waitForFunction(() => document.getElementById('lesson-view').dataset.pending === 'false');
  const lessonWeights = await playground.$$eval('#lesson-panels [data-lesson-stage="weights"] tbody tr', (rows) =>
    rows.map((r) => [...r.querySelectorAll('td')].map((td) => Number(td.dataset.value))),
  );
  assert.deepEqual(lessonWeights, she.figures[0].matrices.weights);
  assert.equal(await playground.isChecked('#causal'), false);
  assert.equal(await playground.isChecked('#scale'), false);
  assert.deepEqual(playgroundErrors, []);
  await playground.close();

  // A model example: the same preset, layer, head and stage.
  const raw = await readExample(page, 'raw-scaled');
  ({ playground, playgroundErrors } = await open(raw.link, 'body[data-ready="true"]'));
  await playground.waitForFunction((n) => document.querySelectorAll('#matrix-table tbody tr').length === n, raw.figures[0].weights.length);
  assert.equal(await playground.getAttribute('[data-stage="scores_raw"]', 'aria-checked'), 'true');
  assert.deepEqual(await playgroundMatrix(playground), raw.figures[0].weights);
  assert.deepEqual(playgroundErrors, []);
  await playground.close();

  // Lab A: the lab's record and its matrix, batch 0's ids at layer 0, head 0.
  const lab = await readExample(page, 'lab-a');
  ({ playground, playgroundErrors } = await open(lab.link, '#lab-record'));
  await playground.waitForFunction(() => document.querySelectorAll('#matrix-table tbody tr').length === 5);
  const matrix = await playgroundMatrix(playground);
  assert.deepEqual(
    matrix.map((row) => row.map((x) => x.toFixed(4))),
    lab.figures[0].stages.weights.text,
  );
  const record = await playground.$$eval('#lab-record tr[data-key] .our-value', (cells) => cells.map((c) => c.textContent));
  assert.ok(record.includes('(2, 4, 5, 5)'));
  assert.deepEqual(playgroundErrors, []);
  await playground.close();

  // The iframe example: its link is the framed view, full size.
  const framed = await readExample(page, 'masked-iframe');
  const frameState = readUrlState(new URL(framed.frame).search);
  const linkState = readUrlState(new URL(framed.link).search);
  assert.equal(frameState.embed, true);
  assert.deepEqual({ ...linkState, embed: true }, frameState);
  // Each framed page shows one link to the playground, as a figure does.
  for (const [id, framedDoc] of Object.entries(frames)) {
    const links = await framedDoc.$$eval('a[href*="index.html"]', (all) => all.filter((a) => a.getClientRects().length > 0).length);
    assert.equal(links, 1, `${id}: one link in the frame`);
  }
  const frame = frames['masked-iframe'];
  // The framed view says what the head does, as the element on the same model, text, layer and head does.
  const frameNote = await frame.evaluate(() => {
    const note = document.getElementById('head-note');
    return note.getClientRects().length ? note.textContent : null;
  });
  const elementNote = (await readExample(page, 'sentence')).figures[0].note;
  assert.ok(elementNote, 'the element shows its note');
  // The element shows the softmax; a frame at an earlier stage opens its note by saying its
  // weights are the softmax's (js/head_note.mjs), then says the same.
  const frameStage = await frame.evaluate(() => document.querySelector('[data-stage][aria-checked="true"]').dataset.stage);
  const stageSentence =
    frameStage === 'attn_weights' ? '' : `${translate('en', 'note.softmaxStage')}${translate('en', 'note.sentenceSeparator')}`;
  assert.equal(frameNote, `${stageSentence}${elementNote}`);
  const T = (await readExample(page, 'sentence')).figures[0].weights.length; // the lesson's sentence, as the figures read it
  await frame.waitForFunction((n) => document.querySelectorAll('#matrix-table tbody tr').length === n, T);
  ({ playground, playgroundErrors } = await open(framed.link, 'body[data-ready="true"]'));
  await playground.waitForFunction((n) => document.querySelectorAll('#matrix-table tbody tr').length === n, T);
  assert.deepEqual(await playgroundMatrix(playground), await playgroundMatrix(frame));
  assert.deepEqual(playgroundErrors, []);
  await playground.close();
  assert.deepEqual(errors, []);
  await page.close();
});

test('a copied snippet works on a page of its own', async () => {
  const { page } = await openGallery('en');
  const she = await readExample(page, 'she');
  const lab = await readExample(page, 'lab-a');
  const framed = await readExample(page, 'masked-iframe');
  await page.close();
  // The element: the script once, then the element's attributes, never the gallery's language.
  assert.match(she.snippet, /^<script type="module" src="http:\/\/127\.0\.0\.1:\d+\/dist\/site\/minimind-attention\.js"><\/script>\n/);
  assert.match(she.snippet, /<minimind-attention view="lesson" example="she" stage="raw weights"><\/minimind-attention>$/);
  assert.doesNotMatch(lab.snippet, /lang=/);
  assert.match(
    framed.snippet,
    /^<iframe src="[^"]*embed=1[^"]*" width="100%" height="\d+" style="border: 0" loading="lazy" title="[^"]+"><\/iframe>$/,
  );

  const { page: course, errors } = await openPage(site.context, `${site.url}tests/browser/blank.html`);
  await course.setContent(`<h1>A course page</h1>\n${she.snippet}\n${lab.snippet.split('\n').slice(1).join('\n')}`);
  await course.waitForFunction(() => [...document.querySelectorAll('minimind-attention')].every((f) => f.dataset.state === 'ready'), null, {
    timeout: 30000,
  });
  const [pasted, pastedLab] = await course.$$eval('minimind-attention', (figures) => figures.map((f) => f.matrices));
  assert.deepEqual(pasted, she.figures[0].matrices);
  assert.deepEqual(pastedLab, lab.figures[0].matrices);
  assert.deepEqual(errors, []);
  await course.close();
});

test('the language switch changes the captions, the figures and the links; screenshots in both languages', async () => {
  const { page, errors } = await openGallery('zh-CN');
  const zh = await readExample(page, 'she');
  assert.match(zh.caption, /^第 2\.5 课 §2「动手实操」/);
  assert.equal(zh.figures[0].title, '她 → 小红（Q·Kᵀ，softmax）');
  assert.equal(await page.getAttribute('html', 'lang'), 'zh-CN');
  assert.equal(await page.getAttribute('[data-lang="zh-CN"]', 'aria-pressed'), 'true');
  assert.equal(readUrlState(new URL(zh.link).search).lang, 'zh-CN');
  assert.match(await page.textContent('#lab-a .caption'), /^第 11 课 §6 实验 A/);
  await page.screenshot({ path: `${ARTIFACTS}gallery-zh-CN.png`, fullPage: true });

  await page.click('[data-lang="en"]');
  await page.waitForFunction(() =>
    document.querySelector('#she minimind-attention').shadowRoot.querySelector('.title').textContent.includes('('),
  );
  const en = await readExample(page, 'she');
  assert.match(en.caption, /^Lesson 2\.5 §2, hands-on/);
  assert.notEqual(en.caption, zh.caption);
  assert.equal(en.figures[0].title, '她 → 小红 (Q·Kᵀ, softmax)');
  assert.equal(en.title, '§2 hands-on · 她 → 小红 (Q·Kᵀ, softmax)');
  assert.equal(readUrlState(new URL(en.link).search).lang, 'en');
  assert.equal(new URL(page.url()).searchParams.get('lang'), 'en');
  assert.equal(await page.getAttribute('html', 'lang'), 'en');
  assert.equal(await page.textContent('h1'), 'MiniMind attention gallery');
  assert.equal(new URL((await readExample(page, 'masked-iframe')).frame).searchParams.get('lang'), 'en');
  // Every figure redraws in English.
  await page.waitForFunction(() =>
    [...document.querySelectorAll('minimind-attention')].every(
      (f) => f.dataset.state === 'ready' && !/[层头]/.test(f.shadowRoot.querySelector('.title').textContent),
    ),
  );
  // Let the iframe's playground finish its redraw in English before the screenshot.
  // The lazy iframe loads its new address once it is near the viewport.
  await page.evaluate(() => document.querySelector('iframe').scrollIntoView());
  await page.waitForFunction(() => /[?&]lang=en(&|$)/.test(document.querySelector('iframe').contentWindow.location.search));
  const frame = page.frames().find((f) => f.url().includes('embed=1'));
  await frame.waitForFunction(
    () => document.body.dataset.ready === 'true' && /^Layer \d/.test(document.getElementById('view-title').textContent),
    null,
    {
      timeout: 30000,
    },
  );
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: `${ARTIFACTS}gallery-en.png`, fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});
