// Conversions between the core's values and JS values, for every binding:
// guarded() turns a C++ exception into a JS Error carrying what() (thrown
// after the catch block has ended, so the C++ side is fully unwound and the
// module stays usable); typed arrays are copied out of Wasm memory.
#pragma once

#include <emscripten/val.h>

#include <functional>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/model.h"
#include "util/tensor.h"

namespace minimind::wasm {

using emscripten::val;

template <typename F>
auto guarded(F&& body) -> decltype(body()) {
  std::string message;
  try {
    return body();
  } catch (const std::bad_alloc&) {
    message = "out of memory: the model or the text is too large for this browser tab";
  } catch (const std::exception& e) {
    message = e.what();
  }
  val::global("Error").new_(val(message)).throw_();
}

template <typename T>
val typed_copy(const T* data, size_t n) {
  return val(emscripten::typed_memory_view(n, data)).call<val>("slice");
}

inline val shape_array(const Shape& shape) {
  val out = val::array();
  for (int64_t d : shape) out.call<void>("push", double(d));
  return out;
}

// Trace tensors as [{layer, stage, shape, data: Float32Array}], layer -1 for
// model-level stages.
inline val trace_entries(const Trace& trace) {
  val out = val::array();
  for (const auto& [key, tensor] : trace.tensors()) {
    val entry = val::object();
    entry.set("layer", double(key.first));
    entry.set("stage", key.second);
    entry.set("shape", shape_array(tensor.shape));
    entry.set("data", typed_copy(tensor.data.data(), tensor.data.size()));
    out.call<void>("push", entry);
  }
  return out;
}

inline std::function<void(double)> reporter(const val& callback) {
  if (callback.typeOf().as<std::string>() != "function") return {};
  return [callback](double fraction) { callback(fraction); };
}

// A [L, H] matrix as rows of numbers.
inline val layer_head_rows(const Matrix& m) {
  val rows = val::array();
  for (int64_t l = 0; l < m.rows(); ++l) {
    val row = val::array();
    for (int64_t h = 0; h < m.cols(); ++h) row.call<void>("push", double(m(l, h)));
    rows.call<void>("push", row);
  }
  return rows;
}

inline std::vector<int32_t> to_ids(const val& typed) {
  return emscripten::convertJSArrayToNumberVector<int32_t>(typed);
}

}  // namespace minimind::wasm
