// Nothing hangs: twenty model choices and file loads in a burst, some of
// which fail (a trained model whose download fails, files the core refuses),
// settle on the last choice with every request answered; a load that fails
// leaves the model in use, in the page and in the worker. Leaving a lab
// brings a model loaded from files back, with its matrix.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';

import { loadCase } from '../node/helpers.mjs';
import { ARTIFACTS, openPage, useServedBrowser } from './browser.mjs';

const served = useServedBrowser();
const GEN2 = fileURLToPath(loadCase('gen2_dense').dir);
const GOOD = [join(GEN2, 'config.json'), join(GEN2, 'model.safetensors')];
let scratch;
let bad; // config.json with a model.safetensors the core refuses

before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'minimind-settle-'));
  await writeFile(join(scratch, 'config.json'), await readFile(GOOD[0]));
  await writeFile(join(scratch, 'model.safetensors'), Buffer.from('not a safetensors file at all'));
  bad = [join(scratch, 'config.json'), join(scratch, 'model.safetensors')];
});

after(() => rm(scratch, { recursive: true, force: true }));

// The trained model's download fails (HTTP 503) for this page.
async function open(query) {
  const { page, errors } = await openPage(served.context);
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.route('**/models/minimind-demo/model.safetensors', (route) => route.fulfill({ status: 503, body: 'unavailable' }));
  await page.goto(`${served.url}${query}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  return { page, errors };
}

// Every request answered, the model ready and its matrix drawn for `heads` columns.
async function settled(page, columns) {
  await page.waitForFunction(
    (n) =>
      document.body.dataset.pendingRequests === '0' &&
      !document.getElementById('model-status').textContent.includes('%') &&
      document.querySelectorAll('#matrix-table thead th').length === n + 1,
    columns,
    { timeout: 60000 },
  );
}

function shown(page) {
  return page.evaluate(() => ({
    preset: document.getElementById('preset').value,
    status: document.getElementById('model-status').textContent,
    statusError: document.getElementById('model-status').classList.contains('error'),
    files: document.getElementById('files-status').textContent,
    buildProgress: !document.getElementById('build-progress').hidden,
    filesProgress: !document.getElementById('files-progress').hidden,
    layers: document.getElementById('layer').options.length,
    heads: document.getElementById('head').options.length,
    pending: document.body.dataset.pendingRequests,
  }));
}

function matrixValues(page) {
  return page.$$eval('#matrix-table tbody tr', (trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.dataset.value ?? null)),
  );
}

test('twenty model and file choices in a burst, some failing: the last wins and every request is answered', async () => {
  const { page, errors } = await open('?lang=en&preset=lab-a&input=ids&text=3%204%205%206');
  await settled(page, 4);
  // Each choice is made without waiting for the one before: presets, the trained
  // model (its download fails), files the core refuses, files that load.
  const choices = [];
  for (let i = 0; i < 20; i += 1) choices.push(['lab-b', 'demo', 'bad', 'lab-a', 'good'][i % 5]);
  choices[19] = 'lab-b';
  for (const choice of choices) {
    if (choice === 'lab-a' || choice === 'lab-b') await page.selectOption('#preset', choice);
    else if (choice === 'demo') await page.selectOption('#preset', 'minimind-demo');
    else await page.setInputFiles('#file-input', choice === 'bad' ? bad : GOOD);
  }
  await settled(page, 4);
  const last = await shown(page);
  assert.equal(last.preset, 'lab-b');
  assert.match(last.status, /^lab-b: [\d,]+ parameters, 2 layers × 6 heads, random weights/);
  assert.equal(last.statusError, false);
  assert.deepEqual([last.buildProgress, last.filesProgress, last.pending], [false, false, '0']);
  assert.deepEqual(errors, []);
  await page.screenshot({ path: `${ARTIFACTS}requests-settled.png` });
  await page.close();
});

test('a failed download or failed files leave the model in use, its matrix and its name', async () => {
  const { page, errors } = await open('?lang=en&preset=lab-b&input=ids&text=3%204%205');
  await settled(page, 3);
  await page.selectOption('#layer', '1');
  await page.selectOption('#head', '1');
  await settled(page, 3);
  const before = await matrixValues(page);
  const was = await shown(page);

  // The trained model: its weights do not download.
  await page.selectOption('#preset', 'minimind-demo');
  await page.waitForFunction(() => /could not be loaded/.test(document.getElementById('run-status')?.textContent ?? ''), null, {
    timeout: 30000,
  });
  await settled(page, 3);
  const afterDemo = await shown(page);
  assert.equal(afterDemo.preset, 'lab-b');
  assert.equal(afterDemo.status, was.status);
  assert.deepEqual([afterDemo.layers, afterDemo.heads], [was.layers, was.heads]);
  assert.deepEqual(await page.$eval('#layer', (s) => s.value), '1', 'the view of the model in use comes back');
  assert.deepEqual(await matrixValues(page), before);
  assert.match(await page.textContent('#run-status'), /minimind-demo could not be loaded \(.*HTTP 503.*\); lab-b is still in use\./);

  // Files the core refuses: the model in use stays, the files panel says why.
  await page.setInputFiles('#file-input', bad);
  await page.waitForFunction(() => /Could not load/.test(document.getElementById('files-status').textContent), null, { timeout: 30000 });
  await settled(page, 3);
  const afterFiles = await shown(page);
  assert.deepEqual([afterFiles.preset, afterFiles.status, afterFiles.filesProgress], ['lab-b', was.status, false]);
  assert.deepEqual(await matrixValues(page), before);
  assert.deepEqual(errors, []);
  await page.close();
});

test('leaving a lab brings back the model loaded from files, with its view and its matrix', async () => {
  const { page, errors } = await open('?lang=en&preset=lab-a&input=ids&text=3%204%205');
  await settled(page, 3);
  await page.setInputFiles('#file-input', GOOD);
  await page.waitForFunction(() => /^Loaded model\.safetensors/.test(document.getElementById('files-status').textContent), null, {
    timeout: 30000,
  });
  await settled(page, 3);
  await page.selectOption('#layer', '1');
  await page.selectOption('#head', '3');
  await settled(page, 3);
  const before = await matrixValues(page);
  const was = await shown(page);
  assert.match(was.status, /^model\.safetensors: .* 4 heads, weights from your file/);

  await page.click('[data-lab="lab-b"]');
  await page.waitForSelector('#lab-record');
  await settled(page, 5);
  assert.match((await shown(page)).status, /^lab-b: /);

  await page.click('[data-lab="lab-b"]');
  await page.waitForFunction(() => /^Loaded model\.safetensors/.test(document.getElementById('files-status').textContent), null, {
    timeout: 30000,
  });
  await settled(page, 3);
  const back = await shown(page);
  assert.equal(back.status, was.status);
  assert.deepEqual([back.layers, back.heads], [was.layers, was.heads]);
  assert.deepEqual(await page.evaluate(() => [document.getElementById('layer').value, document.getElementById('head').value]), ['1', '3']);
  assert.deepEqual(await matrixValues(page), before);
  assert.ok(
    before.flat().some((v) => v !== null && Number(v) > 0 && Number(v) < 1),
    'the matrix holds weights',
  );
  assert.deepEqual(errors, []);
  await page.close();
});
