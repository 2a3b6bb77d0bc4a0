// Every kind of error the core can raise is listed once (core/util/error_kinds.h,
// handed to JS as mm.errorKinds), that list is the one the throw sites of core/
// name (scanned here: a kind raised but not listed, or listed but raised
// nowhere, fails), and the page words every kind, the core's, the bindings'
// and the JS layer's, in zh-CN and en with the same values in both.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { loadMiniMind } from '../../js/minimind.mjs';
import { ERROR_TERMS, errorText } from '../../web/error_text.mjs';
import { ERROR_KINDS } from '../../web/messages/error_terms.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const mm = await loadMiniMind();

function sources(dir, pattern) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path, pattern);
    return pattern.test(name) ? [path] : [];
  });
}

// Where a kind is named at a throw site: the first argument of an error type
// (Error("input.too_long", ...), PthError(...)), of a fail("kind", ...) helper,
// a problem's initialiser ({"weights.misfit", {...}, ...}), or the config
// validator's add("config....", ...).
const KIND_SITES = [
  /Error\(\s*"([a-z][a-z0-9_.]*)"/g,
  /\bfail\(\s*(?:line,\s*)?"([a-z][a-z0-9_.]*)"/g,
  /\{\s*"([a-z][a-z0-9_]*\.[a-z0-9_.]+)",\s*\{/g,
  /\badd\(\s*"([a-z][a-z0-9_]*\.[a-z0-9_.]+)"/g,
  /js_error\([^;]*?,\s*"([a-z][a-z0-9_.]*)"/g,
];

/** kind -> the first file naming it, over the C++ sources under `dir`. */
function kindsNamedIn(dir, skip = () => false) {
  const kinds = new Map();
  for (const file of sources(join(root, dir), /\.(h|cpp)$/)) {
    if (skip(file)) continue;
    const text = readFileSync(file, 'utf8');
    for (const site of KIND_SITES) {
      for (const match of text.matchAll(site)) if (!kinds.has(match[1])) kinds.set(match[1], file.slice(root.length));
    }
  }
  return kinds;
}

const coreKinds = kindsNamedIn('core', (file) => /error_kinds\.(h|cpp)$/.test(file));

test('the registry of kinds is exactly the kinds the throw sites of core/ name', () => {
  assert.ok(mm.errorKinds.length > 100, `${mm.errorKinds.length} kinds`);
  assert.deepEqual(mm.errorKinds, [...mm.errorKinds].sort(), 'sorted');
  assert.equal(new Set(mm.errorKinds).size, mm.errorKinds.length, 'unique');
  const listed = new Set(mm.errorKinds);
  const unlisted = [...coreKinds].filter(([kind]) => !listed.has(kind)).map(([kind, file]) => `${kind} (${file})`);
  assert.deepEqual(unlisted, [], 'raised in core/ but not in core/util/error_kinds.cpp');
  const unraised = mm.errorKinds.filter((kind) => !coreKinds.has(kind));
  assert.deepEqual(unraised, [], 'listed in core/util/error_kinds.cpp but raised nowhere');
});

test('no throw site in core/ raises a bare sentence: every one names a kind', () => {
  const bare = [];
  for (const file of sources(join(root, 'core'), /\.(h|cpp)$/)) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (/\bthrow std::[a-z_]+\(/.test(line)) bare.push(`${file.slice(root.length)}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(bare, []);
});

// A loader's error that carried only its file format ("safetensors") told a zh
// reader which file failed, not what is wrong: every throw of a loader's error
// class and every fail(...) of a loader names "family.what" as a literal (or
// passes on a caught error's kind), and no bare family is registered.
test('every loader throw names a kind of its own, not only its file format', () => {
  assert.deepEqual(
    mm.errorKinds.filter((kind) => !kind.includes('.')),
    [],
    'a kind without ".what" in core/util/error_kinds.cpp',
  );
  const loaders = [...sources(join(root, 'core/formats'), /\.(h|cpp)$/), ...sources(join(root, 'core/tokenizer'), /\.(h|cpp)$/)];
  const passedOn = new Set(['std::string kind', 'const char* kind', 'kind', 'e.kind(']); // declarations, fail's own throw, a rethrow
  const own = /^"(safetensors|zip|pickle|pth|tokenizer|token_id)\.[a-z0-9_]+"$/;
  const bare = [];
  let sites = 0;
  for (const file of loaders) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/\b(?:(?:Safetensors|Zip|Pickle|Pth|Tokenizer)Error|fail)\(\s*([^,)]*)/g)) {
      const first = match[1].trim();
      if (passedOn.has(first)) continue;
      sites += 1;
      if (!own.test(first)) bare.push(`${file.slice(root.length)}: ${match[0].replace(/\s+/g, ' ')}`);
    }
  }
  assert.ok(sites > 100, `${sites} loader throw sites seen`);
  assert.deepEqual(bare, []);
});

// The JS layer's own kinds: new MiniMindError(message, {kind: '...'}) and
// argumentError(TypeError, '...', values, message).
function jsKinds() {
  const kinds = new Set();
  for (const file of sources(join(root, 'js'), /\.mjs$/)) {
    const text = readFileSync(file, 'utf8');
    if (text.includes('MiniMindError(')) {
      for (const match of text.matchAll(/kind: '([a-z][a-z0-9_]*\.[a-z0-9_.]+)'/g)) kinds.add(match[1]);
    }
    for (const match of text.matchAll(/argumentError\(\s*\w+,\s*'([a-z][a-z0-9_]*\.[a-z0-9_.]+)'/g)) kinds.add(match[1]);
  }
  return kinds;
}

// An argument error of the JS API reaching the page is worded too: every
// throw in js/minimind.mjs and in the argument checks it makes from
// js/argument_checks.mjs builds a kinded error (or rethrows a caught one).
test('every throw of js/minimind.mjs and js/argument_checks.mjs names a kind', () => {
  const code = ['js/minimind.mjs', 'js/argument_checks.mjs'].map((file) => readFileSync(join(root, file), 'utf8')).join('\n');
  const text = code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, ''); // the code, not its comments
  const throws = [...text.matchAll(/\bthrow\s+([^;]*)/g)].map((m) => m[1].replace(/\s+/g, ' '));
  assert.ok(throws.length > 60, `${throws.length} throws`);
  const unkinded = throws.filter((t) => !/^argumentError\(\s*(Type|Range)?Error,\s*'[a-z]+\.[a-z0-9_]+'/.test(t) && t !== 'error');
  assert.deepEqual(unkinded, []);
  assert.ok(jsKinds().has('api.not_integer') && jsKinds().has('api.one_of'), 'the scan sees the argument kinds');
});

test('an argument error of the JS API keeps its type and is worded in zh', () => {
  let error;
  try {
    mm.createModel({ preset: 'lab-a', seed: 1.5 });
  } catch (caught) {
    error = caught;
  }
  assert.ok(error instanceof TypeError);
  assert.equal(error.kind, 'api.not_integer');
  assert.deepEqual(error.values, { name: 'seed', got: '1.5' });
  assert.equal(error.message, 'seed must be an integer, got number 1.5');
  assert.equal(errorText('zh-CN', error).text, 'seed 必须是整数，这里是 1.5。');
  const problems = mm.configProblemsTyped({ hidden_size: 64, num_attention_heads: 6, num_key_value_heads: 4 });
  assert.deepEqual(
    problems.map((p) => p.message),
    mm.configProblems({ hidden_size: 64, num_attention_heads: 6, num_key_value_heads: 4 }),
  );
  assert.ok(problems.length > 0 && problems.every((p) => p.kind.startsWith('config.')), JSON.stringify(problems));
  for (const p of problems) assert.equal(errorText('zh-CN', p).complete, true, p.kind);
  assert.deepEqual(mm.configProblemsTyped({ rope_theta: Infinity }), [
    {
      kind: 'api.non_finite',
      values: { name: 'config', key: 'rope_theta', value: 'Infinity' },
      message: 'rope_theta is Infinity, which JSON cannot hold: give a finite number',
    },
  ]);
  assert.deepEqual(mm.configProblemsTyped(mm.presetConfig('lab-a')), []);
});

const placeholders = (template) => [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

test('every kind has a zh-CN and an en text, with the same values in both', () => {
  const wasmKinds = kindsNamedIn('wasm');
  const all = new Set([...mm.errorKinds, ...wasmKinds.keys(), ...jsKinds(), ...ERROR_KINDS]);
  assert.ok(wasmKinds.has('binding.size_mismatch') && wasmKinds.has('out_of_memory'), 'the scan sees the bindings');
  assert.ok(jsKinds().has('data.not_json'), 'the scan sees the JS layer');
  const missing = [];
  for (const kind of [...all].sort()) {
    for (const lang of ['zh-CN', 'en']) if (typeof ERROR_TERMS[lang][kind] !== 'string') missing.push(`${lang}: ${kind}`);
    if (missing.length) continue;
    assert.deepEqual(placeholders(ERROR_TERMS['zh-CN'][kind]), placeholders(ERROR_TERMS.en[kind]), kind);
  }
  assert.deepEqual(missing, []);
});

test('a zh text of a run error names what is wrong in Chinese, with its numbers, and no English sentence', () => {
  const model = mm.createModel({ preset: 'lab-a', seed: 1 });
  const limit = model.info().max_position_embeddings;
  let error;
  try {
    model.generator([1, 2], { temperature: -1 });
  } catch (caught) {
    error = caught;
  }
  assert.equal(error?.kind, 'sampling.temperature');
  const zh = errorText('zh-CN', error);
  assert.equal(zh.complete, true);
  assert.match(zh.text, /温度必须是正数，这里是 -1/);
  assert.doesNotMatch(zh.text, /[A-Za-z]{4,}/, zh.text);
  const tooLong = { kind: 'input.too_long', values: { tokens: limit + 1, limit }, message: 'too long' };
  assert.equal(
    errorText('zh-CN', tooLong).text,
    `${(limit + 1).toLocaleString('zh-CN')} 个 token 超过了模型能处理的 ${limit.toLocaleString('zh-CN')} 个位置。`,
  );
  model.dispose();
});

test('a config for other weights says its cause in one line, the problems folded under it', () => {
  const weights = mm.createModel({ preset: 'lab-b', seed: 1 });
  const file = weights.safetensors();
  weights.dispose();
  const a = mm.presetConfig('lab-a');
  const b = mm.presetConfig('lab-b');
  let error;
  try {
    mm.loadModel({ config: a, weights: file });
  } catch (caught) {
    error = caught;
  }
  assert.equal(error?.kind, 'config.invalid');
  assert.equal(error.problems[0].kind, 'weights.misfit');
  assert.deepEqual(error.problems[0].values, { key: 'hidden_size', config: a.hidden_size, weights: b.hidden_size });
  assert.equal(
    error.message.split('\n')[0],
    `config.json says hidden_size ${a.hidden_size}, the weights have ${b.hidden_size}: this config is not for these weights`,
  );
  const zh = errorText('zh-CN', error);
  assert.equal(zh.text, `config.json 写的 hidden_size 是 ${a.hidden_size}，权重里却是 ${b.hidden_size}：这份 config.json 不是这套权重的。`);
  assert.equal(zh.problems.length, error.problems.length - 1);
  assert.ok(
    zh.problems.some((p) => p.startsWith('张量 model.embed_tokens.weight 的形状是')),
    zh.problems.join('\n'),
  );
  const en = errorText('en', error);
  assert.match(en.text, new RegExp(`^config\\.json says hidden_size ${a.hidden_size}, the weights have ${b.hidden_size}`));
});
