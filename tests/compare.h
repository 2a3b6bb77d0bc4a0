// Float comparison for tests: |actual - expected| <= atol + rtol * |expected|,
// reporting the first failing index with both values.
#pragma once

#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace minimind::testing {

// Empty when every element is close; otherwise describes the first mismatch.
template <typename A, typename B>
std::string first_mismatch(const A& actual, const B& expected, double atol, double rtol) {
  const size_t n_actual = size_t(actual.size()), n_expected = size_t(expected.size());
  if (n_actual != n_expected) {
    return "sizes differ: " + std::to_string(n_actual) + " vs expected " + std::to_string(n_expected);
  }
  for (size_t i = 0; i < n_actual; ++i) {
    const double a = double(actual[i]), e = double(expected[i]);
    const bool same_inf = std::isinf(a) && std::isinf(e) && (a > 0) == (e > 0);
    if (same_inf) continue;
    if (!(std::fabs(a - e) <= atol + rtol * std::fabs(e))) {
      std::ostringstream out;
      out.precision(9);
      out << "index " << i << ": actual " << a << ", expected " << e << " (|diff| " << std::fabs(a - e) << " > "
          << atol + rtol * std::fabs(e) << ")";
      return out.str();
    }
  }
  return {};
}

template <typename A, typename B>
double max_abs_diff(const A& actual, const B& expected) {
  double m = 0;
  for (size_t i = 0; i < size_t(actual.size()) && i < size_t(expected.size()); ++i) {
    m = std::fmax(m, std::fabs(double(actual[i]) - double(expected[i])));
  }
  return m;
}

// Matches an exception whose what() contains `fragment`:
//   REQUIRE_THROWS_MATCHES(expr, ConfigError, message_contains("hidden_size"))
// checks the type and the message at once, and prints both on failure.
class MessageContains : public Catch::MatcherBase<std::exception> {
 public:
  explicit MessageContains(std::string fragment) : fragment_(std::move(fragment)) {}
  bool match(const std::exception& e) const override {
    return std::string(e.what()).find(fragment_) != std::string::npos;
  }
  std::string describe() const override { return "has a message containing \"" + fragment_ + "\""; }

 private:
  std::string fragment_;
};
inline MessageContains message_contains(std::string fragment) { return MessageContains(std::move(fragment)); }

}  // namespace minimind::testing

#define CHECK_CLOSE(actual, expected, atol, rtol) \
  CHECK(::minimind::testing::first_mismatch((actual), (expected), (atol), (rtol)) == std::string())
#define REQUIRE_CLOSE(actual, expected, atol, rtol) \
  REQUIRE(::minimind::testing::first_mismatch((actual), (expected), (atol), (rtol)) == std::string())
