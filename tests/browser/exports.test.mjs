// Exports that stand alone: PNG, SVG, CSV and JSON of the matrix on screen
// (the prompt's, or the generated one while generation is shown), each
// recording the model, tokens, layer, head, stage and the causal and √d
// switches. Every file is downloaded as a reader would (the download event),
// parsed here, and its numbers compared with the page's table and with the
// module in Node; the PNG is decoded pixel by pixel, the SVG parsed as XML.
// The figures go to test-artifacts/.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { test } from 'node:test';
import { crc32, inflateSync } from 'node:zlib';

import { loadMiniMind } from '../../js/minimind.mjs';
import { scaleFor } from '../../web/colors.mjs';
import { rgbOf } from '../../web/views/cells.mjs';
import { tokenize } from '../../js/preset_tokens.mjs';
import { ARTIFACTS, openPage, useServedBrowser } from './browser.mjs';

const LESSON = '小明 把 苹果 给了 小红 ， 她 很 开心';

const site = useServedBrowser();

async function openPlayground(query) {
  const { page, errors } = await openPage(site.context);
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.goto(`${site.url}${query}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  return { page, errors };
}

// The accessible table as {keys, queries, cells: [[{masked, value}]]}: what the page shows.
function readTable(page) {
  return page.evaluate(() => {
    const table = document.getElementById('matrix-table');
    const rows = [...table.querySelectorAll('tbody tr')];
    return {
      keys: [...table.querySelectorAll('thead th')].slice(1).map((th) => th.textContent),
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

async function grab(page, button) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
  const bytes = await readFile(await download.path());
  await writeFile(`${ARTIFACTS}export-${download.suggestedFilename()}`, bytes);
  return { name: download.suggestedFilename(), bytes };
}

/** "# key: value" lines, then the matrix: {meta: {key: value}, header, rows: [[label, ...cells]]}. */
function parseCsv(text) {
  const lines = text.split('\r\n').filter((line) => line !== '');
  const meta = {};
  let k = 0;
  for (; lines[k].startsWith('# '); k += 1) {
    const [, key, value] = /^# ([^:]+): (.*)$/.exec(lines[k]);
    meta[key] = value;
  }
  // Tokens here hold no commas or quotes: a plain split is exact.
  return { meta, header: lines[k].split(','), rows: lines.slice(k + 1).map((line) => line.split(',')) };
}

/** A PNG decoded: {width, height, pixel(x, y) -> [r, g, b, a], texts: {keyword: text}}; every CRC checked. */
function readPng(bytes) {
  assert.deepEqual([...bytes.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], 'PNG signature');
  const chunks = [];
  for (let at = 8; at < bytes.length;) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    const data = bytes.subarray(at + 8, at + 8 + length);
    assert.equal(crc32(bytes.subarray(at + 4, at + 8 + length)), bytes.readUInt32BE(at + 8 + length), `${type} chunk CRC`);
    chunks.push({ type, data });
    at += 12 + length;
  }
  assert.equal(chunks[0].type, 'IHDR');
  assert.equal(chunks.at(-1).type, 'IEND');
  const ihdr = chunks[0].data;
  const width = ihdr.readUInt32BE(0);
  const height = ihdr.readUInt32BE(4);
  const [depth, colorType, , , interlace] = ihdr.subarray(8, 13);
  assert.equal(depth, 8);
  assert.equal(interlace, 0);
  assert.ok(colorType === 6 || colorType === 2, `RGBA or RGB, not colour type ${colorType}`);
  const bpp = colorType === 6 ? 4 : 3;
  const raw = inflateSync(Buffer.concat(chunks.filter((c) => c.type === 'IDAT').map((c) => c.data)));
  const stride = width * bpp;
  const pixels = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y += 1) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const row = pixels.subarray(y * stride, (y + 1) * stride);
    const prev = y > 0 ? pixels.subarray((y - 1) * stride, y * stride) : null;
    for (let x = 0; x < stride; x += 1) {
      const a = x >= bpp ? row[x - bpp] : 0;
      const b = prev ? prev[x] : 0;
      const c = prev && x >= bpp ? prev[x - bpp] : 0;
      const p = a + b - c;
      const paeth =
        Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
      const predictor = [0, a, b, (a + b) >> 1, paeth][filter];
      row[x] = (line[x] + predictor) & 0xff;
    }
  }
  const texts = {};
  for (const { data } of chunks.filter((c) => c.type === 'iTXt')) {
    const end = data.indexOf(0);
    const keyword = data.toString('latin1', 0, end);
    assert.equal(data[end + 1], 0, 'uncompressed iTXt');
    const language = data.indexOf(0, end + 3);
    const translated = data.indexOf(0, language + 1);
    texts[keyword] = data.toString('utf8', translated + 1);
  }
  const pixel = (x, y) => {
    const at = Math.round(y) * stride + Math.round(x) * bpp;
    return [pixels[at], pixels[at + 1], pixels[at + 2], bpp === 4 ? pixels[at + 3] : 255];
  };
  return { width, height, pixel, texts, opaque: bpp === 3 || pixels.every((v, k) => k % 4 !== 3 || v === 255) };
}

const near = (got, want, tolerance, what) =>
  assert.ok(
    got.slice(0, 3).every((v, k) => Math.abs(v - want[k]) <= tolerance),
    `${what}: ${got.slice(0, 3)} should be ${want} (±${tolerance})`,
  );

/** The SVG parsed by the browser's XML parser: what the tests read from it. */
function readSvg(page, text) {
  return page.evaluate((source) => {
    const doc = new DOMParser().parseFromString(source, 'image/svg+xml');
    const error = doc.querySelector('parsererror');
    if (error) return { error: error.textContent };
    const svg = doc.documentElement;
    const background = svg.querySelector('rect.background');
    const stops = [...svg.querySelectorAll('linearGradient#colorbar stop')].map((s) => s.getAttribute('stop-color'));
    const bar = svg.querySelector('rect.colorbar');
    return {
      root: svg.localName,
      namespace: svg.namespaceURI,
      width: Number(svg.getAttribute('width')),
      height: Number(svg.getAttribute('height')),
      background: background && {
        x: Number(background.getAttribute('x')),
        y: Number(background.getAttribute('y')),
        width: Number(background.getAttribute('width')),
        height: Number(background.getAttribute('height')),
        fill: background.getAttribute('fill'),
        first: svg.querySelector(':scope > rect') === background, // drawn first, under everything
      },
      title: svg.querySelector(':scope > title')?.textContent,
      titleTexts: [...svg.querySelectorAll('text.title')].map((t) => t.textContent),
      captions: [...svg.querySelectorAll('text.caption')].map((t) => t.textContent),
      desc: svg.querySelector('desc')?.textContent,
      meta: JSON.parse(svg.querySelector('metadata').textContent),
      bar: bar && {
        fill: bar.getAttribute('fill'),
        min: Number(bar.dataset.min),
        max: Number(bar.dataset.max),
        width: Number(bar.getAttribute('width')),
      },
      stops,
      ticks: [...svg.querySelectorAll('text.tick')].map((t) => t.textContent),
      rowLabels: [...svg.querySelectorAll('text.row-label')].map((t) => t.textContent),
      cells: [...svg.querySelectorAll('rect.cell')].map((r) => ({
        i: Number(r.dataset.i),
        j: Number(r.dataset.j),
        value: Number(r.dataset.value),
        masked: r.dataset.masked === 'true',
        fill: r.getAttribute('fill'),
      })),
    };
  }, text);
}

test('PNG, SVG, CSV and JSON hold the matrix on screen and say what it is (lab-a, layer 1, head 2, + mask, no ÷√d)', async () => {
  const { page, errors } = await openPlayground(`?preset=lab-a&lang=en&text=${encodeURIComponent(LESSON)}`);
  const tokens = LESSON.split(' ');
  const { ids } = tokenize(LESSON, 128, 128);
  await page.selectOption('#layer', '1');
  await page.selectOption('#head', '2');
  await page.click('[data-stage="scores_masked"]');
  await page.uncheck('#scale');
  await page.waitForFunction(() => location.search.includes('scale=0') && location.search.includes('stage=scores_masked'));
  const table = await readTable(page);
  assert.deepEqual(table.keys, tokens);
  const T = tokens.length;

  // The module in Node, for numbers that do not come from the page at all.
  const mm = await loadMiniMind();
  const model = mm.createModel({ preset: 'lab-a', seed: 0 });
  const H = model.info().num_attention_heads;
  const trace = model.forward(ids, { trace: { layers: [1], stages: ['scores_masked'] }, scaleScores: false }).trace.get(1, 'scores_masked');
  model.dispose();
  const expected = Array.from({ length: T }, (_, i) => Array.from(trace.data.subarray((2 * T + i) * T, (2 * T + i + 1) * T)));
  for (let i = 0; i < T; i += 1) {
    for (let j = 0; j < T; j += 1) {
      if (j > i) assert.equal(table.cells[i][j].masked, true);
      else assert.equal(table.cells[i][j].value, expected[i][j], `the page shows the module's number at ${i},${j}`);
    }
  }

  // JSON: fields and values.
  const jsonFile = await grab(page, '#export-json');
  assert.equal(jsonFile.name, 'minimind-lab-a-L1-H2-scores_masked.json');
  const json = JSON.parse(jsonFile.bytes.toString('utf8'));
  assert.equal(json.model.preset, 'lab-a');
  assert.equal(json.model.seed, 0);
  assert.equal(json.model.trained, false);
  assert.match(json.model.name, /^lab-a \(untrained: random weights\), seed 0$/);
  assert.deepEqual(
    [json.layer, json.head, json.stage, json.stageName, json.causal, json.scale],
    [1, 2, 'scores_masked', '+ mask', true, false],
  );
  assert.deepEqual(json.tokens, tokens);
  assert.deepEqual(json.ids, ids);
  assert.deepEqual(json.shape, [T, T]);
  assert.deepEqual(json.headsShape, [H, T, T]);
  assert.equal(json.generation, null);
  for (let i = 0; i < T; i += 1) {
    for (let j = 0; j < T; j += 1) assert.equal(json.values[i][j], j > i ? null : table.cells[i][j].value, `JSON ${i},${j}`);
  }

  // CSV: the header block, then the same numbers (−∞ written as -inf).
  const csvFile = await grab(page, '#export-csv');
  assert.equal(csvFile.name, 'minimind-lab-a-L1-H2-scores_masked.csv');
  const csv = parseCsv(csvFile.bytes.toString('utf8'));
  assert.equal(csv.meta.model, json.model.name);
  assert.deepEqual(JSON.parse(csv.meta.model_spec), json.model);
  assert.deepEqual([csv.meta.layer, csv.meta.head, csv.meta.stage], ['1', '2', 'scores_masked (+ mask)']);
  assert.deepEqual([csv.meta.causal_mask, csv.meta.scale_by_sqrt_d], ['on', 'off']);
  assert.deepEqual(JSON.parse(csv.meta.tokens), tokens);
  assert.deepEqual(JSON.parse(csv.meta.ids), ids);
  assert.match(csv.meta.shape, new RegExp(`^\\[H, T, T\\] = \\[${H}, ${T}, ${T}\\]`));
  assert.deepEqual(csv.header, ['query\\key', ...tokens]);
  assert.deepEqual(
    csv.rows.map((r) => r[0]),
    tokens,
  );
  for (let i = 0; i < T; i += 1) {
    for (let j = 0; j < T; j += 1) {
      const cell = csv.rows[i][j + 1];
      if (j > i) assert.equal(cell, '-inf');
      else assert.equal(Number(cell), table.cells[i][j].value, `CSV ${i},${j}`);
    }
  }

  // SVG: well-formed, background, title, colour bar, one rect per cell with the page's number and colour.
  const svgFile = await grab(page, '#export-svg');
  assert.equal(svgFile.name, 'minimind-lab-a-L1-H2-scores_masked.svg');
  const svg = await readSvg(page, svgFile.bytes.toString('utf8'));
  assert.equal(svg.error, undefined, svg.error);
  assert.equal(svg.root, 'svg');
  assert.equal(svg.namespace, 'http://www.w3.org/2000/svg');
  assert.deepEqual(svg.background, { x: 0, y: 0, width: svg.width, height: svg.height, fill: '#ffffff', first: true });
  assert.equal(svg.title, `${json.model.name} · layer 1 · head 2 · + mask`);
  assert.equal(svg.titleTexts.join(' · '), svg.title, 'the visible title says the same, wrapped at its parts');
  const caption = svg.captions.join(' ');
  assert.match(caption, /causal mask on/);
  assert.match(caption, /÷ √d off/);
  assert.match(caption, new RegExp(`\\[H, T, T\\] = \\[${H}, ${T}, ${T}\\]`));
  assert.match(svg.desc, new RegExp(tokens.join(' \\| ')));
  assert.deepEqual(svg.meta, Object.fromEntries(Object.entries(json).filter(([key]) => key !== 'values' && key !== 'note')));
  const scale = scaleFor(
    'scores_masked',
    table.cells.flat().map((c) => (c.masked ? -Infinity : c.value)),
  );
  assert.equal(svg.bar.fill, 'url(#colorbar)');
  assert.deepEqual([svg.bar.min, svg.bar.max], [scale.min, scale.max]);
  assert.equal(svg.stops[0], scale.color(scale.min));
  assert.equal(svg.stops.at(-1), scale.color(scale.max));
  assert.deepEqual(svg.ticks, [scale.min.toFixed(2), '0.00', scale.max.toFixed(2)]);
  assert.deepEqual(svg.rowLabels, tokens);
  assert.equal(svg.cells.length, T * T, 'one rect per cell');
  for (const cell of svg.cells) {
    const shown = table.cells[cell.i][cell.j];
    assert.equal(cell.masked, shown.masked, `SVG ${cell.i},${cell.j} masked`);
    if (shown.masked) assert.equal(cell.fill, 'url(#masked)');
    else {
      assert.equal(cell.value, shown.value, `SVG ${cell.i},${cell.j}`);
      assert.equal(cell.fill, scale.color(shown.value));
    }
  }

  // PNG: opaque, on white, its description in iTXt, the page's numbers as the cells' colours, the colour bar.
  const pngFile = await grab(page, '#export-png');
  assert.equal(pngFile.name, 'minimind-lab-a-L1-H2-scores_masked.png');
  const png = readPng(pngFile.bytes);
  assert.equal(png.opaque, true, 'every pixel is opaque');
  near(png.pixel(1, 1), [255, 255, 255], 0, 'background, top left');
  near(png.pixel(png.width - 2, png.height - 2), [255, 255, 255], 0, 'background, bottom right');
  assert.equal(png.texts.Title, svg.title);
  assert.match(png.texts.Description, /causal mask on · ÷ √d off/);
  assert.match(png.texts.Description, new RegExp(tokens.join(' \\| ')));
  const meta = JSON.parse(png.texts['minimind:export']);
  const { figure, ...described } = meta;
  assert.deepEqual(described, svg.meta);
  assert.equal(figure.matrix.T, T);
  let dark = 0; // the title is drawn: dark pixels in its band
  for (let y = 20 * figure.ratio; y < 40 * figure.ratio; y += 1)
    for (let x = 20 * figure.ratio; x < png.width / 2; x += 1) dark += png.pixel(x, y)[0] < 80;
  assert.ok(dark > 200, `title text drawn (${dark} dark pixels)`);
  const { x, y, cell } = figure.matrix;
  for (let i = 0; i < T; i += 1) {
    for (let j = 0; j < T; j += 1) {
      const got = png.pixel(x + j * cell + cell * 0.2, y + i * cell + cell * 0.2);
      const shown = table.cells[i][j];
      if (shown.masked) {
        assert.ok(got[0] === got[1] && got[1] === got[2] && got[0] >= 0x80 && got[0] <= 0xe0, `hatched grey at ${i},${j}: ${got}`);
      } else near(got, rgbOf(scale.color(shown.value)), 2, `PNG cell ${i},${j} (${shown.value})`);
    }
  }
  const bar = figure.colorbar;
  near(png.pixel(bar.x + 3, bar.y + bar.h / 2), rgbOf(scale.color(scale.min)), 10, 'colour bar, low end');
  near(png.pixel(bar.x + bar.w - 4, bar.y + bar.h / 2), rgbOf(scale.color(scale.max)), 10, 'colour bar, high end');
  assert.deepEqual(errors, []);
  await page.close();
});

