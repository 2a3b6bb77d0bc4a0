#!/usr/bin/env bash
# Builds the libFuzzer targets (one per tests/fuzz/fuzz_*.cpp, picked up
# automatically) with clang, ASan and UBSan in build/fuzz, runs each for the
# time given, merges what it found into the committed corpus and records the
# run. Not part of npm test (which replays the committed corpus): run it by
# hand, at low priority on a shared machine.
#
#   bash scripts/fuzz.sh --minutes N [target ...]   (or --seconds N; default 60 s)
#   nice -n 19 npm run fuzz -- --minutes 30 pth safetensors
#
# Targets are named with or without their "fuzz_" prefix; none means all.
# Other options: --build-only, --no-build, --no-record (a trial: no merge,
# no log). Per target:
#   - the working corpus build/fuzz/corpus/<target>/ starts from the committed
#     tests/fuzz/corpus/<target>/, the files the source's "// fuzz-seeds:"
#     line names and its regressions; inputs are capped at the source's
#     "// fuzz-max-len:" bytes; tests/fuzz/<target>.dict is used if present;
#   - after the run, the committed corpus is rebuilt with -merge=1 from
#     itself and the working corpus: the smallest set of inputs that keeps
#     all their coverage (the files are named by their SHA-1);
#   - one line goes to tests/fuzz/runs.jsonl (date, wall minutes, CPU
#     seconds, executions, new inputs, findings, corpus size) and the table
#     of docs/testing.md is regenerated from it (scripts/fuzz_report.mjs).
# Ctrl-C (or SIGTERM) stops the running target cleanly: its time so far is
# merged and recorded, and the remaining targets are skipped.
#
# Crash, leak, timeout and out-of-memory inputs are kept in
# build/fuzz/findings/<target>/. For each: fix core/, then minimise it
#   build/fuzz/tests/fuzz/<target> -minimize_crash=1 -runs=10000 <input>
# and save it in tests/fuzz/regressions/<target>/, which the Catch2 suite
# replays (tests/test_fuzz_regressions.cpp).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=60
build=1
record=1
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) seconds="$(awk -v m="${2:-}" 'BEGIN { if (m !~ /^[0-9]+(\.[0-9]+)?$/) exit 1; printf "%d", m * 60 }')" ||
      { echo "fuzz: --minutes takes a number, got '${2:-}'" >&2; exit 2; }
      shift 2 ;;
    --seconds) seconds="${2:-}"; shift 2 ;;
    --build-only) record=0; build=2; shift ;;
    --no-build) build=0; shift ;;
    --no-record) record=0; shift ;;
    -*) echo "fuzz: unknown option $1" >&2; exit 2 ;;
    *)
      if [[ "$1" =~ ^[0-9]+$ ]] && [ ${#targets[@]} -eq 0 ]; then
        seconds="$1"  # the older form: seconds first
      else
        targets+=("fuzz_${1#fuzz_}")
      fi
      shift ;;
  esac
done
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -lt 1 ]; then
  echo "fuzz: the run time must be a whole number of seconds (or --minutes N), got '$seconds'" >&2
  exit 2
fi
if [ ${#targets[@]} -eq 0 ]; then
  for source in tests/fuzz/fuzz_*.cpp; do targets+=("$(basename "$source" .cpp)"); done
fi
for target in "${targets[@]}"; do
  if [ ! -f "tests/fuzz/$target.cpp" ]; then
    echo "fuzz: no target $target (tests/fuzz/$target.cpp)" >&2
    exit 2
  fi
done

if [ "$build" -ne 0 ]; then
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
  [ "$build" -eq 2 ] && exit 0
fi

# The CPU time (user + system, seconds) of this shell's waited-for children
# so far, from `times`, which must run in this shell: a subshell's $(times)
# counts only the subshell's own children.
times_file="$(mktemp)"
trap 'rm -f "$times_file"' EXIT
children_cpu_seconds() {
  awk 'NR == 2 { t = 0; for (i = 1; i <= 2; ++i) { split($i, p, /[ms]/); t += p[1] * 60 + p[2] } printf "%.1f", t }' \
    "$times_file"
}

stop_requested=0
fuzzer_pid=""
on_stop() {
  stop_requested=1
  [ -n "$fuzzer_pid" ] && kill -INT "$fuzzer_pid" 2>/dev/null || true
}
trap on_stop INT TERM

status=0
for target in "${targets[@]}"; do
  [ "$stop_requested" -eq 1 ] && break
  source="tests/fuzz/$target.cpp"
  binary="build/fuzz/tests/fuzz/$target"
  committed="tests/fuzz/corpus/$target"
  corpus="build/fuzz/corpus/$target"
  findings="build/fuzz/findings/$target"
  log="build/fuzz/$target.log"
  mkdir -p "$committed" "$corpus" "$findings"
  [ -n "$(ls -A "$committed")" ] && cp "$committed"/* "$corpus"/
  # Seeds: the globs on the source's "// fuzz-seeds:" line.
  seeds="$(sed -n 's|^// fuzz-seeds:||p' "$source")"
  for pattern in $seeds; do
    for file in $pattern; do
      [ -f "$file" ] && cp "$file" "$corpus/seed-$(echo "$file" | tr '/' '_')"
    done
  done
  max_len="$(sed -n 's|^// fuzz-max-len: *||p' "$source")"
  options=(-timeout=60 -rss_limit_mb=2048 -max_len="${max_len:-16384}" -artifact_prefix="$findings/")
  [ -f "tests/fuzz/$target.dict" ] && options+=(-dict="tests/fuzz/$target.dict")
  echo "== $target: ${seconds}s, corpus $corpus ($(ls "$corpus" | wc -l) inputs)"

  stamp="$(mktemp)"
  times >"$times_file"
  cpu_before="$(children_cpu_seconds)"
  start="$(date +%s.%N)"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$binary" "${options[@]}" -max_total_time="$seconds" -print_final_stats=1 "$corpus" 2>"$log" &
  fuzzer_pid=$!
  # wait returns early when a signal's trap runs: wait again for the exit.
  code=0
  while true; do
    wait "$fuzzer_pid" && code=0 || code=$?
    kill -0 "$fuzzer_pid" 2>/dev/null || break
  done
  fuzzer_pid=""
  end="$(date +%s.%N)"
  times >"$times_file"
  cpu="$(awk -v a="$cpu_before" -v b="$(children_cpu_seconds)" 'BEGIN { printf "%.1f", b - a }')"
  minutes="$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", (b - a) / 60 }')"
  executions="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
  # libFuzzer also saves its slowest input (slow-unit-*): wall time on a
  # shared machine, not a finding.
  found="$(find "$findings" -type f -newer "$stamp" \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
    -o -name 'oom-*' \) | wc -l)"
  rm -f "$stamp"
  # 72 is libFuzzer's exit code for an interrupted run.
  if [ "$code" -ne 0 ] && ! { [ "$code" -eq 72 ] && [ "$stop_requested" -eq 1 ]; }; then status=1; fi
  grep -E '^stat::|^#[0-9]+ *DONE|ERROR|SUMMARY' "$log" || true

  [ "$record" -eq 1 ] || continue
  merged="build/fuzz/merge/$target"
  rm -rf "$merged"
  mkdir -p "$merged"
  before="$(ls "$committed" | sort)"
  if "$binary" -merge=1 -timeout=60 -rss_limit_mb=2048 -max_len="${max_len:-16384}" \
    -artifact_prefix="$findings/" "$merged" "$committed" "$corpus" >"build/fuzz/$target.merge.log" 2>&1; then
    rm -f "$committed"/*
    [ -n "$(ls -A "$merged")" ] && cp "$merged"/* "$committed"/
  else
    echo "fuzz: merging $target failed (build/fuzz/$target.merge.log); the committed corpus is unchanged" >&2
    status=1
  fi
  new_inputs="$(comm -13 <(echo "$before") <(ls "$committed" | sort) | grep -c . || true)"
  files="$(ls "$committed" | wc -l)"
  bytes="$(find "$committed" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')"
  printf '{"date":"%s","target":"%s","minutes":%s,"cpu_seconds":%s,"executions":%s,"new_inputs":%s,"findings":%s,"corpus_files":%s,"corpus_bytes":%s}\n' \
    "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$target" "$minutes" "$cpu" "${executions:-0}" "$new_inputs" "$found" \
    "$files" "$bytes" >>tests/fuzz/runs.jsonl
  echo "== $target: $minutes min, $cpu CPU s, ${executions:-0} executions, $new_inputs new inputs," \
    "$found findings; corpus $files files, $bytes bytes"
done

if [ "$record" -eq 1 ] && command -v node >/dev/null 2>&1; then node scripts/fuzz_report.mjs; fi

found="$(find build/fuzz/findings -type f ! -name 'slow-unit-*' 2>/dev/null | sort)"
if [ -n "$found" ]; then
  echo "== findings kept from this and earlier runs (logs in build/fuzz/<target>.log):"
  echo "$found"
  status=1
fi
exit "$status"
