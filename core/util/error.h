// The core's one error type: a kind (a stable name such as
// "safetensors.header_too_long"), its named values (value, limit), and the
// English message what() has always carried. The bindings hand kind and
// values to JS, where the page words the error in the reader's language; the
// message stays the raw detail. Each loader's error class derives from it and
// every throw names a kind of its format's family ("safetensors.overlap",
// "tokenizer.bad_merge", ...).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace minimind {

// A named value: an integer (a byte count, an id), a number or a text.
using ErrorValue = std::variant<int64_t, double, std::string>;
using ErrorValues = std::vector<std::pair<std::string, ErrorValue>>;

class Error : public std::runtime_error {
 public:
  Error(std::string kind, ErrorValues values, const std::string& message);
  const std::string& kind() const { return kind_; }
  const ErrorValues& values() const { return values_; }
  // The value named `name`, or nullptr.
  const ErrorValue* value(const std::string& name) const;

 private:
  std::string kind_;
  ErrorValues values_;
};

// One problem among several (a config's): the same three parts as Error.
struct Problem {
  std::string kind;  // empty: not kinded, only the message
  ErrorValues values;
  std::string message;
};

}  // namespace minimind
