// Replays, through the parse path of tests/fuzz/<target>.cpp, every input
// of the committed corpus tests/fuzz/corpus/<target>/ (what scripts/fuzz.sh
// merged from its runs: the inputs that reach every branch the fuzzer found)
// and of tests/fuzz/regressions/<target>/ (crashes the fuzzers found,
// minimised, and hand-made nasty inputs: truncations and bit flips of the
// fixtures). Each must parse or fail with the reader's own error, never crash
// or break a promise of its path (the ASan and Wasm builds run this too).
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
  if (!fs::is_directory(dir)) return out;
  for (const auto& entry : fs::directory_iterator(dir)) out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Every input file in `dir`, through `path`; returns how many.
size_t replay(const fs::path& dir, fuzz::ParsePath path) {
  size_t replayed = 0;
  for (const fs::path& file : sorted_entries(dir)) {
    CAPTURE(file.filename().string());
    const std::vector<uint8_t> bytes = read_bytes(file.string());
    REQUIRE_NOTHROW(path(bytes.data(), bytes.size()));
    ++replayed;
  }
  return replayed;
}

}  // namespace

TEST_CASE("fuzz corpus and regressions: every saved input parses or fails cleanly", "[fuzz]") {
  // A folder without a parse path would never be replayed.
  for (const fs::path& root : {fs::path(MINIMIND_FUZZ_CORPUS_DIR), fs::path(MINIMIND_FUZZ_REGRESSIONS_DIR)}) {
    for (const fs::path& dir : sorted_entries(root)) {
      INFO(dir.string() << " needs its parse path in tests/fuzz/parse_paths.h");
      CHECK(fuzz::parse_paths().count(dir.filename().string()) == 1);
    }
  }
  for (const auto& [target, path] : fuzz::parse_paths()) {
    DYNAMIC_SECTION(target) {
      const size_t corpus = replay(fs::path(MINIMIND_FUZZ_CORPUS_DIR) / target, path);
      const size_t regressions = replay(fs::path(MINIMIND_FUZZ_REGRESSIONS_DIR) / target, path);
      INFO("tests/fuzz/corpus/" << target << ": " << corpus << " inputs; regressions: " << regressions);
      // Every target has run and kept its corpus (scripts/fuzz.sh).
      CHECK(corpus >= 10);
    }
  }
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
