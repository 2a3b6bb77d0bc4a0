// One tokenizer for models without one (js/preset_tokens.mjs): the page, the
// element and the CLI give a preset's text the same ids, so a number on the
// page can be reproduced with `minimind run --preset ... --text ...`. The ids
// are those shared links already hold: pinned here by FNV-1a's published test
// vectors, not by the module's own output.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { fnv1a32, splitTokens, tokenId, tokenize } from '../../js/preset_tokens.mjs';

const ROOT = new URL('../../', import.meta.url);
const CLI = fileURLToPath(new URL('js/cli.mjs', ROOT));
const run = promisify(execFile);

test("the ids are the page's: 3 + FNV-1a 32 (published vectors) mod (vocab_size - 3)", () => {
  // FNV-1a 32-bit test vectors (Fowler/Noll/Vo): "" -> 0x811c9dc5, "a" -> 0xe40c292c, "foobar" -> 0xbf9cf968.
  assert.equal(fnv1a32(''), 0x811c9dc5);
  assert.equal(fnv1a32('a'), 0xe40c292c);
  assert.equal(fnv1a32('foobar'), 0xbf9cf968);
  assert.equal(tokenId('a', 128), 3 + (0xe40c292c % 125));
  assert.equal(tokenId('foobar', 6400), 3 + (0xbf9cf968 % 6397));
  assert.deepEqual(splitTokens('今天天气 很好'), ['今天天气', '很好']);
  assert.deepEqual(splitTokens('今天GPT很好'), ['今', '天', 'GPT', '很', '好']);
});

test("the CLI gives a preset's text the page's ids, for every preset size", async () => {
  const texts = ['小明 把 苹果 给了 小红 ， 她 很 开心', '今天天气很好', 'a b a foobar'];
  for (const preset of ['lab-a', 'lab-b', 'minimind2-small']) {
    for (const text of texts) {
      const { stdout } = await run(process.execPath, [CLI, 'run', '--preset', preset, '--text', text, '--json'], {
        maxBuffer: 256 << 20,
      });
      const out = JSON.parse(stdout);
      const vocab = out.logits[0].length; // the preset's vocab_size, as the page reads it from the model
      const page = tokenize(text, vocab, 128);
      assert.deepEqual(out.ids, page.ids, `${preset}: "${text}"`);
      assert.deepEqual(out.tokens, page.tokens, `${preset}: "${text}"`);
    }
  }
});

test('the page, the element and the CLI import the one module; the old ones are gone', () => {
  for (const file of ['web/panels/input_panel.mjs', 'web/component/minimind_attention.mjs', 'js/cli.mjs'])
    assert.match(readFileSync(new URL(file, ROOT), 'utf8'), /from '[./]+(js\/)?preset_tokens\.mjs'/, file);
  assert.equal(existsSync(new URL('web/tokenize.mjs', ROOT)), false);
  assert.equal(existsSync(new URL('js/whitespace_tokens.mjs', ROOT)), false);
});
