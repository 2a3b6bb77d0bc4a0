// chatPrompt renders MiniMind's chat templates with @huggingface/jinja, as
// MiniMind's eval_llm.py renders them (add_generation_prompt, open_thinking),
// checked against the real models/minimind-tokenizer/tokenizer_config.json.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { MINIMIND3_CHAT_TEMPLATE } from '../../js/chat_templates.mjs';
import { chatPrompt } from '../../js/chat_template.mjs';
import { loadMiniMind } from '../../js/minimind.mjs';

const CONFIG_TEXT = readFileSync(new URL('../../models/minimind-tokenizer/tokenizer_config.json', import.meta.url), 'utf8');
const CONFIG = JSON.parse(CONFIG_TEXT);

test("the built-in generation-3 template is the shipped tokenizer_config.json's", () => {
  assert.equal(MINIMIND3_CHAT_TEMPLATE, CONFIG.chat_template);
});

test('generation 3: a user turn, then the assistant with an empty think block (or an open one)', () => {
  const expected = '<|im_start|>user\n你好<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n';
  assert.equal(chatPrompt('你好', { tokenizerConfig: CONFIG_TEXT }), expected);
  assert.equal(chatPrompt('你好', { tokenizerConfig: CONFIG }), expected);
  assert.equal(chatPrompt([{ role: 'user', content: '你好' }], { tokenizerConfig: CONFIG }), expected);
  assert.equal(chatPrompt('你好'), expected, 'the old one-argument call: the shipped template');
  assert.equal(
    chatPrompt('你好', { tokenizerConfig: CONFIG, thinking: true }),
    '<|im_start|>user\n你好<|im_end|>\n<|im_start|>assistant\n<think>\n',
  );
  // A system message comes first; earlier assistant turns carry their think block.
  const chat = [
    { role: 'system', content: '你是 MiniMind' },
    { role: 'user', content: '1+1?' },
    { role: 'assistant', content: '2' },
    { role: 'user', content: '再加一?' },
  ];
  assert.equal(
    chatPrompt(chat, { tokenizerConfig: CONFIG }),
    '<|im_start|>system\n你是 MiniMind<|im_end|>\n' +
      '<|im_start|>user\n1+1?<|im_end|>\n' +
      '<|im_start|>assistant\n<think>\n\n</think>\n\n2<|im_end|>\n' +
      '<|im_start|>user\n再加一?<|im_end|>\n' +
      '<|im_start|>assistant\n<think>\n\n</think>\n\n',
  );
});

test("generation 2: MiniMind2's template, with its default system message", () => {
  assert.equal(
    chatPrompt('你好', { generation: 2 }),
    '<|im_start|>system\nYou are a helpful assistant<|im_end|>\n<|im_start|>user\n你好<|im_end|>\n<|im_start|>assistant\n',
  );
  assert.equal(
    chatPrompt(
      [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'U' },
      ],
      { generation: 2 },
    ),
    '<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\n',
  );
  // A model's own tokenizer_config.json wins over the generation's default.
  assert.equal(chatPrompt('x', { generation: 2, tokenizerConfig: { chat_template: '[{{ messages[0].content }}]' } }), '[x]');
});

test('the rendered prompt tokenizes with the special tokens as single ids', async () => {
  const mm = await loadMiniMind();
  const tokenizer = mm.loadTokenizer(readFileSync(new URL('../../models/minimind-tokenizer/tokenizer.json', import.meta.url), 'utf8'));
  const ids = tokenizer.encode(chatPrompt('你好'));
  assert.equal(ids[0], tokenizer.tokenToId('<|im_start|>'));
  assert.ok(ids.includes(tokenizer.tokenToId('<|im_end|>')));
  assert.ok(ids.includes(tokenizer.tokenToId('<think>')));
  tokenizer.dispose();
});

test('bad arguments are refused with a clear message', () => {
  assert.throws(() => chatPrompt([]), { name: 'TypeError', message: /non-empty array of \{role, content\}/ });
  assert.throws(() => chatPrompt([{ role: 'user' }]), {
    name: 'TypeError',
    message: /messages\[0\] must be \{role: string, content: string\}/,
  });
  assert.throws(() => chatPrompt('x', { generation: 4 }), { name: 'RangeError' });
  assert.throws(() => chatPrompt('x', { thinking: 'yes' }), { name: 'TypeError' });
  assert.throws(() => chatPrompt('x', { tokenizerConfig: '{' }), /tokenizer_config\.json is not valid JSON/);
  assert.throws(() => chatPrompt('x', { tokenizerConfig: { chat_template: '{% if %}' } }), /chat_template cannot be parsed/);
});

test('@huggingface/jinja is a run-time dependency of the package', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  assert.ok(pkg.dependencies?.['@huggingface/jinja'], 'in dependencies');
  assert.equal(pkg.devDependencies?.['@huggingface/jinja'], undefined, 'not a devDependency');
});
