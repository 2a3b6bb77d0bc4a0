#!/usr/bin/env bash
# Configures and builds one native build tree: build/native (Release) or,
# with "asan", build/asan (AddressSanitizer + UndefinedBehaviorSanitizer).
set -euo pipefail
cd "$(dirname "$0")/.."
flavour="${1:-native}"
case "$flavour" in
  native) args=(-DCMAKE_BUILD_TYPE=Release) ;;
  asan) args=(-DCMAKE_BUILD_TYPE=Debug -DMINIMIND_SANITIZE=ON) ;;
  *) echo "build: unknown flavour '$flavour' (native or asan)" >&2; exit 2 ;;
esac
cmake -S . -B "build/$flavour" "${args[@]}" >/dev/null
cmake --build "build/$flavour" -j "$(nproc)"
