// A broken promise about what a parse path accepted (a round trip that does
// not return, a softmax row that does not sum to 1). Thrown as its own type,
// which no parse path swallows: libFuzzer reports it as a crash and the
// Catch2 replay (tests/test_fuzz_regressions.cpp) prints its message.
#pragma once

#include <stdexcept>
#include <string>

namespace minimind::fuzz {

class PropertyViolation : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

inline void expect(bool holds, const std::string& promise) {
  if (!holds) throw PropertyViolation(promise);
}

}  // namespace minimind::fuzz
