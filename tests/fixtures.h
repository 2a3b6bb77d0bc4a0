// Loads a golden case written by tests/make_fixtures.py (format_version 1):
// tests/fixtures/<case>/{config.json, model.safetensors, expected.safetensors}.
#pragma once

#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "checkpoint/model_loader.h"
#include "formats/safetensors.h"
#include "model/model.h"
#include "util/error.h"

namespace minimind::testing {

inline constexpr const char* kFixtureFormatVersion = "1";

inline std::string fixture_path(const std::string& relative) {
  return std::string(MINIMIND_FIXTURES_DIR) + "/" + relative;
}

inline std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline std::string read_text(const std::string& path) {
  const std::vector<uint8_t> bytes = read_bytes(path);
  return {bytes.begin(), bytes.end()};
}

struct GoldenCase {
  std::string name;
  std::unique_ptr<Model> model;
  std::vector<uint8_t> expected_bytes;
  std::unique_ptr<SafetensorsFile> expected;

  std::vector<float> floats(const std::string& tensor) const {
    const SafetensorsEntry* e = expected->find(tensor);
    if (!e) throw std::runtime_error(name + ": expected.safetensors has no " + tensor);
    std::vector<float> out(size_t(shape_numel(e->shape)));
    expected->read_floats(*e, out.data());
    return out;
  }
  Shape shape(const std::string& tensor) const { return expected->find(tensor)->shape; }
  bool has(const std::string& tensor) const { return expected->find(tensor) != nullptr; }
  std::vector<int32_t> ints(const std::string& tensor) const {
    const SafetensorsEntry* e = expected->find(tensor);
    if (!e) throw std::runtime_error(name + ": expected.safetensors has no " + tensor);
    return expected->read_int32(*e);
  }
  // input_ids (or attention_mask) [B, T] as rows.
  std::vector<std::vector<int32_t>> rows(const std::string& tensor) const {
    const std::vector<int32_t> flat = ints(tensor);
    const Shape s = shape(tensor);
    std::vector<std::vector<int32_t>> out;
    for (int64_t b = 0; b < s[0]; ++b) out.emplace_back(flat.begin() + b * s[1], flat.begin() + (b + 1) * s[1]);
    return out;
  }
};

inline GoldenCase load_golden_case(const std::string& name) {
  GoldenCase c;
  c.name = name;
  const ModelConfig config = parse_config_json(read_text(fixture_path(name + "/config.json")));
  const std::vector<uint8_t> weights = read_bytes(fixture_path(name + "/model.safetensors"));
  c.model = std::make_unique<Model>(model_from_safetensors(config, weights.data(), weights.size()));
  c.expected_bytes = read_bytes(fixture_path(name + "/expected.safetensors"));
  c.expected = std::make_unique<SafetensorsFile>(c.expected_bytes.data(), c.expected_bytes.size());
  const auto version = c.expected->metadata().find("format_version");
  if (version == c.expected->metadata().end() || version->second != kFixtureFormatVersion) {
    throw std::runtime_error(name + ": fixture format_version is not " + kFixtureFormatVersion +
                             "; re-run /usr/bin/python3 tests/make_fixtures.py");
  }
  return c;
}

inline const std::vector<std::string>& golden_case_names() {
  static const std::vector<std::string> names = {"gen3_dense", "gen2_dense",      "gen3_moe",
                                                 "gen2_moe",   "untied_theta1e4", "gen3_yarn"};
  return names;
}

// The kind of the minimind::Error that f throws, or "" when it throws none.
inline std::string error_kind(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.kind();
  }
  return "";
}

}  // namespace minimind::testing
