// Conversions between the core's values and JS values, for every binding:
// guarded() turns a C++ exception into a JS error carrying what() as its
// message and a core error's kind and values (handed to JS after the catch
// block has ended and thrown there once the call has returned, so the C++ side
// is fully unwound, nothing leaks and the module stays usable);
// typed arrays are copied out of Wasm memory.
#pragma once

#include <emscripten/val.h>
#include <malloc.h>

#include <functional>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "model/model.h"
#include "tensors/model_config.h"
#include "util/error.h"
#include "util/tensor.h"

namespace minimind::wasm {

using emscripten::val;

inline val error_value(const ErrorValue& value) {
  if (const auto* i = std::get_if<int64_t>(&value)) {
    // Past 2^53 a double would not say the same number the message does.
    const bool exact = *i >= -(int64_t{1} << 53) && *i <= (int64_t{1} << 53);
    return exact ? val(double(*i)) : val(std::to_string(*i));
  }
  if (const auto* d = std::get_if<double>(&value)) return val(*d);
  return val(std::get<std::string>(value));
}

inline val error_values(const ErrorValues& values) {
  val out = val::object();
  for (const auto& [name, value] : values) out.set(name, error_value(value));
  return out;
}

// The JS error for a core error: the module's MiniMindError (set on the
// module by js/minimind.mjs) with kind, values and, for a config, each
// problem as {kind, values, message}; a plain Error when it is not set.
inline val js_error(const std::string& message, const std::string& kind, const val& values, const val& problems) {
  val options = val::object();
  options.set("kind", kind);
  options.set("values", values);
  if (!problems.isUndefined()) options.set("problems", problems);
  val type = val::module_property("MiniMindError");
  if (type.isUndefined()) {
    val error = val::global("Error").new_(val(message));
    error.set("kind", kind);
    error.set("values", values);
    if (!problems.isUndefined()) error.set("problems", problems);
    return error;
  }
  return type.new_(val(message), options);
}

inline val config_problem_list(const ConfigError& e) {
  val out = val::array();
  for (const Problem& p : e.kinded_problems()) {
    val problem = val::object();
    problem.set("kind", p.kind);
    problem.set("values", error_values(p.values));
    problem.set("message", p.message);
    out.call<void>("push", problem);
  }
  return out;
}

// What a failed call returns: JS throws the pending error instead.
template <typename R>
R failed_result() {
  if constexpr (std::is_void_v<R>) {
    return;
  } else if constexpr (std::is_same_v<R, val>) {
    return val::undefined();
  } else {
    return R{};
  }
}

// A JS exception thrown from Wasm unwinds none of the frames between here and
// JS in the threads build (JS-based exceptions): embind's argument copies
// (std::string wire buffers) and the invoker's temporaries were never freed,
// and in every build embind's JS side skipped freeing its string buffers. So
// the error is left in the module's pendingError slot (set by
// js/native_errors.mjs) and the call returns normally; the JS wrapper throws
// it once embind has cleaned up. Without the slot it is thrown from here.
inline void hand_over(const val& error) {
  val slot = val::module_property("pendingError");
  if (slot.isUndefined()) error.throw_();
  slot.set("error", error);
}

template <typename F>
auto guarded(F&& body) -> decltype(body()) {
  val error = val::undefined();
  try {
    return body();
  } catch (const std::bad_alloc&) {
    error = js_error("out of memory: the model or the text is too large for this browser tab", "out_of_memory",
                     val::object(), val::undefined());
  } catch (const ConfigError& e) {
    error = js_error(e.what(), e.kind(), error_values(e.values()), config_problem_list(e));
  } catch (const Error& e) {
    error = js_error(e.what(), e.kind(), error_values(e.values()), val::undefined());
  } catch (const std::exception& e) {
    error = js_error(e.what(), "", val::object(), val::undefined());
  }
  // Handed over once the catch block has ended: the C++ side is fully unwound.
  hand_over(error);
  return failed_result<decltype(body())>();
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

// A binding slices its arguments by sizes it computes; a caller that skips
// the JS API (or a JS API bug) must get the module's error, never a read
// past the end.
inline void check_size(const std::string& argument, size_t expected, size_t got) {
  if (expected == got) return;
  throw Error("binding.size_mismatch", {{"argument", argument}, {"expected", int64_t(expected)}, {"got", int64_t(got)}},
              argument + " has " + std::to_string(got) + " entries, expected " + std::to_string(expected));
}

// Bytes the allocator hands out now (for the tests that check error paths
// free what they allocate; Wasm memory itself never shrinks).
inline double heap_bytes_in_use() { return double(mallinfo().uordblks); }

}  // namespace minimind::wasm
