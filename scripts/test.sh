#!/usr/bin/env bash
# npm test: sets up what is missing, builds, and runs every test:
# formatting, the Catch2 suite natively and under ASan+UBSan (via ctest).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh

echo "== format check (clang-format)"
git ls-files -- '*.h' '*.cpp' | xargs clang-format --dry-run -Werror

echo "== native build and tests"
bash scripts/build.sh native
ctest --test-dir build/native --no-tests=error --output-on-failure -j "$(nproc)"

echo "== AddressSanitizer + UndefinedBehaviorSanitizer build and tests"
bash scripts/build.sh asan
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build/asan --no-tests=error --output-on-failure -j "$(nproc)"
