// The lessons' hand-worked attention and lesson 11's lab record.
#pragma once

#include <emscripten/val.h>

#include <string>

namespace minimind::wasm {

// Lesson 2.5's hand-worked attention on typed Q, K (and V) matrices, each
// JSON [[...], ...] (null for a masked score).
emscripten::val lesson_attention_js(const std::string& q, const std::string& k, const std::string& v, bool causal,
                                    bool scale);
emscripten::val lesson_softmax_js(const std::string& scores, bool causal);
std::string lab_record(const std::string& preset, double seed);

}  // namespace minimind::wasm
