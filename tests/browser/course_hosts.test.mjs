// The snippets of docs/embed.md where teachers paste them, in headless Chromium:
// a Markdown lesson rendered as a Markdown site does (raw HTML passes
// through; here the CommonMark renderer marked), and a Jupyter notebook's
// HTML output (the snippet set as innerHTML of an output cell, its scripts
// then re-created, as JupyterLab does for trusted outputs). In both the
// figure must draw the JS API's numbers.
import assert from 'node:assert/strict';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { marked } from 'marked';

import { serve } from '../../scripts/serve.mjs';
import { launchBrowser, openPage } from './browser.mjs';
import { trainedMatrix, trainedModel } from './demo.mjs';

const SITE = new URL('../../dist/site/', import.meta.url).pathname;
const LESSON = '小明把苹果给了小红，她很开心';

// A lesson page written in Markdown, with docs/embed.md's snippet pasted in.
const MARKDOWN = `# 第 2.5 课：Attention 与因果掩码

每一行是一个 query token，看它把注意力分给了前面的哪些 token。

<script type="module" src="./minimind-attention.js"></script>

<div><minimind-attention text="${LESSON}" head="2"></minimind-attention></div>

| token | 含义 |
|---|---|
| 她 | 指代前文的人 |
`;

// The Jupyter cell's output, as docs/embed.md writes it for IPython.display.HTML.
const NOTEBOOK_OUTPUT = `<script type="module" src="./minimind-attention.js"></script><minimind-attention text="今天天气很好" head="1"></minimind-attention>`;

const NOTEBOOK_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>notebook</title><link rel="icon" href="data:,"></head>
<body><div class="jp-OutputArea-output" id="output"></div>
<script>
  // What a notebook front end does with an HTML output: innerHTML, then run
  // its script tags by re-creating them (innerHTML alone never runs scripts).
  const output = document.getElementById('output');
  output.innerHTML = ${JSON.stringify(NOTEBOOK_OUTPUT).replaceAll('</', '<\\/')};
  for (const old of output.querySelectorAll('script')) {
    const script = document.createElement('script');
    for (const { name, value } of old.attributes) script.setAttribute(name, value);
    old.replaceWith(script);
  }
</script></body></html>`;

let dir;
let server;
let browser;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'minimind-hosts-'));
  await cp(SITE, dir, { recursive: true });
  const body = marked.parse(MARKDOWN);
  await writeFile(
    join(dir, 'lesson.html'),
    `<!doctype html><html><head><meta charset="utf-8"><title>lesson</title><link rel="icon" href="data:,"></head><body>${body}</body></html>`,
  );
  await writeFile(join(dir, 'notebook.html'), NOTEBOOK_PAGE);
  server = await serve(dir);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

// The trained model's softmax weights for `text` at `head` of the layer it opens on (its pronoun head's), as the JS API computes them.
async function expectedWeights(text, head) {
  const { heads } = await trainedModel();
  return (await trainedMatrix({ text, layer: heads.pronounHead.layer, head })).rows;
}

async function drawnWeights(page) {
  await page.waitForFunction(() => document.querySelector('minimind-attention')?.dataset.state === 'ready', null, { timeout: 30000 });
  return page.evaluate(() => document.querySelector('minimind-attention').weights);
}

function assertClose(actual, expected) {
  assert.equal(actual.length, expected.length);
  actual.forEach((row, i) =>
    row.forEach((v, j) => assert.ok(Math.abs(v - expected[i][j]) < 1e-6, `[${i}][${j}] ${v} vs ${expected[i][j]}`)),
  );
}

test('a Markdown lesson with the snippet pasted in draws the live figure', async () => {
  assert.match(marked.parse(MARKDOWN), /<minimind-attention text="[^"]+" head="2"><\/minimind-attention>/); // left as HTML
  const { page, errors } = await openPage(browser.context, `${server.url}lesson.html`);
  assertClose(await drawnWeights(page), await expectedWeights(LESSON, 2));
  assert.deepEqual(errors, []);
  await page.close();
});

test("a notebook cell's HTML output with the snippet draws the live figure", async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}notebook.html`);
  assertClose(await drawnWeights(page), await expectedWeights('今天天气很好', 1));
  assert.deepEqual(errors, []);
  await page.close();
});
