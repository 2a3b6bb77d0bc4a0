// libFuzzer target: tokenizer.json text, then encode/decode/display of its
// own vocabulary with what parses. Run with scripts/fuzz.sh.
// fuzz-seeds: tests/fuzz/regressions/fuzz_tokenizer_json/*
// fuzz-max-len: 4096
#include "parse_paths.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  minimind::fuzz::tokenizer_json(data, size);
  return 0;
}
