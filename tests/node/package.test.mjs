// The package as users install it: `npm pack`, the tarball installed into an
// empty project, then `import ... from 'minimind-playground'` and `npx
// minimind` there. Needs dist/wasm/ built (npm run build:wasm).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

test(
  'the packed tarball installs into an empty project, imports, runs a forward and the minimind command',
  { timeout: 300_000 },
  async (t) => {
    assert.ok(existsSync(join(ROOT, 'dist/wasm/minimind.wasm')), 'dist/wasm is built (npm run build:wasm)');
    const work = mkdtempSync(join(tmpdir(), 'minimind-package-'));
    t.after(() => rmSync(work, { recursive: true, force: true }));
    const env = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };

    // npm pack --json lists what the tarball holds.
    const { stdout: packed } = await run(npm, ['pack', '--json', '--pack-destination', work], { cwd: ROOT, env, maxBuffer: 1 << 26 });
    const [{ filename, files }] = JSON.parse(packed);
    const paths = files.map((f) => f.path);
    for (const needed of [
      'package.json',
      'README.md',
      'js/minimind.mjs',
      'js/minimind.d.mts',
      'js/cli.mjs',
      'js/chat_template.mjs',
      'js/chat_templates.mjs',
      'dist/wasm/minimind.mjs',
      'dist/wasm/minimind.wasm',
      'models/minimind-tokenizer/tokenizer.json',
      'models/minimind-tokenizer/tokenizer_config.json',
      'models/minimind-tokenizer/LICENSE',
    ]) {
      assert.ok(paths.includes(needed), `the tarball holds ${needed}`);
    }
    assert.ok(!paths.some((p) => /^(core|tests|web|wasm|bench|build)\//.test(p)), 'no sources, tests or build trees');
    // Every relative import of js/ is shipped, every bare one is a dependency.
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    for (const file of paths.filter((p) => p.startsWith('js/') && p.endsWith('.mjs'))) {
      const source = readFileSync(join(ROOT, file), 'utf8');
      for (const [, spec] of source.matchAll(/(?:^import [^'"]*|\bimport\()\s*['"]([^'"]+)['"]/gm)) {
        if (spec.startsWith('node:')) continue;
        if (spec.startsWith('.')) {
          const target = new URL(spec, new URL(file, 'file:///')).pathname.slice(1);
          assert.ok(paths.includes(target), `${file} imports ${spec}, which the tarball holds`);
        } else {
          assert.ok(pkg.dependencies?.[spec], `${file} imports ${spec}: it must be in "dependencies"`);
        }
      }
    }

    // An empty project installs the tarball (its dependencies from npm's cache when there).
    const project = join(work, 'project');
    await run(process.execPath, ['-e', `require('fs').mkdirSync(${JSON.stringify(project)})`]);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'uses-minimind', version: '1.0.0', private: true, type: 'module' }),
    );
    await run(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', join(work, filename)], {
      cwd: project,
      env,
      maxBuffer: 1 << 26,
    });

    writeFileSync(
      join(project, 'main.mjs'),
      `import { loadMiniMind } from 'minimind-playground';
import { chatPrompt } from 'minimind-playground/chat-template';
const mm = await loadMiniMind();
const model = mm.createModel({ preset: 'lab-a', seed: 0 });
const { logits, trace } = model.forward([3, 4, 5], { trace: { layers: [0], stages: ['attn_weights'] } });
console.log(JSON.stringify({ shape: logits.shape, first: logits.data[0], row: Array.from(trace.get(0, 'attn_weights').data.subarray(0, 3)), chat: chatPrompt('hi') }));
model.dispose();
`,
    );
    const { stdout } = await run(process.execPath, ['main.mjs'], { cwd: project, env });
    const installed = JSON.parse(stdout);
    assert.deepEqual(installed.shape, [1, 3, 128]);
    assert.deepEqual(installed.row, [1, 0, 0], 'the first query sees only itself');
    assert.equal(installed.chat, '<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n');
    // The same numbers as this checkout's module.
    const { loadMiniMind } = await import('../../js/minimind.mjs');
    const here = (await loadMiniMind()).createModel({ preset: 'lab-a', seed: 0 });
    assert.equal(installed.first, here.forward([3, 4, 5]).logits.data[0]);
    here.dispose();

    const info = await run(npx, ['--no-install', 'minimind', 'info', '--preset', 'lab-a'], { cwd: project, env });
    assert.match(info.stdout, /^layers 2, hidden 64, heads 4, kv heads 2, vocab 128$/m);
    // --chat with the tokenizer files shipped in the package.
    const tokenizer = join(project, 'node_modules/minimind-playground/models/minimind-tokenizer/tokenizer.json');
    const chat = await run(
      npx,
      [
        '--no-install',
        'minimind',
        'generate',
        '--preset',
        'minimind2-small',
        '--tokenizer',
        tokenizer,
        '--text',
        '你好',
        '--chat',
        '--max-new-tokens',
        '1',
        '--greedy',
        '--json',
      ],
      {
        cwd: project,
        env,
      },
    );
    assert.equal(JSON.parse(chat.stdout).prompt[0], 1, 'the chat prompt starts with <|im_start|>');
  },
);
