#!/usr/bin/env bash
# npm start: sets up what is missing, builds the Wasm module and the static
# site, and serves the playground on localhost (PORT, default 8080, or the
# next free port), printing its URL.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "Building the WebAssembly module and the page (the first build takes a minute)..."
bash scripts/build.sh wasm minimind_wasm minimind_wasm_single minimind_wasm_relaxed >/dev/null
bash scripts/build.sh wasm-threads >/dev/null
node scripts/build_site.mjs
exec node scripts/serve.mjs dist/site --port "${PORT:-8080}" --find-free-port
