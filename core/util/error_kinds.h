// Every kind of error the core raises (util/error.h), in one list: the
// bindings hand it to JS (errorKinds()), where tests/node/error_kinds.test.mjs
// checks it against the kinds named at the throw sites of core/ (no kind
// raised that is not listed, none listed that is not raised) and checks that
// the page words each one in zh-CN and en (web/messages/error_terms.mjs).
// A kind is "family.what"; a bare family ("safetensors", "tokenizer", ...)
// names no kind and is refused by that test.
#pragma once

#include <string>
#include <vector>

namespace minimind {

// The kinds, sorted.
const std::vector<std::string>& error_kinds();

}  // namespace minimind
