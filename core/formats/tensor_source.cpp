#include "formats/tensor_source.h"

#include <cstring>
#include <stdexcept>

#include "util/error.h"
#include "util/half.h"

namespace minimind {

namespace {

uint16_t load_u16_le(const uint8_t* p) { return uint16_t(p[0] | (p[1] << 8)); }

}  // namespace

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::F32:
      return "F32";
    case DType::F16:
      return "F16";
    case DType::BF16:
      return "BF16";
    case DType::I32:
      return "I32";
  }
  return "?";
}

size_t dtype_size(DType dtype) { return dtype == DType::F16 || dtype == DType::BF16 ? 2 : 4; }

void widen_to_f32(DType dtype, const uint8_t* bytes, size_t count, float* out) {
  switch (dtype) {
    case DType::F32:
      if (count) std::memcpy(out, bytes, count * 4);  // the targets (x86, Wasm) are little-endian
      return;
    case DType::F16:
      for (size_t i = 0; i < count; ++i) out[i] = f16_to_f32(load_u16_le(bytes + 2 * i));
      return;
    case DType::BF16:
      for (size_t i = 0; i < count; ++i) out[i] = bf16_to_f32(load_u16_le(bytes + 2 * i));
      return;
    case DType::I32:
      break;
  }
  throw Error("tensor.not_float", {}, "widen_to_f32: I32 data is not floating point");
}

}  // namespace minimind
