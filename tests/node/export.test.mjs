// The page's exports without a browser (web/export.mjs, export_figure.mjs,
// svg_export.mjs): what the CSV header and the JSON record, how −∞ and
// "not computed" are written, the PNG text chunks (checked with zlib's own
// CRC-32), and an SVG whose every cell is a rect and whose text is escaped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { crc32, deflateSync } from 'node:zlib';

import { exportMeta, figureSvg, matrixCsv, matrixJson, pngWithText } from '../../web/export.mjs';
import { figureLayout, figureText } from '../../web/export_figure.mjs';
import { translate } from '../../web/i18n.mjs';

const t = (key, params) => translate('en', key, params);

// A 3-token view of the "+ mask" stage: −∞ above the diagonal, one score never computed (NaN).
function view(overrides = {}) {
  const values = Float32Array.from([0.5, -Infinity, -Infinity, -1.25, 2, -Infinity, 0.75, Number.NaN, 3]);
  const T = 3;
  return {
    model: { name: 'lab-a (untrained: random weights), seed 0', preset: 'lab-a', seed: 0, trained: false },
    tokens: ['<img', 'a,b', '=x'],
    ids: [11, 12, 13],
    values,
    masked: (i, j) => j > i || Number.isNaN(values[i * T + j]),
    hasNotComputed: true,
    T,
    H: 4,
    layer: 1,
    head: 2,
    stage: 'scores_masked',
    stageName: '+ mask',
    causal: true,
    scale: false,
    generation: { prompt: 2, generated: 1 },
    ...overrides,
  };
}

test('CSV: a "# key: value" header block records what the matrix is, then the numbers as stored', () => {
  const lines = matrixCsv(view()).split('\r\n');
  const header = Object.fromEntries(lines.filter((l) => l.startsWith('# ')).map((l) => /^# ([^:]+): (.*)$/.exec(l).slice(1)));
  assert.equal(header.model, 'lab-a (untrained: random weights), seed 0');
  assert.deepEqual(JSON.parse(header.model_spec), view().model);
  assert.equal(header.layer, '1');
  assert.equal(header.head, '2');
  assert.equal(header.stage, 'scores_masked (+ mask)');
  assert.equal(header.causal_mask, 'on');
  assert.equal(header.scale_by_sqrt_d, 'off');
  assert.match(header.shape, /^\[H, T, T\] = \[4, 3, 3\]; this head \[T, T\] = \[3, 3\]/);
  assert.deepEqual(JSON.parse(header.tokens), ['<img', 'a,b', '=x']);
  assert.deepEqual(JSON.parse(header.ids), [11, 12, 13]);
  assert.equal(header.generation, '2 prompt tokens + 1 generated');
  const body = lines.filter((l) => l && !l.startsWith('# '));
  assert.deepEqual(body, ['query\\key,<img,"a,b",\'=x', '<img,0.5,-inf,-inf', '"a,b",-1.25,2,-inf', "'=x,0.75,,3"]);
  // A token with a newline cannot break the header block into a line of its own.
  const sneaky = matrixCsv(view({ tokens: ['a\n# model: fake', 'b', 'c'] }));
  assert.equal(sneaky.split('\r\n').filter((l) => l.startsWith('# model:')).length, 1);
});

test('JSON: the same fields, values with null for −∞ and for what was not computed', () => {
  const json = JSON.parse(matrixJson(view()));
  assert.deepEqual(
    Object.fromEntries(Object.entries(json).filter(([k]) => k !== 'values' && k !== 'note')),
    JSON.parse(JSON.stringify(exportMeta(view()))),
  );
  assert.deepEqual(json.values, [
    [0.5, null, null],
    [-1.25, 2, null],
    [0.75, null, 3],
  ]);
  assert.deepEqual([json.shape, json.headsShape, json.causal, json.scale], [[3, 3], [4, 3, 3], true, false]);
});

// A valid 1×1 RGBA PNG, built here.
function tinyPng() {
  const chunk = (type, data) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(8 + body.length); // length, type + data, CRC
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(1, 0);
  ihdr.writeUInt32BE(1, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.from([0, 255, 255, 255, 255]))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

test('PNG: iTXt chunks after IHDR, UTF-8 text, every CRC right', () => {
  const png = tinyPng();
  const out = Buffer.from(pngWithText(new Uint8Array(png), { Title: '第 1 层 · head 2', 'minimind:export': '{"layer":1}' }));
  const chunks = [];
  for (let at = 8; at < out.length;) {
    const length = out.readUInt32BE(at);
    const type = out.toString('latin1', at + 4, at + 8);
    assert.equal(crc32(out.subarray(at + 4, at + 8 + length)), out.readUInt32BE(at + 8 + length), `${type} CRC`);
    chunks.push([type, out.subarray(at + 8, at + 8 + length)]);
    at += 12 + length;
  }
  assert.deepEqual(
    chunks.map(([type]) => type),
    ['IHDR', 'iTXt', 'iTXt', 'IDAT', 'IEND'],
  );
  const text = (data) => {
    const end = data.indexOf(0);
    return [data.toString('latin1', 0, end), data.subarray(end + 1, end + 3), data.toString('utf8', end + 5)];
  };
  const [keyword, flags, value] = text(chunks[1][1]);
  assert.equal(keyword, 'Title');
  assert.deepEqual([...flags], [0, 0], 'uncompressed');
  assert.equal(value, '第 1 层 · head 2');
  assert.equal(text(chunks[2][1])[2], '{"layer":1}');
  assert.deepEqual(out.subarray(out.length - 12), png.subarray(png.length - 12), 'the image data is untouched');
});

test('SVG: a background, a title, a colour bar, one rect per cell; tokens escaped, no character XML cannot hold', () => {
  const v = view({ tokens: ['<img', 'a&b', 'c\u0001"'] });
  const text = figureText(v, t);
  const svg = figureSvg(v, text, exportMeta(v));
  assert.match(svg, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.equal(svg.match(/<rect class="cell"/g).length, 9);
  assert.equal(svg.match(/<rect class="cell"[^>]*fill="url\(#masked\)"/g).length, 4, 'three masked, one not computed');
  assert.match(svg, /<rect class="background" x="0" y="0" width="(\d+)" height="(\d+)" fill="#ffffff"\/>/);
  assert.match(svg, /<title>lab-a \(untrained: random weights\), seed 0 · layer 1 · head 2 · \+ mask<\/title>/);
  assert.match(svg, /<rect class="colorbar"[^>]*fill="url\(#colorbar\)"/);
  assert.ok(!svg.includes('<img') && svg.includes('&lt;img'));
  assert.ok(svg.includes('a&amp;b'));
  assert.ok(!svg.includes('\u0001'));
  // The layout the PNG draws is the same: as many cells, the same size.
  const layout = figureLayout(v, text);
  assert.equal(layout.items.filter((item) => item.role === 'cell').length, 9);
  assert.match(svg, new RegExp(`width="${layout.width}" height="${layout.height}" viewBox="0 0 ${layout.width} ${layout.height}"`));
});
