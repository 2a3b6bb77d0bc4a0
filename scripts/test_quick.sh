#!/usr/bin/env bash
# npm run test:quick: the inner loop. The native build and its Catch2 suite,
# the SIMD Wasm build, and the Node tests that need only that build: no ASan,
# scalar or threads trees, no static site, no browser. npm test (CI) runs
# everything; run it before a change lands.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/phases.sh

bash scripts/setup.sh
jobs="$(nproc)"
# As npm test: -Werror, and the same build trees stay warm for both.
export MINIMIND_WERROR=1

phase "lint"
node_modules/.bin/eslint js web bench scripts tests wasm
node scripts/unused_exports.mjs

phase "native build and tests"
bash scripts/build.sh native
ctest --test-dir build/native --no-tests=error --output-on-failure -j "$jobs"

phase "WebAssembly builds (SIMD and relaxed) and the Node tests that need only them"
bash scripts/build.sh wasm minimind_wasm minimind_wasm_relaxed
# Files that need another build: the scalar build (simd), the threads build
# (threads), the static site (package), both Wasm trees and the site
# (pages_workflow). Tests inside a file that need the threads build skip
# themselves when MINIMIND_TEST_TIER is quick.
MINIMIND_TEST_TIER=quick node --test $(ls tests/node/*.test.mjs | grep -v -e '/simd\.' -e '/threads\.' -e '/package\.' -e '/pages_workflow\.')
phases_done