test('while generation is shown, every export holds the generated matrix (not computed cells stay empty)', async () => {
  const { page, errors } = await openPlayground(`?preset=lab-a&lang=zh-CN&text=${encodeURIComponent(LESSON)}&stage=scores_raw`);
  const prompt = LESSON.split(' ').length;
  for (let step = 1; step <= 3; step += 1) {
    await page.click('#gen-step');
    await page.waitForFunction((n) => document.querySelectorAll('#matrix-table tbody tr').length === n, prompt + step);
  }
  const table = await readTable(page);
  const T = prompt + 3;
  assert.equal(table.keys.length, T);
  assert.match(await page.textContent('#matrix-shape'), new RegExp(`\\[H, T, T\\] = \\[4, ${T}, ${T}\\]`));
  const json = JSON.parse((await grab(page, '#export-json')).bytes.toString('utf8'));
  assert.deepEqual(json.generation, { prompt, generated: 3 });
  assert.deepEqual(json.tokens, table.keys);
  assert.deepEqual(json.shape, [T, T]);
  assert.equal(json.causal, true, 'generation computes with the causal mask');
  assert.equal(json.scale, true);
  let notComputed = 0;
  for (let i = 0; i < T; i += 1) {
    for (let j = 0; j < T; j += 1) {
      const shown = table.cells[i][j];
      assert.equal(json.values[i][j], shown.masked ? null : shown.value, `JSON ${i},${j}`);
      notComputed += shown.masked;
    }
  }
  assert.ok(notComputed > 0, 'cached decoding leaves older queries × newer keys uncomputed');
  const csvFile = await grab(page, '#export-csv');
  assert.equal(csvFile.name, 'minimind-lab-a-L0-H0-scores_raw-generated.csv');
  const csv = parseCsv(csvFile.bytes.toString('utf8'));
  assert.equal(csv.meta.generation, `${prompt} prompt tokens + 3 generated`);
  assert.deepEqual(JSON.parse(csv.meta.tokens), table.keys);
  for (let i = 0; i < T; i += 1) {
    for (let j = 0; j < T; j += 1) {
      const shown = table.cells[i][j];
      assert.equal(csv.rows[i][j + 1], shown.masked ? '' : String(shown.value), `CSV ${i},${j}`);
    }
  }
  const svg = await readSvg(page, (await grab(page, '#export-svg')).bytes.toString('utf8'));
  assert.equal(svg.error, undefined);
  assert.equal(svg.cells.length, T * T);
  assert.equal(svg.title, `${json.model.name} · 第 0 层 · 第 0 个头 · QKᵀ`);
  assert.match(svg.captions.join(''), new RegExp(`生成：${prompt} 个提示 token \\+ 3 个生成的 token`));
  assert.deepEqual(
    svg.cells.filter((c) => !c.masked).map((c) => c.value),
    table.cells
      .flat()
      .filter((c) => !c.masked)
      .map((c) => c.value),
  );
  const png = readPng((await grab(page, '#export-png')).bytes);
  assert.equal(png.texts.Title, svg.title);
  assert.deepEqual(JSON.parse(png.texts['minimind:export']).generation, { prompt, generated: 3 });
  assert.deepEqual(errors, []);
  await page.close();
});

