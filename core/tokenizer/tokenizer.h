// Tokenizer: a Hugging Face tokenizer.json with a byte-level BPE model, such as
// MiniMind's (vocab 6400, 6108 merges, 36 added tokens: <|endoftext|> = 0,
// <|im_start|> = 1, <|im_end|> = 2, ...). Encodes and decodes exactly as
// Hugging Face tokenizers (the Rust library behind transformers' fast
// tokenizers, which MiniMind loads) does for such a file:
//
//   encode: added tokens are found first (leftmost, then longest); every other
//     stretch of text is split by the GPT-2 regex (byte_level.h), each piece's
//     UTF-8 bytes are written as byte characters and merged by BPE, lowest merge
//     rank first. Nothing is added around the ids (MiniMind's file has no
//     post_processor: no BOS or EOS).
//   decode: every token back to its bytes (added tokens too, as the ByteLevel
//     decoder does: MiniMind's special tokens are ASCII and come back as
//     their text); bytes that are not valid UTF-8 become U+FFFD.
//
// Input that is not valid UTF-8 cannot reach Hugging Face (it takes a Rust
// String). encode() replaces each invalid sequence by U+FFFD first (one per
// maximal ill-formed subpart, as TextDecoder, from_utf8_lossy and Python's
// errors="replace" do when reading the bytes), then tokenizes that.
//
// Supported: what byte-level BPE files like MiniMind's use (model BPE, no
// normalizer, pre_tokenizer ByteLevel with the regex and without a prefix
// space, decoder ByteLevel, no post_processor or a ByteLevel one). Anything
// else is refused with a TokenizerError naming the field, rather than
// tokenized differently from Hugging Face.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "util/error.h"

namespace minimind {

// Every throw names its own kind ("tokenizer.<what>") and the values its message is
// made of (util/error.h), so the page can word it in the reader's language.
class TokenizerError : public Error {
 public:
  TokenizerError(std::string kind, ErrorValues values, const std::string& message)
      : Error(std::move(kind), std::move(values), message) {}
};

class Tokenizer {
 public:
  // Limits on tokenizer.json, checked before the work they would cost.
  static constexpr size_t kMaxJsonBytes = size_t{64} << 20;  // the whole file text
  static constexpr int64_t kMaxVocab = int64_t{1} << 20;     // entries, and ids < this
  static constexpr size_t kMaxPieceBytes = size_t{1} << 20;  // one vocab or added token

  // Parses tokenizer.json text. Throws TokenizerError naming the bad field.
  static Tokenizer from_json(const std::string& tokenizer_json);

  std::vector<int32_t> encode(const std::string& utf8_text) const;

  // Throws TokenizerError for an id outside the vocabulary (Hugging Face
  // silently drops such ids).
  std::string decode(const std::vector<int32_t>& ids, bool skip_special_tokens = false) const;

  // One more than the largest id, added tokens included: the rows an
  // embedding table needs (6400 for MiniMind).
  int64_t vocab_size() const { return int64_t(pieces_.size()); }

  bool has_id(int32_t id) const { return id >= 0 && id < int32_t(pieces_.size()) && pieces_[size_t(id)].present; }

  // The raw vocab string, e.g. "Ġthe" (Ġ is the byte 0x20), or an added
  // token's text. Throws TokenizerError for an id outside the vocabulary.
  std::string id_to_token(int32_t id) const;

  // The id of a raw vocab string or added token's text, or -1.
  int32_t token_to_id(const std::string& token) const;

  // One token as a learner should see it.
  struct TokenDisplay {
    std::string text;            // readable UTF-8: " the", "你好"; incomplete characters as "<0xE4><0xBD>"
    bool partial_utf8 = false;   // the bytes are not complete UTF-8 characters on their own
    std::vector<uint8_t> bytes;  // what the token stands for in the text's UTF-8
    bool special = false;        // an added token marked special, shown as its text ("<|im_end|>")
  };
  TokenDisplay display(int32_t id) const;

  // A sequence of tokens where characters may be split across tokens (a CJK
  // character is 3 bytes, and BPE may cut between them). Tokens that share a
  // character form one group; group_text is the group's text, decoded
  // together, so "<0xE4><0xBD>" + "<0xA0>" is recognisable as "你".
  struct SequenceToken {
    TokenDisplay token;      // the token on its own, as display() shows it
    int32_t group = 0;       // tokens with the same group share characters; groups count from 0
    std::string group_text;  // the group's text (bytes of no complete character still as <0x..>)
  };
  std::vector<SequenceToken> display_sequence(const std::vector<int32_t>& ids) const;

 private:
  struct Piece {
    std::string token;  // the raw vocab string
    std::string bytes;  // what it decodes to
    bool present = false;
    bool added = false;
    bool special = false;
  };
  struct Merge {
    int32_t rank;
    int32_t id;  // the merged piece
  };

  static uint64_t pair_key(int32_t left, int32_t right) { return (uint64_t(uint32_t(left)) << 32) | uint32_t(right); }
  void check_id(int32_t id, const char* where) const;
  int32_t added_token_at(std::string_view text, size_t pos) const;  // its id, or -1
  void encode_words(std::string_view text, std::vector<int32_t>& out,
                    std::unordered_map<std::string_view, std::vector<int32_t>>& cache) const;
  void bpe(std::string_view word, std::vector<int32_t>& out) const;

  std::vector<Piece> pieces_;                                  // by id; [vocab_size()]
  std::unordered_map<std::string, int32_t> vocab_;             // raw vocab string -> id (added tokens included)
  std::unordered_map<uint64_t, Merge> merges_;                 // (left id, right id) -> rank and merged id
  std::array<int32_t, 256> byte_ids_{};                        // id of each byte's one-character piece, or -1
  std::array<std::vector<int32_t>, 256> added_by_first_byte_;  // added token ids, longest first
  int32_t unk_id_ = -1;
  bool fuse_unk_ = false;
  bool ignore_merges_ = false;
};

}  // namespace minimind
