// MiniMind's tokenizer as JS sees it (NativeTokenizer).
#pragma once

#include <emscripten/val.h>

#include <string>
#include <vector>

#include "js_values.h"
#include "tokenizer/tokenizer.h"

namespace minimind::wasm {

// A Hugging Face tokenizer.json (byte-level BPE, as MiniMind's).
class WasmTokenizer {
 public:
  explicit WasmTokenizer(Tokenizer tokenizer) : tokenizer_(std::move(tokenizer)) {}

  const Tokenizer& tokenizer() const { return tokenizer_; }

  static WasmTokenizer* from_json(const std::string& text) {
    return guarded([&] { return new WasmTokenizer(Tokenizer::from_json(text)); });
  }
  val encode(const std::string& text) const {
    return guarded([&] {
      const std::vector<int32_t> ids = tokenizer_.encode(text);
      return typed_copy(ids.data(), ids.size());
    });
  }
  std::string decode(const val& ids, bool skip_special_tokens) const {
    return guarded([&] { return tokenizer_.decode(to_ids(ids), skip_special_tokens); });
  }
  // [{text, partial, special, group, groupText}] per token.
  val display_sequence(const val& ids) const {
    return guarded([&] {
      val out = val::array();
      for (const Tokenizer::SequenceToken& t : tokenizer_.display_sequence(to_ids(ids))) {
        val entry = val::object();
        entry.set("text", t.token.text);
        entry.set("partial", t.token.partial_utf8);
        entry.set("special", t.token.special);
        entry.set("group", t.group);
        entry.set("groupText", t.group_text);
        out.call<void>("push", entry);
      }
      return out;
    });
  }
  double vocab_size() const { return double(tokenizer_.vocab_size()); }
  int token_to_id(const std::string& token) const { return tokenizer_.token_to_id(token); }

 private:
  Tokenizer tokenizer_;
};

}  // namespace minimind::wasm
