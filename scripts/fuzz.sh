#!/usr/bin/env bash
# Builds the libFuzzer targets (one per tests/fuzz/fuzz_*.cpp, picked up
# automatically) with clang, ASan and UBSan in build/fuzz, seeds each corpus
# from the files its source names on a "// fuzz-seeds:" line, and runs each
# target for a bounded time. Not part of npm test: run it by hand.
#
#   bash scripts/fuzz.sh [seconds per target, default 60] [target ...]
#
# Kept between runs: the corpora (build/fuzz/corpus/<target>/) and every
# crash, leak, timeout or out-of-memory input (build/fuzz/findings/<target>/).
# For each finding: fix core/, then minimise it
#   build/fuzz/tests/fuzz/<target> -minimize_crash=1 -runs=10000 <input>
# and save it in tests/fuzz/regressions/<target>/, which the Catch2 suite
# replays (tests/test_fuzz_regressions.cpp).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift || true
if ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
  echo "fuzz: the first argument is the number of seconds per target, got '$seconds'" >&2
  exit 2
fi
if [ $# -gt 0 ]; then
  targets=("$@")
else
  targets=()
  for source in tests/fuzz/fuzz_*.cpp; do targets+=("$(basename "$source" .cpp)"); done
fi

# Debian's clang and its libFuzzer runtime, installed when missing.
install() {
  local apt_get=(apt-get)
  [ "$(id -u)" -eq 0 ] || apt_get=(sudo apt-get)
  echo "fuzz: installing $*"
  export DEBIAN_FRONTEND=noninteractive
  "${apt_get[@]}" -o DPkg::Lock::Timeout=600 update -qq
  "${apt_get[@]}" -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "$@"
}
command -v clang++ >/dev/null 2>&1 || install clang
if [ ! -f "$(clang++ -print-resource-dir)/lib/linux/libclang_rt.fuzzer-$(uname -m).a" ]; then
  install "libclang-rt-$(clang++ --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p')-dev"
fi

CC=clang CXX=clang++ cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMINIMIND_FUZZ=ON \
  -DMINIMIND_TESTS=OFF >/dev/null
cmake --build build/fuzz -j "$(nproc)" --target "${targets[@]}"

status=0
for target in "${targets[@]}"; do
  source="tests/fuzz/$target.cpp"
  corpus="build/fuzz/corpus/$target"
  findings="build/fuzz/findings/$target"
  mkdir -p "$corpus" "$findings"
  # Seeds: the globs on the source's "// fuzz-seeds:" line.
  seeds="$(sed -n 's|^// fuzz-seeds:||p' "$source")"
  for pattern in $seeds; do
    for file in $pattern; do
      [ -f "$file" ] && cp "$file" "$corpus/seed-$(echo "$file" | tr '/' '_')"
    done
  done
  options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=262144
    -artifact_prefix="$findings/" -print_final_stats=1)
  [ -f "tests/fuzz/$target.dict" ] && options+=(-dict="tests/fuzz/$target.dict")
  echo "== $target: ${seconds}s, corpus $corpus ($(ls "$corpus" | wc -l) inputs)"
  if ! ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "build/fuzz/tests/fuzz/$target" "${options[@]}" "$corpus" 2>"build/fuzz/$target.log"; then
    status=1
  fi
  grep -E '^stat::|^#[0-9]+ *DONE|ERROR|SUMMARY' "build/fuzz/$target.log" || true
done

found="$(find build/fuzz/findings -type f 2>/dev/null | sort)"
if [ -n "$found" ]; then
  echo "== findings kept from this and earlier runs (logs in build/fuzz/<target>.log):"
  echo "$found"
  status=1
fi
exit "$status"
