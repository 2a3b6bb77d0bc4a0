// libFuzzer target: the matrices a learner types into the worked attention
// and softmax, and the lab record's preset and seed (layout in
// lesson_path.h). Run with scripts/fuzz.sh.
// fuzz-seeds: tests/fuzz/regressions/fuzz_lesson/*
// fuzz-max-len: 4096
#include "parse_paths.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  minimind::fuzz::lesson(data, size);
  return 0;
}
