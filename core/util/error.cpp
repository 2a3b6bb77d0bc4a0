#include "util/error.h"

namespace minimind {

Error::Error(std::string kind, ErrorValues values, const std::string& message)
    : std::runtime_error(message), kind_(std::move(kind)), values_(std::move(values)) {}

const ErrorValue* Error::value(const std::string& name) const {
  for (const auto& [key, v] : values_) {
    if (key == name) return &v;
  }
  return nullptr;
}

}  // namespace minimind
