// Replays every input saved in tests/fuzz/regressions/<target>/ (crashes the
// fuzzers found, minimised, and hand-made nasty inputs: truncations and bit
// flips of the fixtures) through the parse path of tests/fuzz/<target>.cpp:
// each must now parse or fail with the reader's own error, never crash (the
// ASan build runs this too).
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>

#include "fixtures.h"
#include "fuzz/parse_paths.h"

using namespace minimind;
using namespace minimind::testing;

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> sorted_entries(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(dir)) out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("fuzz regressions: every saved input parses or fails cleanly", "[fuzz]") {
  size_t replayed = 0;
  for (const fs::path& dir : sorted_entries(MINIMIND_FUZZ_REGRESSIONS_DIR)) {
    if (!fs::is_directory(dir)) continue;
    const std::string target = dir.filename().string();
    INFO("tests/fuzz/regressions/" << target);
    const auto path = fuzz::parse_paths().find(target);
    REQUIRE(path != fuzz::parse_paths().end());  // each folder needs its parse path in tests/fuzz/parse_paths.h
    for (const fs::path& file : sorted_entries(dir)) {
      CAPTURE(file.filename().string());
      const std::vector<uint8_t> bytes = read_bytes(file.string());
      REQUIRE_NOTHROW(path->second(bytes.data(), bytes.size()));
      ++replayed;
    }
  }
  CHECK(replayed >= 10);
}

TEST_CASE("fuzz parse paths: truncations and bit flips of the .pth fixtures fail cleanly", "[fuzz][pth]") {
  for (const char* name : {"pth/views_bf16.pth", "pth/protocol4.pth", "pth/parameters.pth", "gen2_dense/model.pth"}) {
    INFO(name);
    const std::vector<uint8_t> bytes = read_bytes(fixture_path(name));
    const size_t step = std::max<size_t>(1, bytes.size() / 500);
    for (size_t n = 0; n < bytes.size(); n += step) {
      CAPTURE(n);
      REQUIRE_NOTHROW(fuzz::pth(bytes.data(), n));
    }
    std::vector<uint8_t> flipped = bytes;
    for (size_t i = 0; i < bytes.size(); i += step) {
      for (int bit = 0; bit < 8; ++bit) {
        CAPTURE(i, bit);
        flipped[i] ^= uint8_t(1 << bit);
        REQUIRE_NOTHROW(fuzz::pth(flipped.data(), flipped.size()));
        flipped[i] ^= uint8_t(1 << bit);
      }
    }
  }
}
