// libFuzzer target: any text (invalid UTF-8, odd Unicode, special-token
// text) encoded, decoded and displayed with MiniMind's shipped tokenizer.
// Run with scripts/fuzz.sh.
// fuzz-seeds: tests/fuzz/regressions/fuzz_tokenizer_text/*
// fuzz-max-len: 4096
#include "parse_paths.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  minimind::fuzz::tokenizer_text(data, size);
  return 0;
}