test('exports escape what they hold: a hostile token stays text in SVG, CSV and JSON', async () => {
  const hostile = ['<img', 'src=x', 'onerror=alert(1)>', '"q"', '=SUM(A1)', 'a&b', '\u202Eevil'];
  const { page, errors } = await openPlayground(`?preset=lab-a&lang=en&text=${encodeURIComponent(hostile.join(' '))}`);
  await page.waitForFunction((n) => document.querySelectorAll('#matrix-table tbody tr').length === n, hostile.length);
  const svgText = (await grab(page, '#export-svg')).bytes.toString('utf8');
  assert.ok(!svgText.includes('<img'), 'no raw markup from a token');
  const svg = await readSvg(page, svgText);
  assert.equal(svg.error, undefined, svg.error);
  assert.deepEqual(svg.rowLabels, hostile);
  assert.deepEqual(svg.meta.tokens, hostile);
  const lines = (await grab(page, '#export-csv')).bytes.toString('utf8').split('\r\n');
  const header = lines.find((line) => line.startsWith('query\\key'));
  assert.equal(header, 'query\\key,<img,src=x,onerror=alert(1)>,"""q""",\'=SUM(A1),a&b,\u202Eevil');
  assert.deepEqual(JSON.parse((await grab(page, '#export-json')).bytes.toString('utf8')).tokens, hostile);
  assert.deepEqual(errors, []);
  await page.close();
});
