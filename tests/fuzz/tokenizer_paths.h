// The tokenizer's two kinds of untrusted input: a tokenizer.json a user
// loads (fuzz_tokenizer_json) and any text typed or pasted into the page,
// encoded with the shipped MiniMind tokenizer (fuzz_tokenizer_text).
#pragma once

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "property.h"
#include "tokenizer/tokenizer.h"

#ifndef MINIMIND_TOKENIZER_JSON
#error "MINIMIND_TOKENIZER_JSON must name models/minimind-tokenizer/tokenizer.json"
#endif

namespace minimind::fuzz {

// tokenizer.json text. What parses encodes a sample made of its own
// vocabulary (every present id's text, the first 4096 ids) after a fixed
// mixed-script line, so that its merges and added tokens are actually used,
// then decodes and displays the ids.
inline void tokenizer_json(const uint8_t* data, size_t size) {
  try {
    const Tokenizer tokenizer = Tokenizer::from_json(std::string(reinterpret_cast<const char*>(data), size));
    std::string sample = "Hello, world! 你好，世界。 <|im_start|>user\n 123 \xF0\x9F\x98\x80";
    const int32_t ids_to_show = int32_t(std::min<int64_t>(tokenizer.vocab_size(), 4096));
    for (int32_t id = 0; id < ids_to_show; ++id) {
      if (!tokenizer.has_id(id)) continue;
      tokenizer.display(id);
      sample += tokenizer.decode({id});
    }
    const std::vector<int32_t> ids = tokenizer.encode(sample);
    for (const int32_t id : ids) expect(tokenizer.has_id(id), "encode returned an id outside the vocabulary");
    tokenizer.decode(ids);
    tokenizer.decode(ids, true);
    tokenizer.display_sequence(ids);
  } catch (const TokenizerError&) {
  }
}

// MiniMind's shipped tokenizer, loaded once.
inline const Tokenizer& shipped_tokenizer() {
  static const Tokenizer tokenizer = [] {
    std::ifstream file(MINIMIND_TOKENIZER_JSON, std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    return Tokenizer::from_json(text.str());
  }();
  return tokenizer;
}

// Any bytes as text (invalid UTF-8, lone surrogates written as UTF-8,
// combining marks, special-token text). encode replaces invalid UTF-8 by
// U+FFFD first, so decode(encode(text)) is that cleaned text, which must
// encode to the same ids; the display's tokens must hold exactly its bytes.
// Refusing text is not allowed: every throw is a finding.
inline void tokenizer_text(const uint8_t* data, size_t size) {
  const Tokenizer& tokenizer = shipped_tokenizer();
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::vector<int32_t> ids = tokenizer.encode(text);
  for (const int32_t id : ids) expect(tokenizer.has_id(id), "encode returned an id outside the vocabulary");
  expect(text.empty() == ids.empty(), "encode returned no ids for text, or ids for no text");
  const std::string decoded = tokenizer.decode(ids);
  expect(tokenizer.encode(decoded) == ids, "encode(decode(ids)) differs from ids");
  tokenizer.decode(ids, true);
  const std::vector<Tokenizer::SequenceToken> shown = tokenizer.display_sequence(ids);
  expect(shown.size() == ids.size(), "display_sequence returned a different number of tokens");
  std::string shown_bytes;
  for (size_t i = 0; i < shown.size(); ++i) {
    const int32_t group = shown[i].group, previous = i ? shown[i - 1].group : -1;
    expect(group == previous + 1 || (i && group == previous), "display groups do not count up from 0 by one");
    shown_bytes.append(shown[i].token.bytes.begin(), shown[i].token.bytes.end());
  }
  expect(shown_bytes == decoded, "the displayed tokens' bytes differ from the decoded text");
}

}  // namespace minimind::fuzz
