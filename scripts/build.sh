#!/usr/bin/env bash
# Configures and builds one build tree:
#   native       build/native       Release: core, tests, minimind-lab
#   asan         build/asan         AddressSanitizer + UndefinedBehaviorSanitizer
#   wasm         build/wasm         dist/wasm/minimind.{mjs,wasm} (SIMD128), minimind-single.mjs
#                                   (the same with the .wasm inlined), minimind-relaxed.{mjs,wasm}
#                                   (fused multiply-adds in the weight products) and the Wasm tests
#   wasm-scalar  build/wasm-scalar  dist/wasm/minimind-scalar.{mjs,wasm} (no SIMD, for contrast)
#   wasm-threads build/wasm-threads dist/wasm/minimind-threads.{mjs,wasm,worker.js} (SIMD128 + pthreads,
#                                   for Node and cross-origin isolated pages) and its relaxed twin
#                                   minimind-relaxed-threads.{mjs,wasm,worker.js}
# Further arguments build only those targets (npm start: minimind_wasm minimind_wasm_single minimind_wasm_relaxed).
set -euo pipefail
cd "$(dirname "$0")/.."
flavour="${1:-native}"
target=()
[ $# -ge 2 ] && target=(--target "${@:2}")
configure=(cmake)
case "$flavour" in
  native) args=(-DCMAKE_BUILD_TYPE=Release) ;;
  asan) args=(-DCMAKE_BUILD_TYPE=Debug -DMINIMIND_SANITIZE=ON -DMINIMIND_UNITY=ON) ;;
  wasm) configure=(emcmake cmake); args=(-DCMAKE_BUILD_TYPE=Release -DMINIMIND_UNITY=ON) ;;
  wasm-scalar) configure=(emcmake cmake); args=(-DCMAKE_BUILD_TYPE=Release -DMINIMIND_WASM_SIMD=OFF -DMINIMIND_TESTS=OFF -DMINIMIND_UNITY=ON) ;;
  wasm-threads) configure=(emcmake cmake); args=(-DCMAKE_BUILD_TYPE=Release -DMINIMIND_WASM_THREADS=ON -DMINIMIND_TESTS=OFF -DMINIMIND_UNITY=ON) ;;
  *) echo "build: unknown flavour '$flavour' (native, asan, wasm, wasm-scalar, wasm-threads)" >&2; exit 2 ;;
esac
# npm test and test:quick set MINIMIND_WERROR=1: the project's own C++ builds
# warning-free there. Unset, a tree keeps the setting it was configured with
# (a new tree: off), so npm start, the bench and the test tiers share warm
# trees instead of recompiling them for a changed flag (MINIMIND_WERROR=0
# turns it off again).
if [ -n "${MINIMIND_WERROR:-}" ]; then args+=("-DMINIMIND_WERROR=${MINIMIND_WERROR}"); fi
"${configure[@]}" -S . -B "build/$flavour" "${args[@]}" >/dev/null
cmake --build "build/$flavour" -j "$(nproc)" "${target[@]}"
