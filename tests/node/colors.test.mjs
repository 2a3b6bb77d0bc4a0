// The page's colour helpers: text on a cell must stay readable whatever the
// notation of the cell's colour.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { scaleFor, textColorOn } from '../../web/colors.mjs';

test('text colour: white on dark cells, black on light ones, for rgb() and #hex alike', () => {
  assert.equal(textColorOn('#444444'), '#fff'); // hex digits without letters are still hex
  assert.equal(textColorOn('#d9d9d9'), '#000');
  assert.equal(textColorOn('#999999'), '#000');
  assert.equal(textColorOn('rgb(45, 0, 75)'), '#fff');
  assert.equal(textColorOn('rgb(250, 250, 250)'), '#000');
  assert.equal(textColorOn('not a colour'), '#000');
});

test('scores use a diverging scale centred on 0: negative purple, positive orange', () => {
  const scale = scaleFor('scores_raw', [-2, 0.5, 1, -Infinity]);
  assert.equal(scale.diverging, true);
  assert.equal(scale.min, -2);
  assert.equal(scale.max, 2);
  const [r, , b] = /rgb\((\d+), (\d+), (\d+)\)/.exec(scale.color(-2)).slice(1).map(Number);
  assert.ok(b > r, `negative end ${scale.color(-2)} should be purple`);
  const [r2, , b2] = /rgb\((\d+), (\d+), (\d+)\)/.exec(scale.color(2)).slice(1).map(Number);
  assert.ok(r2 > b2, `positive end ${scale.color(2)} should be orange`);
  assert.equal(scaleFor('attn_weights', []).min, 0);
});
