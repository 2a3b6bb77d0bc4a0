// libFuzzer target: tokenizer.json text, then encode/decode/display with what
// parses. Run with scripts/fuzz.sh.
// fuzz-seeds: tests/fuzz/regressions/fuzz_tokenizer/*
#include "parse_paths.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  minimind::fuzz::tokenizer(data, size);
  return 0;
}
