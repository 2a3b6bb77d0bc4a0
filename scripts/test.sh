#!/usr/bin/env bash
# npm test: sets up what is missing, builds, and runs every test: format,
# lint and type checks, the Catch2 suite natively, under ASan+UBSan and as
# WebAssembly (all through ctest), then the Node tests of the module, API and
# CLI and the browser tests in headless Chromium. The project's own C++ is
# built with -Werror here. Prints each phase's duration at the end.
# npm run test:quick (scripts/test_quick.sh) is the inner loop's subset.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/phases.sh

bash scripts/setup.sh
jobs="$(nproc)"
export MINIMIND_WERROR=1

phase "format, lint and type checks"
git ls-files -- '*.h' '*.cpp' | xargs clang-format --dry-run -Werror
node_modules/.bin/prettier --check --log-level warn js web tests/node tests/browser scripts bench wasm/*.mjs
node_modules/.bin/eslint js web bench scripts tests wasm
node scripts/unused_exports.mjs
node_modules/.bin/tsc --noEmit --strict --target es2022 --module nodenext --moduleResolution nodenext tests/node/types_check.ts

phase "native build and tests"
bash scripts/build.sh native
ctest --test-dir build/native --no-tests=error --output-on-failure -j "$jobs"

phase "AddressSanitizer + UndefinedBehaviorSanitizer build and tests"
bash scripts/build.sh asan
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build/asan --no-tests=error --output-on-failure -j "$jobs"

phase "WebAssembly builds (SIMD, relaxed, scalar and threads), the static site, and the Catch2 suite under Node"
bash scripts/build.sh wasm
bash scripts/build.sh wasm-scalar
bash scripts/build.sh wasm-threads
node scripts/build_site.mjs
ctest --test-dir build/wasm --no-tests=error --output-on-failure -j "$jobs"

phase "Node and browser tests: the module through the JS API, the CLI, headless Chromium"
# Two files at a time: most of a browser test's time is spent waiting on the
# page, so two overlap well on two cores (each file has its own server port,
# browser profile and temp folder).
node --test --test-concurrency=2 tests/node/ tests/browser/
phases_done
