// The tokenizer against Hugging Face: every case of
// tests/fixtures/tokenizer_corpus.json (written by
// tests/make_tokenizer_fixtures.mjs with @huggingface/tokenizers) must encode to
// exactly the oracle's ids with MiniMind's real tokenizer.json, and decode to
// the oracle's text. Then the pieces on their own (Unicode classes, the byte
// map, the split regex), display of partial characters, malformed files (each
// its own TokenizerError) and hostile input (random bytes never crash).
//
// MiniMind's tokenizer.json is read from MINIMIND_TOKENIZER_JSON (environment
// variable, else the path CMake compiled in: the copy the project ships in
// models/minimind-tokenizer/). Without it these tests fail, saying where they
// looked.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compare.h"
#include "fixtures.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/unicode_categories.h"
#include "util/random.h"

using namespace minimind;
using minimind::testing::message_contains;
using nlohmann::json;

namespace {

std::string tokenizer_json_path() {
  const char* env = std::getenv("MINIMIND_TOKENIZER_JSON");
  return env && *env ? env : MINIMIND_TOKENIZER_JSON;
}

const std::string& minimind_tokenizer_json() {
  static const std::string text = [] {
    const std::string path = tokenizer_json_path();
    try {
      return testing::read_text(path);
    } catch (const std::exception&) {
      FAIL("MiniMind's tokenizer.json not found at " << path
                                                     << " (expected models/minimind-tokenizer/tokenizer.json in the "
                                                        "repository; set MINIMIND_TOKENIZER_JSON to its path)");
      return std::string();
    }
  }();
  return text;
}

const Tokenizer& minimind_tokenizer() {
  static const Tokenizer tokenizer = Tokenizer::from_json(minimind_tokenizer_json());
  return tokenizer;
}

std::string unhex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out += char(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

std::string join_ids(const std::vector<int32_t>& ids) {
  std::string s;
  for (size_t i = 0; i < ids.size(); ++i) s += (i ? "," : "") + std::to_string(ids[i]);
  return "[" + s + "]";
}

// A small tokenizer.json shaped like MiniMind's: added tokens 0-2, the 256
// byte pieces (ids 3-258), and merges that make "Ġthe" (261). The malformed
// cases edit this one: parsing the real 450 KB file forty times is slow in
// the sanitizer build.
json small_tokenizer() {
  const std::vector<std::string> specials = {"<|endoftext|>", "<|im_start|>", "<|im_end|>"};
  json vocab = json::object();
  json added = json::array();
  for (int id = 0; id < 3; ++id) {
    vocab[specials[size_t(id)]] = id;
    added.push_back({{"id", id},
                     {"content", specials[size_t(id)]},
                     {"single_word", false},
                     {"lstrip", false},
                     {"rstrip", false},
                     {"normalized", false},
                     {"special", true}});
  }
  for (int b = 0; b < 256; ++b) vocab[byte_level::bytes_to_piece(std::string(1, char(b)))] = 3 + b;
  vocab["Ġt"] = 259;
  vocab["Ġth"] = 260;
  vocab["Ġthe"] = 261;
  json merges = json::array({json::array({"Ġ", "t"}), json::array({"Ġt", "h"}), json::array({"Ġth", "e"})});
  return {{"version", "1.0"},
          {"added_tokens", added},
          {"normalizer", nullptr},
          {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}},
          {"post_processor", nullptr},
          {"decoder", {{"type", "ByteLevel"}}},
          {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", merges}}}};
}

// The small tokenizer.json with one change made by `edit`.
std::string edited(const std::function<void(json&)>& edit) {
  json j = small_tokenizer();
  edit(j);
  return j.dump();
}

// A minimal tokenizer.json text around the entries of model.vocab, written as
// text: building a 10 MB or million-entry JSON value first is slow under ASan.
std::string with_vocab(const std::string& entries) {
  return "{\"model\": {\"vocab\": {" + entries +
         "}, \"merges\": []}, \"pre_tokenizer\": {\"type\": \"ByteLevel\", \"add_prefix_space\": false}, "
         "\"decoder\": {\"type\": \"ByteLevel\"}}";
}

}  // namespace

TEST_CASE("tokenizer: MiniMind's tokenizer.json loads with its vocab and special tokens", "[tokenizer]") {
  const Tokenizer& t = minimind_tokenizer();
  CHECK(t.vocab_size() == 6400);
  CHECK(t.id_to_token(0) == "<|endoftext|>");
  CHECK(t.id_to_token(1) == "<|im_start|>");
  CHECK(t.id_to_token(2) == "<|im_end|>");
  CHECK(t.token_to_id("<|im_end|>") == 2);
  CHECK(t.token_to_id("Ġ") == 256);  // the space byte's piece
  CHECK(t.token_to_id("no such piece") == -1);
  CHECK(t.encode("<|im_start|>") == std::vector<int32_t>{1});
}

TEST_CASE("tokenizer: every corpus case encodes and decodes exactly as Hugging Face", "[tokenizer]") {
  const json fixture = json::parse(testing::read_text(testing::fixture_path("tokenizer_corpus.json")));
  REQUIRE(fixture.at("format_version") == 1);  // else re-run: node tests/make_tokenizer_fixtures.mjs
  const json& cases = fixture.at("cases");
  REQUIRE(cases.size() >= 60);
  const Tokenizer& t = minimind_tokenizer();
  size_t exact = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const json& c = cases[i];
    const std::string text = c.at("text").get<std::string>();
    const std::string input = c.contains("input_hex") ? unhex(c.at("input_hex").get<std::string>()) : text;
    const std::vector<int32_t> expected = c.at("ids").get<std::vector<int32_t>>();
    INFO("case " << i << ": " << json(text).dump());
    const std::vector<int32_t> ids = t.encode(input);
    CHECK(join_ids(ids) == join_ids(expected));
    CHECK(t.decode(expected) == c.at("decoded").get<std::string>());
    CHECK(t.decode(expected, true) == c.at("decoded_skip_special").get<std::string>());
    if (!c.contains("input_hex") && c.at("decoded") == text) CHECK(t.decode(ids) == text);
    exact += ids == expected;
  }
  CHECK(exact == cases.size());
}

TEST_CASE("tokenizer: where the JS oracle differs from Hugging Face's Rust library, Rust is followed", "[tokenizer]") {
  // JS's \s has U+FEFF and lacks U+0085; Oniguruma's \s (in Rust) is White_Space.
  // Expected ids from Hugging Face tokenizers 0.23.2 (Rust, via its Node binding).
  const Tokenizer& t = minimind_tokenizer();
  CHECK(join_ids(t.encode("a  \u0085b")) == "[100,332,162,263,101]");  // "a" "  " "\u0085" "b"
  CHECK(join_ids(t.encode("a  \xEF\xBB\xBF"
                          "b")) == "[100,256,256,207,155,159,101]");  // "a" " " " \uFEFF" "b"
}

TEST_CASE("tokenizer: Unicode classes of the split regex", "[tokenizer]") {
  using unicode::char_class;
  using unicode::CharClass;
  CHECK(std::string(unicode::kUnicodeVersion) == "14.0.0");  // re-run tests/make_unicode_tables.py to change
  CHECK(char_class('a') == CharClass::kLetter);
  CHECK(char_class(U'中') == CharClass::kLetter);
  CHECK(char_class(U'ー') == CharClass::kLetter);  // Lm
  CHECK(char_class('7') == CharClass::kNumber);
  CHECK(char_class(U'５') == CharClass::kNumber);  // fullwidth Nd
  CHECK(char_class(U'Ⅻ') == CharClass::kNumber);   // Nl
  CHECK(char_class(U'½') == CharClass::kNumber);   // No
  CHECK(char_class(' ') == CharClass::kSpace);
  CHECK(char_class(0x85) == CharClass::kSpace);
  CHECK(char_class(0x3000) == CharClass::kSpace);
  CHECK(char_class(0x1C) == CharClass::kOther);  // isspace() in Python, not White_Space
  CHECK(char_class(0xFEFF) == CharClass::kOther);
  CHECK(char_class(0x200B) == CharClass::kOther);
  CHECK(char_class(0x0301) == CharClass::kOther);  // a combining mark
  CHECK(char_class(U'，') == CharClass::kOther);
  CHECK(char_class(0x1F600) == CharClass::kOther);
  CHECK(char_class(0x2A6D6) == CharClass::kLetter);  // CJK extension B
  CHECK(char_class(0x10FFFF) == CharClass::kOther);
  CHECK(char_class(0x110000) == CharClass::kOther);
  CHECK(char_class(0xFFFFFFFF) == CharClass::kOther);
}

TEST_CASE("tokenizer: GPT-2 byte map and UTF-8 repair", "[tokenizer]") {
  std::vector<bool> seen(1000, false);
  for (int b = 0; b < 256; ++b) {
    const char32_t c = byte_level::byte_to_char(uint8_t(b));
    REQUIRE(c < seen.size());
    CHECK(!seen[c]);
    seen[c] = true;
    CHECK(byte_level::char_to_byte(c) == b);
  }
  CHECK(byte_level::byte_to_char(' ') == U'Ġ');
  CHECK(byte_level::byte_to_char('\n') == U'Ċ');
  CHECK(byte_level::byte_to_char('A') == U'A');
  CHECK(byte_level::char_to_byte(U'中') == -1);
  CHECK(byte_level::bytes_to_piece(" the") == "Ġthe");
  CHECK(byte_level::piece_to_bytes("Ġthe") == " the");
  CHECK(byte_level::piece_to_bytes("<|a b|>") == "<|a b|>");  // a real space: the piece's own bytes

  // One U+FFFD per maximal ill-formed subpart, as TextDecoder and from_utf8_lossy.
  const std::string r = "\xEF\xBF\xBD";
  CHECK(byte_level::to_valid_utf8("ok 你好") == "ok 你好");
  CHECK(byte_level::to_valid_utf8("\xE4\xBD") == r);  // truncated 3-byte character
  CHECK(byte_level::to_valid_utf8("\xE4\xBD"
                                  "a") == r + "a");
  CHECK(byte_level::to_valid_utf8("\xED\xA0\x80") == r + r + r);          // a surrogate
  CHECK(byte_level::to_valid_utf8("\xC0\xAF") == r + r);                  // overlong
  CHECK(byte_level::to_valid_utf8("\xF4\x90\x80\x80") == r + r + r + r);  // above U+10FFFF
  CHECK(byte_level::to_valid_utf8("\xF0\x9F\x98") == r);                  // truncated emoji
  CHECK(byte_level::to_valid_utf8(std::string("a\0b", 3)) == std::string("a\0b", 3));
}

TEST_CASE("tokenizer: the GPT-2 split regex", "[tokenizer]") {
  auto split = [](const std::string& text) {
    std::vector<std::string> words;
    for (const auto& [b, e] : byte_level::split_words(text)) words.push_back(text.substr(b, e - b));
    return words;
  };
  using W = std::vector<std::string>;
  CHECK(split("") == W{});
  CHECK(split("Hello world") == W{"Hello", " world"});
  CHECK(split("a  b") == W{"a", " ", " b"});  // \s+(?!\S) leaves the last space to the word
  CHECK(split("a\n\n  b") == W{"a", "\n\n ", " b"});
  CHECK(split("a\nb") == W{"a", "\n", "b"});
  CHECK(split("end  ") == W{"end", "  "});
  CHECK(split("I'll don't") == W{"I", "'ll", " don", "'t"});
  CHECK(split("DON'T") == W{"DON", "'", "T"});  // contractions are lower case only
  CHECK(split("'sa") == W{"'s", "a"});
  CHECK(split("2024年") == W{"2024", "年"});
  CHECK(split("3.14") == W{"3", ".", "14"});
  CHECK(split("你好，世界！") == W{"你好", "，", "世界", "！"});
  CHECK(split(" !!! x") == W{" !!!", " x"});
  CHECK(split("e\xCC\x81") == W{"e", "\xCC\x81"});  // a combining mark is neither L nor N
}

TEST_CASE("tokenizer: display shows partial characters as bytes, never mojibake", "[tokenizer]") {
  const Tokenizer& t = minimind_tokenizer();
  int partial = 0;
  for (int32_t id = 0; id < int32_t(t.vocab_size()); ++id) {
    const Tokenizer::TokenDisplay d = t.display(id);
    INFO("id " << id << " " << t.id_to_token(id));
    CHECK(byte_level::to_valid_utf8(d.text) == d.text);
    CHECK(d.text.find("\xEF\xBF\xBD") == std::string::npos);
    if (d.partial_utf8) {
      ++partial;
      CHECK(d.text.find("<0x") != std::string::npos);
    } else {
      CHECK(d.text == std::string(d.bytes.begin(), d.bytes.end()));
    }
  }
  CHECK(partial > 0);

  // 𪚥 (4 bytes) is not one token: its pieces show hex bytes on their own,
  // and one group with the whole character in a sequence.
  const std::vector<int32_t> ids = t.encode("𪚥好");
  REQUIRE(ids.size() >= 3);
  const Tokenizer::TokenDisplay first = t.display(ids[0]);
  CHECK(first.partial_utf8);
  CHECK(first.text.rfind("<0xF0>", 0) == 0);
  CHECK(!first.special);
  const std::vector<Tokenizer::SequenceToken> seq = t.display_sequence(ids);
  REQUIRE(seq.size() == ids.size());
  for (size_t i = 0; i + 1 < seq.size(); ++i) {
    CHECK(seq[i].group == 0);
    CHECK(seq[i].group_text == "𪚥");
  }
  CHECK(seq.back().group == 1);
  CHECK(seq.back().group_text == "好");
  CHECK(seq.back().token.text == "好");
  CHECK(!seq.back().token.partial_utf8);

  // The Ġ piece is a space.
  const Tokenizer::TokenDisplay space = t.display(t.token_to_id("Ġ"));
  CHECK(space.text == " ");
  CHECK(space.bytes == std::vector<uint8_t>{0x20});

  // 鼹鼠: BPE cuts both characters after two bytes (E9 BC | B9, E9 BC | A0).
  const std::vector<int32_t> mole = t.encode("鼹鼠");
  REQUIRE(mole.size() == 4);
  const std::vector<std::string> shown = {t.display(mole[0]).text, t.display(mole[1]).text, t.display(mole[2]).text,
                                          t.display(mole[3]).text};
  CHECK(shown == std::vector<std::string>{"<0xE9><0xBC>", "<0xB9>", "<0xE9><0xBC>", "<0xA0>"});
  const std::vector<Tokenizer::SequenceToken> pair = t.display_sequence(mole);
  CHECK(pair[0].group == 0);
  CHECK(pair[1].group == 0);
  CHECK(pair[2].group == 1);
  CHECK(pair[3].group == 1);
  CHECK(pair[1].group_text == "鼹");
  CHECK(pair[2].group_text == "鼠");
  CHECK(t.decode(mole) == "鼹鼠");
}

TEST_CASE("tokenizer: special tokens display and decode as themselves", "[tokenizer]") {
  const Tokenizer& t = minimind_tokenizer();
  const Tokenizer::TokenDisplay start = t.display(1);
  CHECK(start.text == "<|im_start|>");
  CHECK(start.special);
  CHECK(!start.partial_utf8);
  const Tokenizer::TokenDisplay tool = t.display(21);  // added, but special: false in the file
  CHECK(tool.text == "<tool_call>");
  CHECK(!tool.special);

  const std::vector<int32_t> ids = t.encode("<|im_start|>user\n你好<|im_end|><tool_call>");
  CHECK(ids.front() == 1);
  CHECK(t.decode(ids) == "<|im_start|>user\n你好<|im_end|><tool_call>");
  CHECK(t.decode(ids, true) == "user\n你好<tool_call>");
  const std::vector<Tokenizer::SequenceToken> seq = t.display_sequence(ids);
  CHECK(seq.front().group_text == "<|im_start|>");
  CHECK(seq.front().group != seq[1].group);
}

TEST_CASE("tokenizer: added tokens are matched first and decoded as byte-level pieces", "[tokenizer]") {
  // MiniMind's file plus an added token that is a piece of the vocab ("ä½" is
  // the bytes E4 BD) and one beyond it. Expected values from Hugging Face
  // tokenizers 0.23.2 (Rust) on the same file: the ByteLevel decoder turns
  // every token into bytes, added ones included, unless a character of it is
  // not a byte character (the space in "<new token>").
  json j = json::parse(minimind_tokenizer_json());
  j["added_tokens"].push_back({{"id", 307}, {"content", "ä½"}, {"special", false}});
  j["added_tokens"].push_back({{"id", 6400}, {"content", "<new token>"}, {"special", true}});
  const Tokenizer t = Tokenizer::from_json(j.dump());
  using Ids = std::vector<int32_t>;
  CHECK(t.vocab_size() == 6401);
  CHECK(t.encode("xä½y") == Ids{123, 307, 124});
  CHECK(t.encode("a<new token>b") == Ids{100, 6400, 101});
  CHECK(t.decode({307, 290}) == "你");
  CHECK(t.decode({307}) == "\xEF\xBF\xBD");
  CHECK(t.decode({1, 6400, 2}) == "<|im_start|><new token><|im_end|>");
  CHECK(t.decode({1, 6400, 307, 290, 2}, true) == "你");
  CHECK(t.display(6400).text == "<new token>");
  CHECK(t.display_sequence({307, 290})[0].group_text == "你");
}

TEST_CASE("tokenizer: out-of-range ids are refused clearly", "[tokenizer]") {
  const Tokenizer& t = minimind_tokenizer();
  CHECK(t.decode({}).empty());
  CHECK(t.encode("").empty());
  REQUIRE_THROWS_MATCHES(t.decode({100, 6400}), TokenizerError,
                         message_contains("decode: id 6400 is not in the vocabulary (ids 0..6399)"));
  REQUIRE_THROWS_MATCHES(t.decode({-1}), TokenizerError, message_contains("id -1 is not in the vocabulary"));
  REQUIRE_THROWS_MATCHES(t.id_to_token(1 << 30), TokenizerError, message_contains("id_to_token: id 1073741824"));
  REQUIRE_THROWS_MATCHES(t.display(-7), TokenizerError, message_contains("display: id -7"));
  REQUIRE_THROWS_AS(t.display_sequence({1, 6400}), TokenizerError);
}

TEST_CASE("tokenizer: random bytes never crash and decode back to their repaired text", "[tokenizer]") {
  const Tokenizer& t = minimind_tokenizer();
  // Byte-level BPE loses nothing: decode(encode(x)) is x with invalid UTF-8
  // replaced. Inputs: random bytes, and random mixes of characters, special
  // token texts and fragments of them.
  const std::vector<std::string> parts = {"<|im_start|>", "<|im_end|>", "<|im_",    "|>", "<think>", " ",  "  ", "\n",
                                          "你",           "好",         "a",        "'s", "1",       "，", "😀",  "\xE4",
                                          "\xBD\xA0",     "\xFF",       "e\xCC\x81"};
  SplitMix64 rng(12345);
  for (int round = 0; round < 300; ++round) {
    std::string input;
    const int n = int(rng.next() % 200);
    for (int i = 0; i < n; ++i) {
      if (round % 2)
        input += char(rng.next() & 0xFF);
      else
        input += parts[size_t(rng.next() % parts.size())];
    }
    INFO("round " << round);
    std::vector<int32_t> ids;
    REQUIRE_NOTHROW(ids = t.encode(input));
    for (int32_t id : ids) REQUIRE(t.has_id(id));
    CHECK(t.decode(ids) == byte_level::to_valid_utf8(input));
    REQUIRE_NOTHROW(t.display_sequence(ids));
  }
}

// The fastest of five runs of f, in seconds: a run slowed down by other
// work on a shared machine does not decide a ratio.
template <typename F>
double fastest_seconds(F&& f) {
  double best = 1e300;
  for (int run = 0; run < 5; ++run) {
    const auto start = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

// The sanitized build runs the sizes below 4 times smaller: it is there to
// check memory, which smaller inputs exercise the same way, and at full size
// these two cases took 45 s of its run. The native and Wasm builds, where the
// growth ratios are the point, keep the full sizes.
#if defined(__SANITIZE_ADDRESS__)
constexpr int kSanitizedDivisor = 4;
#else
constexpr int kSanitizedDivisor = 1;
#endif

TEST_CASE("tokenizer: encoding grows linearly and handles long words", "[tokenizer]") {
  // Time bounds as ratios of two sizes in one run, so the machine's speed and
  // the build (ASan, Wasm) do not decide the result: eight times the input
  // takes about 8 times the time when linear (9 at n log n) and 64 times when
  // quadratic; the bound, 22, is their geometric mean, so noise (a loaded
  // machine stretching the longer runs) has a factor of 2.5 before a linear
  // encoder fails, and a quadratic one still fails by as much. Four times
  // the input with a bound of 8 left a factor of 2, and failed under load.
  const Tokenizer& t = minimind_tokenizer();
  const json fixture = json::parse(testing::read_text(testing::fixture_path("tokenizer_corpus.json")));
  std::string text;
  while (text.size() < 250000 / kSanitizedDivisor) {  // natively about 15 ms to encode
    for (const json& c : fixture.at("cases")) text += c.at("text").get<std::string>();
  }
  std::string eightfold;
  for (int i = 0; i < 8; ++i) eightfold += text;
  std::vector<int32_t> ids;
  const double once = fastest_seconds([&] { ids = t.encode(text); });
  const double eight_times = fastest_seconds([&] { ids = t.encode(eightfold); });
  INFO(text.size() << " bytes in " << once << " s, eight times as many in " << eight_times << " s");
  CHECK(eight_times < 22 * once);
  CHECK(t.decode(ids) == eightfold);

  // One long word: the merge queue, not a quadratic rescan.
  const auto repeat = [](const std::string& unit, int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += unit;
    return s;
  };
  // Sizes that take about 10 ms natively for the shorter word.
  for (const auto& [unit, n] :
       {std::pair<std::string, int>{"a", 250000 / kSanitizedDivisor}, {"天气", 10000 / kSanitizedDivisor}}) {
    const std::string word = repeat(unit, n), longer = repeat(unit, 8 * n);
    std::string decoded;
    const double short_seconds = fastest_seconds([&] { decoded = t.decode(t.encode(word)); });
    CHECK(decoded == word);
    const double long_seconds = fastest_seconds([&] { decoded = t.decode(t.encode(longer)); });
    CHECK(decoded == longer);
    INFO(unit << " x " << n << " in " << short_seconds << " s, eight times as many in " << long_seconds << " s");
    CHECK(long_seconds < 22 * short_seconds);
  }
}

TEST_CASE("tokenizer: merges in the older \"left right\" form give the same tokenizer", "[tokenizer]") {
  json j = json::parse(minimind_tokenizer_json());
  for (json& m : j["model"]["merges"]) m = m[0].get<std::string>() + " " + m[1].get<std::string>();
  const Tokenizer strings = Tokenizer::from_json(j.dump());
  const std::string text = "小明 把 苹果 给了 小红 ， 她 很 开心 — The quick brown fox, 2024年!";
  CHECK(strings.encode(text) == minimind_tokenizer().encode(text));
}

TEST_CASE("tokenizer: unk_token, fuse_unk and ignore_merges as Hugging Face", "[tokenizer]") {
  // A tiny vocab without most bytes; expected ids from Hugging Face tokenizers
  // 0.23.2 (Rust) on the same file.
  auto make = [](json model_options) {
    json j = {
        {"version", "1.0"},
        {"added_tokens", json::array()},
        {"normalizer", nullptr},
        {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}},
        {"post_processor", nullptr},
        {"decoder", {{"type", "ByteLevel"}}},
        {"model",
         {{"type", "BPE"},
          {"vocab", {{"a", 0}, {"b", 1}, {"c", 2}, {"ab", 3}, {"abc", 4}, {"<unk>", 5}, {"Ġ", 6}, {"Ġa", 7}}},
          {"merges", json::array({json::array({"a", "b"}), json::array({"ab", "c"}), json::array({"Ġ", "a"})})}}}};
    j["model"].update(model_options);
    return Tokenizer::from_json(j.dump());
  };
  using Ids = std::vector<int32_t>;
  const Tokenizer plain = make(json::object());
  CHECK(plain.encode("abcxxab") == Ids{4, 3});  // unknown bytes vanish without an unk_token
  CHECK(plain.encode("xyab a") == Ids{3, 7});
  const Tokenizer unk = make({{"unk_token", "<unk>"}});
  CHECK(unk.encode("abcxxab") == Ids{4, 5, 5, 3});
  CHECK(unk.decode({4, 5, 5, 3}) == "abc<unk><unk>ab");
  const Tokenizer fused = make({{"unk_token", "<unk>"}, {"fuse_unk", true}});
  CHECK(fused.encode("abcxxab") == Ids{4, 5, 3});
  CHECK(fused.encode("xyab a") == Ids{5, 3, 7});
  const Tokenizer few_merges = make({{"merges", json::array({json::array({"a", "b"})})}});
  CHECK(few_merges.encode("abc abc") == Ids{3, 2, 6, 3, 2});
  const Tokenizer ignore = make({{"merges", json::array({json::array({"a", "b"})})}, {"ignore_merges", true}});
  CHECK(ignore.encode("abc abc") == Ids{4, 6, 3, 2});  // "abc" is in the vocab, " abc" is not
}

TEST_CASE("tokenizer: malformed tokenizer.json is refused with a message naming the field", "[tokenizer]") {
  const Tokenizer small = Tokenizer::from_json(small_tokenizer().dump());
  REQUIRE(small.encode("<|im_start|> the") == std::vector<int32_t>{1, 261});  // the base is good

  using Edit = std::function<void(json&)>;
  const std::vector<std::pair<Edit, std::string>> bad = {
      {[](json& j) { j.erase("model"); }, "model is missing"},
      {[](json& j) { j["model"] = "BPE"; }, "model must be an object, got string"},
      {[](json& j) { j["model"]["type"] = "WordPiece"; }, "model.type \"WordPiece\" is not supported"},
      {[](json& j) { j["model"].erase("vocab"); }, "model.vocab is missing"},
      {[](json& j) { j["model"]["vocab"] = json::array(); }, "model.vocab must be an object {token: id}, got array"},
      {[](json& j) { j["model"]["vocab"]["Ġthe"] = "12"; }, "model.vocab[\"Ġthe\"] must be an id in [0, 1048576)"},
      {[](json& j) { j["model"]["vocab"]["x"] = -3; }, "model.vocab[\"x\"] must be an id in [0, 1048576), got -3"},
      {[](json& j) { j["model"]["vocab"]["x"] = 1 << 20; }, "must be an id in [0, 1048576), got 1048576"},
      {[](json& j) { j["model"]["vocab"]["x"] = 2.5; }, "must be an id in [0, 1048576), got 2.5"},
      {[](json& j) { j["model"]["vocab"]["zz"] = 40; }, "model.vocab: id 40 is given to both \"%\" and \"zz\""},
      {[](json& j) { j["model"].erase("merges"); }, "model.merges is missing"},
      {[](json& j) { j["model"]["merges"] = json::object(); }, "model.merges must be an array, got object"},
      {[](json& j) { j["model"]["merges"][1] = 7; }, "model.merges[1] must be \"left right\" or [\"left\", \"right\"]"},
      {[](json& j) { j["model"]["merges"][2] = "a b c"; }, "model.merges[2] must be \"left right\""},
      {[](json& j) {
         j["model"]["merges"][0] = {"a", "nope"};
       },
       "model.merges[0]: \"nope\" is not in model.vocab"},
      {[](json& j) {
         j["model"]["merges"][0] = {"zzzz", "a"};
       },
       "model.merges[0]: \"zzzz\" is not in model.vocab"},
      {[](json& j) {
         j["model"]["merges"][1] = {"a", "a"};
       },
       "model.merges[1]: the merged token \"aa\" is not in"},
      {[](json& j) { j["model"]["dropout"] = 0.1; }, "model.dropout 0.1 is not supported"},
      {[](json& j) { j["model"]["byte_fallback"] = true; }, "model.byte_fallback true is not supported"},
      {[](json& j) { j["model"]["fuse_unk"] = "yes"; }, "model.fuse_unk must be true or false, got string"},
      {[](json& j) { j["model"]["continuing_subword_prefix"] = "##"; }, "model.continuing_subword_prefix \"##\""},
      {[](json& j) { j["model"]["unk_token"] = "<unk>"; }, "model.unk_token \"<unk>\" is not in model.vocab"},
      {[](json& j) {
         j["normalizer"] = {{"type", "NFC"}};
       },
       "normalizer \"NFC\" is not supported"},
      {[](json& j) { j.erase("pre_tokenizer"); }, "pre_tokenizer is missing"},
      {[](json& j) {
         j["pre_tokenizer"] = {{"type", "Whitespace"}};
       },
       "pre_tokenizer \"Whitespace\" is not supported"},
      {[](json& j) { j["pre_tokenizer"]["add_prefix_space"] = true; }, "pre_tokenizer.add_prefix_space must be false"},
      {[](json& j) { j["pre_tokenizer"].erase("add_prefix_space"); }, "pre_tokenizer.add_prefix_space is missing"},
      {[](json& j) { j["pre_tokenizer"]["use_regex"] = false; }, "pre_tokenizer.use_regex must be true"},
      {[](json& j) { j["pre_tokenizer"] = 5; }, "pre_tokenizer must be an object or null, got number"},
      {[](json& j) { j["decoder"] = nullptr; }, "decoder is missing"},
      {[](json& j) {
         j["decoder"] = {{"type", "WordPiece"}};
       },
       "decoder \"WordPiece\" is not supported"},
      {[](json& j) {
         j["post_processor"] = {{"type", "TemplateProcessing"}};
       },
       "post_processor \"TemplateProcessing\""},
      {[](json& j) {
         j["post_processor"] = {{"no_type", 1}};
       },
       "post_processor.type is missing"},
      {[](json& j) { j["added_tokens"] = json::object(); }, "added_tokens must be an array, got object"},
      {[](json& j) { j["added_tokens"][1] = "<|im_start|>"; }, "added_tokens[1] must be an object, got string"},
      {[](json& j) { j["added_tokens"][1].erase("content"); }, "added_tokens[1].content is missing"},
      {[](json& j) { j["added_tokens"][1]["content"] = ""; }, "added_tokens[1].content is empty"},
      {[](json& j) { j["added_tokens"][1]["content"] = 1; }, "added_tokens[1].content must be a string, got number"},
      {[](json& j) { j["added_tokens"][1]["id"] = "1"; }, "added_tokens[1] \"<|im_start|>\".id must be an id"},
      {[](json& j) { j["added_tokens"][1]["id"] = 2; }, "added_tokens[1] \"<|im_start|>\": id 2 is already"},
      {[](json& j) { j["added_tokens"][2]["lstrip"] = true; }, "added_tokens[2] \"<|im_end|>\".lstrip true"},
      {[](json& j) { j["added_tokens"][2]["special"] = 1; }, "added_tokens[2] \"<|im_end|>\".special must be true"},
      {[](json& j) {
         j["added_tokens"].push_back({{"content", "Ġthe"}, {"id", 7000}});
       },
       "added_tokens[3] \"Ġthe\": id 7000, but the vocabulary has it as id 261"},
  };
  std::vector<std::string> messages = {};
  auto refused = [&](const std::string& text, const std::string& expected) {
    INFO("expected a TokenizerError containing: " << expected);
    try {
      Tokenizer::from_json(text);
      FAIL("accepted");
    } catch (const TokenizerError& e) {
      CHECK_THAT(e.what(), Catch::Matchers::Contains(expected));
      messages.push_back(e.what());
    }
  };
  refused("not json", "tokenizer.json is not valid JSON");
  refused("[1, 2]", "tokenizer.json must be a JSON object, got array");
  for (const auto& [edit, expected] : bad) refused(edited(edit), expected);
  // Each problem has its own message.
  std::sort(messages.begin(), messages.end());
  const auto repeated = std::adjacent_find(messages.begin(), messages.end());
  CHECK((repeated == messages.end() ? std::string() : "repeated: " + *repeated) == std::string());
}

TEST_CASE("tokenizer: absurd sizes are refused quickly", "[tokenizer]") {
  // A 10 MB vocab entry (2.5 MB in the sanitized build) costs one pass of the JSON parser and nothing more
  // (no copies of it, no message quoting all of it).
  const size_t entry_bytes = size_t(10 << 20) / kSanitizedDivisor;  // over the 1 MiB limit either way
  const std::string huge = with_vocab("\"" + std::string(entry_bytes, 'x') + "\": 0");
  CHECK(json::parse(huge).is_object());
  REQUIRE_THROWS_MATCHES(
      Tokenizer::from_json(huge), TokenizerError,
      message_contains("model.vocab: the entry \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"... (" +
                       std::to_string(entry_bytes) + " bytes) is longer than the limit of 1048576 bytes"));
  // A ratio in one run, not a time: refusing costs at most three parses.
  const double parse_seconds = fastest_seconds([&] { CHECK(json::parse(huge).is_object()); });
  const double refuse_seconds = fastest_seconds([&] {
    try {
      Tokenizer::from_json(huge);
    } catch (const TokenizerError&) {
    }
  });
  INFO("parse " << parse_seconds << " s, refuse " << refuse_seconds << " s");
  CHECK(refuse_seconds < 3 * parse_seconds);

  REQUIRE_THROWS_MATCHES(Tokenizer::from_json(std::string(Tokenizer::kMaxJsonBytes + 1, ' ')), TokenizerError,
                         message_contains("tokenizer.json is 67108865 bytes; the limit is 67108864"));

  // Deep nesting is not a stack overflow.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  REQUIRE_THROWS_MATCHES(Tokenizer::from_json(deep), TokenizerError, message_contains("must be a JSON object"));
}

TEST_CASE("tokenizer: a vocab with more entries than ids can number is refused", "[tokenizer]") {
  // Slow in the sanitizer build (a million-entry JSON object), so on its own.
  std::string entries;
  for (int64_t i = 0; i <= Tokenizer::kMaxVocab; ++i) entries += (i ? ",\"" : "\"") + std::to_string(i) + "\":0";
  const std::string many = with_vocab(entries);
  REQUIRE_THROWS_MATCHES(Tokenizer::from_json(many), TokenizerError,
                         message_contains("model.vocab has 1048577 entries; the limit is 1048576"));
}
