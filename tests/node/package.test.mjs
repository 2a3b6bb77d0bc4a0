// The package as users install it: `npm pack`, the tarball installed into an
// empty project, then `import ... from 'minimind-playground'` and `npx
// minimind` there, and the element, `minimind-playground/element` (the
// single-file <minimind-attention>: its Wasm and the trained model inside,
// no dependencies, works without a bundler): imported in Node without a DOM
// (nothing thrown), with a stand-in DOM (it defines the element), and in
// headless Chromium from the installed folder through an import map (it
// draws the trained model's numbers). Needs dist/wasm/ and dist/site/ built
// (npm run build).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { promisify } from 'node:util';

import { serve } from '../../scripts/serve.mjs';
import { launchBrowser, openPage } from '../browser/browser.mjs';
import { trainedMatrix, trainedModel } from '../browser/demo.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

test(
  'the packed tarball installs into an empty project, imports, runs a forward, the minimind command and the element',
  { timeout: 300_000 },
  async (t) => {
    assert.ok(existsSync(join(ROOT, 'dist/wasm/minimind.wasm')), 'dist/wasm is built (npm run build:wasm)');
    assert.ok(existsSync(join(ROOT, 'dist/site/minimind-attention.single.js')), 'dist/site is built (npm run build)');
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
      'dist/site/minimind-attention.single.js',
    ]) {
      assert.ok(paths.includes(needed), `the tarball holds ${needed}`);
    }
    // Of the site, only the element's single file: the rest is for hosting, not for the package.
    assert.deepEqual(
      paths.filter((p) => p.startsWith('dist/site/')),
      ['dist/site/minimind-attention.single.js'],
    );
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

    // The element entry. In Node without a DOM (server-side rendering imports it): nothing thrown, nothing defined.
    writeFileSync(
      join(project, 'element-no-dom.mjs'),
      `import 'minimind-playground/element';
console.log(JSON.stringify({ resolved: import.meta.resolve('minimind-playground/element'), customElements: typeof customElements }));
`,
    );
    const noDom = JSON.parse((await run(process.execPath, ['element-no-dom.mjs'], { cwd: project, env })).stdout);
    const installedFile = join(project, 'node_modules/minimind-playground/dist/site/minimind-attention.single.js');
    assert.equal(noDom.resolved, pathToFileURL(installedFile).href, 'the export is the installed single file');
    assert.equal(noDom.customElements, 'undefined');
    // With a stand-in DOM: importing it defines <minimind-attention>, an HTMLElement with its attributes.
    writeFileSync(
      join(project, 'element-defines.mjs'),
      `const defined = [];
globalThis.HTMLElement = class HTMLElement {};
globalThis.customElements = { get: (name) => defined.find(([n]) => n === name)?.[1], define: (name, element) => defined.push([name, element]) };
await import('minimind-playground/element');
const described = ([name, element]) => ({ name, isElement: element?.prototype instanceof HTMLElement, attributes: element?.observedAttributes });
console.log(JSON.stringify(defined.map(described)));
`,
    );
    // It defines <minimind-exercise> too (the tour's exercises for course pages).
    const definedElements = JSON.parse((await run(process.execPath, ['element-defines.mjs'], { cwd: project, env })).stdout);
    assert.deepEqual(definedElements.map((e) => e.name).sort(), ['minimind-attention', 'minimind-exercise']);
    const withDom = definedElements.find((e) => e.name === 'minimind-attention');
    assert.equal(withDom.isElement, true);
    assert.ok(withDom.attributes.includes('text') && withDom.attributes.includes('preset'), withDom.attributes);
    const exerciseElement = definedElements.find((e) => e.name === 'minimind-exercise');
    assert.equal(exerciseElement.isElement, true);
    assert.deepEqual(exerciseElement.attributes, ['name', 'lang', 'text']);

    // In a browser, from the installed folder, without a bundler: an import map
    // names the installed file as Node resolved the export, the page imports
    // 'minimind-playground/element', and the figure draws the trained model's numbers.
    const mapped = `/${new URL(noDom.resolved).pathname.slice(pathToFileURL(project).pathname.length + 1)}`;
    writeFileSync(
      join(project, 'index.html'),
      `<!doctype html><html><head><meta charset="utf-8"><title>installed</title><link rel="icon" href="data:,">
<script type="importmap">${JSON.stringify({ imports: { 'minimind-playground/element': mapped } })}</script>
<script type="module">import 'minimind-playground/element';</script></head>
<body><minimind-attention id="figure" text="今天天气很好" head="1" lang="en"></minimind-attention></body></html>`,
    );
    const server = await serve(project);
    const browser = await launchBrowser();
    t.after(async () => {
      await browser.close();
      await server.close();
    });
    const { page, errors } = await openPage(browser.context, server.url);
    await page.waitForFunction(() => document.getElementById('figure').dataset.state === 'ready', null, { timeout: 60000 });
    const drawn = await page.evaluate(() => {
      const element = document.getElementById('figure');
      const canvas = element.shadowRoot.querySelector('canvas');
      return { weights: element.weights, width: canvas.width, height: canvas.height };
    });
    assert.ok(drawn.width > 0 && drawn.height > 0, 'the figure is drawn');
    const { heads } = await trainedModel();
    const { rows } = await trainedMatrix({ text: '今天天气很好', layer: heads.pronounHead.layer, head: 1 });
    assert.equal(drawn.weights.length, rows.length);
    rows.forEach((row, i) => row.forEach((w, j) => assert.ok(Math.abs(drawn.weights[i][j] - w) <= 1e-6, `cell ${i},${j}`)));
    assert.deepEqual(errors, []);
  },
);
