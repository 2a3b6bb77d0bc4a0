// libFuzzer target: safetensors files, then config inference and weight
// loading on what parses. Run with scripts/fuzz.sh.
// fuzz-seeds: tests/fuzz/regressions/fuzz_safetensors/* tests/fixtures/gen2_dense/*.safetensors
// fuzz-max-len: 8192
#include "parse_paths.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  minimind::fuzz::safetensors(data, size);
  return 0;
}
