#include "tokenizer/byte_level.h"

#include <array>

#include "tokenizer/unicode_categories.h"

namespace minimind::byte_level {

using unicode::CharClass;

Utf8Char decode_utf8(std::string_view text, size_t pos) {
  const uint8_t b0 = uint8_t(text[pos]);
  if (b0 < 0x80) return {b0, 1, true};
  // Well-formed sequences (Unicode Table 3-7): the second byte's range depends
  // on the lead byte, which rules out overlong forms, surrogates and > U+10FFFF.
  int trail;
  char32_t cp;
  uint8_t lo = 0x80, hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    trail = 1;
    cp = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    trail = 2;
    cp = b0 & 0x0F;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    trail = 3;
    cp = b0 & 0x07;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return {};
  }
  for (int i = 1; i <= trail; ++i) {
    if (pos + i >= text.size()) return {0xFFFD, i, false};
    const uint8_t b = uint8_t(text[pos + i]);
    if (b < lo || b > hi) return {0xFFFD, i, false};
    lo = 0x80;
    hi = 0xBF;
    cp = (cp << 6) | (b & 0x3F);
  }
  return {cp, trail + 1, true};
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}

std::string to_valid_utf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  size_t pos = 0;
  while (pos < bytes.size()) {
    const Utf8Char c = decode_utf8(bytes, pos);
    if (c.valid)
      out.append(bytes.data() + pos, size_t(c.length));
    else
      append_utf8(out, 0xFFFD);
    pos += size_t(c.length);
  }
  return out;
}

namespace {

bool printable(int b) { return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF); }

// bytes_to_unicode() of GPT-2's encoder.py, and its inverse.
struct ByteMap {
  std::array<char32_t, 256> to_char{};
  std::array<int16_t, 256 + 68> to_byte{};  // indexed by character; -1 for none
  ByteMap() {
    to_byte.fill(-1);
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      to_char[b] = printable(b) ? char32_t(b) : next++;
      to_byte[to_char[b]] = int16_t(b);
    }
  }
};

const ByteMap& byte_map() {
  static const ByteMap map;
  return map;
}

}  // namespace

char32_t byte_to_char(uint8_t byte) { return byte_map().to_char[byte]; }

int char_to_byte(char32_t c) { return c < byte_map().to_byte.size() ? byte_map().to_byte[c] : -1; }

std::string bytes_to_piece(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char b : bytes) append_utf8(out, byte_to_char(uint8_t(b)));
  return out;
}

std::string piece_to_bytes(std::string_view piece) {
  std::string out;
  for (size_t pos = 0; pos < piece.size();) {
    const Utf8Char c = decode_utf8(piece, pos);
    const int byte = c.valid ? char_to_byte(c.cp) : -1;
    if (byte < 0) return std::string(piece);  // as the ByteLevel decoder: the piece's own bytes
    out += char(byte);
    pos += size_t(c.length);
  }
  return out;
}

std::vector<std::pair<size_t, size_t>> split_words(std::string_view text) {
  // The text as characters: code point, class and byte offset (offset[n] = size).
  std::vector<char32_t> cp;
  std::vector<CharClass> cls;
  std::vector<size_t> offset;
  for (size_t pos = 0; pos < text.size();) {
    const Utf8Char c = decode_utf8(text, pos);  // valid input: c.valid
    cp.push_back(c.cp);
    cls.push_back(unicode::char_class(c.cp));
    offset.push_back(pos);
    pos += size_t(c.length);
  }
  const size_t n = cp.size();
  offset.push_back(text.size());

  // The end of the match that starts at character i.
  auto match = [&](size_t i) -> size_t {
    // 's|'t|'re|'ve|'m|'ll|'d (case-sensitive, even inside a word)
    if (cp[i] == '\'' && i + 1 < n) {
      const char32_t a = cp[i + 1];
      if (a == 's' || a == 't' || a == 'm' || a == 'd') return i + 2;
      if (i + 2 < n) {
        const char32_t b = cp[i + 2];
        if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return i + 3;
      }
    }
    // ` ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+`: the three classes are disjoint,
    // so these are one rule: an optional U+0020, then a run of one class.
    size_t start = i;
    if (cp[i] == ' ' && i + 1 < n && cls[i + 1] != CharClass::kSpace) start = i + 1;
    if (cls[start] != CharClass::kSpace) {
      size_t j = start + 1;
      while (j < n && cls[j] == cls[start]) ++j;
      return j;
    }
    // `\s+(?!\S)`: a whitespace run, giving back its last character when a
    // non-space follows (that one then leads the next word: " word");
    // otherwise `\s+` takes a lone whitespace character before a non-space.
    size_t j = i + 1;
    while (j < n && cls[j] == CharClass::kSpace) ++j;
    if (j < n && j - 1 > i) return j - 1;
    return j;
  };

  std::vector<std::pair<size_t, size_t>> words;
  for (size_t i = 0; i < n;) {
    const size_t j = match(i);
    words.emplace_back(offset[i], offset[j]);
    i = j;
  }
  return words;
}

}  // namespace minimind::byte_level
