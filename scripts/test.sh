#!/usr/bin/env bash
# npm test: sets up what is missing, builds, and runs every test:
# format and type checks, the Catch2 suite natively, under ASan+UBSan and as
# WebAssembly (all through ctest), then the Node tests of the module, API and
# CLI and the browser tests in headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
jobs="$(nproc)"

echo "== format and type checks"
git ls-files -- '*.h' '*.cpp' | xargs clang-format --dry-run -Werror
node_modules/.bin/prettier --check --log-level warn js web tests/node tests/browser scripts bench
node_modules/.bin/tsc --noEmit --strict --target es2022 --module nodenext --moduleResolution nodenext tests/node/types_check.ts

echo "== native build and tests"
bash scripts/build.sh native
ctest --test-dir build/native --no-tests=error --output-on-failure -j "$jobs"

echo "== AddressSanitizer + UndefinedBehaviorSanitizer build and tests"
bash scripts/build.sh asan
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build/asan --no-tests=error --output-on-failure -j "$jobs"

echo "== WebAssembly builds (SIMD, scalar and threads), the static site, and the Catch2 suite under Node"
bash scripts/build.sh wasm
bash scripts/build.sh wasm-scalar
bash scripts/build.sh wasm-threads
node scripts/build_site.mjs
ctest --test-dir build/wasm --no-tests=error --output-on-failure -j "$jobs"

echo "== Node and browser tests: the module through the JS API, the CLI, headless Chromium"
node --test tests/node/ tests/browser/
