// libFuzzer target: config.json text, parsed and validated; what is accepted
// is written and reread, and small models of it run a forward pass. Run with
// scripts/fuzz.sh.
// fuzz-seeds: tests/fixtures/*/config.json tests/fixtures/train/*/config.json
// fuzz-seeds: models/*/config.json tests/fuzz/regressions/fuzz_config/*
// fuzz-max-len: 4096
#include "parse_paths.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  minimind::fuzz::config(data, size);
  return 0;
}
