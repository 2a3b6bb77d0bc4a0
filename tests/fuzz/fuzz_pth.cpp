// libFuzzer target: PyTorch .pth files (zip + pickle + storages), then config
// inference and weight loading on what parses. Run with scripts/fuzz.sh.
// fuzz-seeds: tests/fixtures/pth/*.pth tests/fuzz/regressions/fuzz_pth/* tests/fixtures/gen2_dense/model.pth
// fuzz-max-len: 6144
#include "parse_paths.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  minimind::fuzz::pth(data, size);
  return 0;
}
