// Byte-level BPE's handling of text, as GPT-2 defined it and Hugging Face's
// ByteLevel pre-tokenizer and decoder implement it: UTF-8 with U+FFFD for
// invalid bytes, the map of the 256 byte values to printable characters that
// vocab pieces are written in ("Ġ" is the space byte 0x20), and the GPT-2
// split regex.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace minimind::byte_level {

// One UTF-8 character at a byte position. For bytes that do not start a valid
// character, valid is false and length is the maximal ill-formed subpart
// (1..3 bytes) that one U+FFFD replaces.
struct Utf8Char {
  char32_t cp = 0xFFFD;
  int length = 1;
  bool valid = false;
};
Utf8Char decode_utf8(std::string_view text, size_t pos);

void append_utf8(std::string& out, char32_t cp);

// Replaces every ill-formed subsequence by U+FFFD, one per maximal subpart, as
// Rust's String::from_utf8_lossy and the WHATWG TextDecoder do. Valid UTF-8
// comes back unchanged.
std::string to_valid_utf8(std::string_view bytes);

// GPT-2's bytes_to_unicode: printable bytes ('!'..'~', 0xA1..0xAC,
// 0xAE..0xFF) stand for themselves, the other 68 map to U+0100.. in byte order.
char32_t byte_to_char(uint8_t byte);
int char_to_byte(char32_t c);  // the byte, or -1 when c is none of the 256

// A byte string written as a vocab piece: each byte as its character, in UTF-8.
std::string bytes_to_piece(std::string_view bytes);

// The bytes a piece stands for, as the ByteLevel decoder computes them: each
// character's byte, or the piece's own UTF-8 bytes when some character is not
// one of the 256 (an added token such as "<|im start|>" with a real space).
std::string piece_to_bytes(std::string_view piece);

// Splits valid UTF-8 into pre-tokens with GPT-2's pattern
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// as Oniguruma (Hugging Face tokenizers' regex engine) matches it: the first
// alternative that matches wins, and every character belongs to some
// alternative, so the pieces cover the text. Returns [begin, end) byte ranges.
std::vector<std::pair<size_t, size_t>> split_words(std::string_view text);

}  // namespace minimind::byte_level
