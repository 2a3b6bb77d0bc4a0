// ESLint: errors, not style (Prettier formats). The project's own JavaScript
// in js/, web/, bench/, scripts/ and tests/; each folder gets the globals of
// where it runs (web/: the browser and workers; the rest: Node, and the
// browser too for what tests and benches evaluate inside a page). ES2025 for
// import attributes: the gallery's text reads the demo model's generated records.
import js from '@eslint/js';
import globals from 'globals';

export default [
  // wasm/node_globals.js is a script fragment Emscripten pastes into its output (--extern-pre-js), not a module.
  { ignores: ['dist/', 'build/', 'build-*/', 'node_modules/', 'test-artifacts/', 'bench/models/', 'out/', 'wasm/node_globals.js'] },
  js.configs.recommended,
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { ecmaVersion: 2025, sourceType: 'module' },
    rules: {
      // An unused catch binding or a leading-underscore argument says "deliberately ignored".
      'no-unused-vars': ['error', { args: 'after-used', argsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
  { files: ['web/**'], languageOptions: { globals: { ...globals.browser, ...globals.worker } } },
  { files: ['wasm/**/*.mjs'], languageOptions: { globals: globals.node } },
  { files: ['js/**', 'scripts/**'], languageOptions: { globals: { ...globals.node, ...globals.browser } } },
  { files: ['bench/**', 'tests/**'], languageOptions: { globals: { ...globals.node, ...globals.browser } } },
];
