#include "tokenizer/tokenizer.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <queue>

#include "tokenizer/byte_level.h"

namespace minimind {

using nlohmann::json;

namespace {

// A token for an error message: JSON-quoted, cut to a readable length.
std::string quote(std::string_view s) {
  const size_t kMax = 40;
  const bool cut = s.size() > kMax;
  const std::string shown =
      json(std::string(s.substr(0, cut ? kMax : s.size()))).dump(-1, ' ', false, json::error_handler_t::replace);
  return cut ? shown + "... (" + std::to_string(s.size()) + " bytes)" : shown;
}

// Any JSON value for an error message, cut to a readable length.
std::string shown(const json& v) {
  if (v.is_string()) return quote(v.get_ref<const std::string&>());
  const std::string d = v.dump(-1, ' ', true);  // ASCII: safe to cut anywhere
  return d.size() > 40 ? d.substr(0, 40) + "... (" + std::to_string(d.size()) + " bytes)" : d;
}

std::string type_name(const json& v) { return v.is_null() ? "null" : std::string(v.type_name()); }

// An id: a JSON integer in [0, kMaxVocab).
bool read_id(const json& v, int32_t& out) {
  if (!v.is_number_integer()) return false;
  if (v.is_number_unsigned() ? v.get<uint64_t>() >= uint64_t(Tokenizer::kMaxVocab)
                             : (v.get<int64_t>() < 0 || v.get<int64_t>() >= Tokenizer::kMaxVocab)) {
    return false;
  }
  out = int32_t(v.get<int64_t>());
  return true;
}

const json* optional_field(const json& object, const char* key) {
  const auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

bool flag(const json& object, const char* key, const std::string& where) {
  const json* v = optional_field(object, key);
  if (!v) return false;
  if (!v->is_boolean())
    throw TokenizerError("tokenizer.not_boolean", {{"field", where + "." + key}, {"type", type_name(*v)}},
                         where + "." + key + " must be true or false, got " + type_name(*v));
  return v->get<bool>();
}

std::string type_of(const json& part, const std::string& where) {
  if (!part.is_object())
    throw TokenizerError("tokenizer.not_an_object", {{"field", where}, {"type", type_name(part)}},
                         where + " must be an object or null, got " + type_name(part));
  const json* t = optional_field(part, "type");
  if (!t || !t->is_string())
    throw TokenizerError("tokenizer.missing_field", {{"field", where + ".type"}}, where + ".type is missing");
  return t->get<std::string>();
}

// The pipeline parts around the model: only those that leave byte-level BPE
// as Hugging Face runs it for MiniMind's file.
void check_pipeline(const json& root) {
  if (const json* n = optional_field(root, "normalizer")) {
    throw TokenizerError("tokenizer.unsupported_part", {{"part", "normalizer"}, {"type", type_of(*n, "normalizer")}},
                         "normalizer " + quote(type_of(*n, "normalizer")) +
                             " is not supported (byte-level BPE here runs without a normalizer)");
  }
  const json* pre = optional_field(root, "pre_tokenizer");
  if (!pre)
    throw TokenizerError("tokenizer.byte_level_required", {{"part", "pre_tokenizer"}},
                         "pre_tokenizer is missing; ByteLevel is required");
  const std::string pre_type = type_of(*pre, "pre_tokenizer");
  if (pre_type != "ByteLevel") {
    throw TokenizerError("tokenizer.unsupported_part", {{"part", "pre_tokenizer"}, {"type", pre_type}},
                         "pre_tokenizer " + quote(pre_type) + " is not supported; only ByteLevel is");
  }
  // Hugging Face's defaults: add_prefix_space true, use_regex true.
  const json* prefix = optional_field(*pre, "add_prefix_space");
  if (!prefix) {
    throw TokenizerError("tokenizer.prefix_space_missing", {},
                         "pre_tokenizer.add_prefix_space is missing (Hugging Face then adds a prefix space, "
                         "which is not supported)");
  }
  if (!prefix->is_boolean() || prefix->get<bool>()) {
    throw TokenizerError("tokenizer.prefix_space", {},
                         "pre_tokenizer.add_prefix_space must be false (a prefix space is not supported)");
  }
  const json* regex = optional_field(*pre, "use_regex");
  if (regex && (!regex->is_boolean() || !regex->get<bool>())) {
    throw TokenizerError("tokenizer.use_regex", {},
                         "pre_tokenizer.use_regex must be true (splitting by the GPT-2 regex)");
  }
  const json* decoder = optional_field(root, "decoder");
  if (!decoder)
    throw TokenizerError("tokenizer.byte_level_required", {{"part", "decoder"}},
                         "decoder is missing; ByteLevel is required");
  const std::string decoder_type = type_of(*decoder, "decoder");
  if (decoder_type != "ByteLevel") {
    throw TokenizerError("tokenizer.unsupported_part", {{"part", "decoder"}, {"type", decoder_type}},
                         "decoder " + quote(decoder_type) + " is not supported; only ByteLevel is");
  }
  if (const json* post = optional_field(root, "post_processor")) {
    const std::string post_type = type_of(*post, "post_processor");
    if (post_type != "ByteLevel") {  // a ByteLevel post-processor only trims offsets
      throw TokenizerError(
          "tokenizer.unsupported_part", {{"part", "post_processor"}, {"type", post_type}},
          "post_processor " + quote(post_type) + " is not supported (it would add tokens to every encoding)");
    }
  }
}

// model.merges[i] as its two pieces: "left right" (older files) or [left, right].
bool read_merge(const json& m, std::string& left, std::string& right) {
  if (m.is_string()) {
    const std::string& s = m.get_ref<const std::string&>();
    const size_t space = s.find(' ');
    if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos) return false;
    left = s.substr(0, space);
    right = s.substr(space + 1);
    return true;
  }
  if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
    left = m[0].get<std::string>();
    right = m[1].get<std::string>();
    return true;
  }
  return false;
}

}  // namespace

Tokenizer Tokenizer::from_json(const std::string& tokenizer_json) {
  if (tokenizer_json.size() > kMaxJsonBytes) {
    throw TokenizerError("tokenizer.too_large",
                         {{"size", int64_t(tokenizer_json.size())}, {"limit", int64_t(kMaxJsonBytes)}},
                         "tokenizer.json is " + std::to_string(tokenizer_json.size()) + " bytes; the limit is " +
                             std::to_string(kMaxJsonBytes));
  }
  json root;
  try {
    root = json::parse(tokenizer_json);
  } catch (const json::exception& e) {
    throw TokenizerError("tokenizer.not_json", {}, std::string("tokenizer.json is not valid JSON: ") + e.what());
  }
  if (!root.is_object()) {
    throw TokenizerError("tokenizer.not_object", {{"type", type_name(root)}},
                         "tokenizer.json must be a JSON object, got " + type_name(root));
  }

  const json* model = optional_field(root, "model");
  if (!model) throw TokenizerError("tokenizer.missing_field", {{"field", "model"}}, "model is missing");
  if (!model->is_object())
    throw TokenizerError("tokenizer.not_an_object", {{"field", "model"}, {"type", type_name(*model)}},
                         "model must be an object, got " + type_name(*model));
  if (const json* type = optional_field(*model, "type")) {
    if (!type->is_string() || type->get<std::string>() != "BPE") {
      throw TokenizerError("tokenizer.unsupported_model", {{"type", shown(*type)}},
                           "model.type " + shown(*type) + " is not supported; only \"BPE\" is");
    }
  }
  check_pipeline(root);

  Tokenizer t;
  // model.vocab: {piece: id}.
  const json* vocab = optional_field(*model, "vocab");
  if (!vocab) throw TokenizerError("tokenizer.missing_field", {{"field", "model.vocab"}}, "model.vocab is missing");
  if (!vocab->is_object())
    throw TokenizerError("tokenizer.not_an_object", {{"field", "model.vocab"}, {"type", type_name(*vocab)}},
                         "model.vocab must be an object {token: id}, got " + type_name(*vocab));
  if (int64_t(vocab->size()) > kMaxVocab) {
    throw TokenizerError(
        "tokenizer.vocab_too_large", {{"entries", int64_t(vocab->size())}, {"limit", int64_t(kMaxVocab)}},
        "model.vocab has " + std::to_string(vocab->size()) + " entries; the limit is " + std::to_string(kMaxVocab));
  }
  for (const auto& item : vocab->items()) {
    const std::string& piece = item.key();
    if (piece.size() > kMaxPieceBytes) {
      throw TokenizerError("tokenizer.piece_too_long",
                           {{"field", "model.vocab[" + quote(piece) + "]"}, {"limit", int64_t(kMaxPieceBytes)}},
                           "model.vocab: the entry " + quote(piece) + " is longer than the limit of " +
                               std::to_string(kMaxPieceBytes) + " bytes");
    }
    int32_t id;
    if (!read_id(item.value(), id)) {
      throw TokenizerError("tokenizer.bad_id",
                           {{"field", "model.vocab[" + quote(piece) + "]"},
                            {"limit", int64_t(kMaxVocab)},
                            {"value", shown(item.value())}},
                           "model.vocab[" + quote(piece) + "] must be an id in [0, " + std::to_string(kMaxVocab) +
                               "), got " + shown(item.value()));
    }
    if (size_t(id) >= t.pieces_.size()) t.pieces_.resize(size_t(id) + 1);
    Piece& p = t.pieces_[size_t(id)];
    if (p.present) {
      throw TokenizerError(
          "tokenizer.id_taken", {{"id", int64_t(id)}, {"first", p.token}, {"second", piece}},
          "model.vocab: id " + std::to_string(id) + " is given to both " + quote(p.token) + " and " + quote(piece));
    }
    p.token = piece;
    p.bytes = byte_level::piece_to_bytes(piece);
    p.present = true;
    t.vocab_.emplace(piece, id);
  }

  // Options of the BPE model: only those that keep it deterministic byte-level BPE.
  if (const json* dropout = optional_field(*model, "dropout")) {
    if (!dropout->is_number() || dropout->get<double>() != 0.0) {
      throw TokenizerError("tokenizer.unsupported_option", {{"field", "model.dropout"}, {"value", shown(*dropout)}},
                           "model.dropout " + shown(*dropout) + " is not supported (only null: no dropout)");
    }
  }
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    const json* v = optional_field(*model, key);
    if (v && !(v->is_string() && v->get_ref<const std::string&>().empty())) {
      throw TokenizerError("tokenizer.unsupported_option",
                           {{"field", std::string("model.") + key}, {"value", shown(*v)}},
                           std::string("model.") + key + " " + shown(*v) + " is not supported (only null)");
    }
  }
  if (flag(*model, "byte_fallback", "model"))
    throw TokenizerError("tokenizer.unsupported_option", {{"field", "model.byte_fallback"}, {"value", "true"}},
                         "model.byte_fallback true is not supported");
  t.fuse_unk_ = flag(*model, "fuse_unk", "model");
  t.ignore_merges_ = flag(*model, "ignore_merges", "model");
  if (const json* unk = optional_field(*model, "unk_token")) {
    if (!unk->is_string())
      throw TokenizerError("tokenizer.not_a_string", {{"field", "model.unk_token"}, {"type", type_name(*unk)}},
                           "model.unk_token must be a string or null, got " + type_name(*unk));
    const auto it = t.vocab_.find(unk->get<std::string>());
    if (it == t.vocab_.end())
      throw TokenizerError("tokenizer.not_in_vocab", {{"field", "model.unk_token"}, {"token", unk->get<std::string>()}},
                           "model.unk_token " + quote(unk->get<std::string>()) + " is not in model.vocab");
    t.unk_id_ = it->second;
  }
  for (int b = 0; b < 256; ++b) {
    const auto it = t.vocab_.find(byte_level::bytes_to_piece(std::string(1, char(b))));
    t.byte_ids_[size_t(b)] = it == t.vocab_.end() ? -1 : it->second;
  }

  // model.merges: rank = position; a repeated pair keeps its last rank, as
  // Hugging Face's map does.
  const json* merges = optional_field(*model, "merges");
  if (!merges) throw TokenizerError("tokenizer.missing_field", {{"field", "model.merges"}}, "model.merges is missing");
  if (!merges->is_array())
    throw TokenizerError("tokenizer.not_an_array", {{"field", "model.merges"}, {"type", type_name(*merges)}},
                         "model.merges must be an array, got " + type_name(*merges));
  std::string left, right;
  for (size_t i = 0; i < merges->size(); ++i) {
    const std::string where = "model.merges[" + std::to_string(i) + "]";
    if (!read_merge((*merges)[i], left, right)) {
      throw TokenizerError("tokenizer.bad_merge", {{"field", where}, {"value", shown((*merges)[i])}},
                           where + " must be \"left right\" or [\"left\", \"right\"], got " + shown((*merges)[i]));
    }
    const auto l = t.vocab_.find(left), r = t.vocab_.find(right), m = t.vocab_.find(left + right);
    if (l == t.vocab_.end())
      throw TokenizerError("tokenizer.not_in_vocab", {{"field", where}, {"token", left}},
                           where + ": " + quote(left) + " is not in model.vocab");
    if (r == t.vocab_.end())
      throw TokenizerError("tokenizer.not_in_vocab", {{"field", where}, {"token", right}},
                           where + ": " + quote(right) + " is not in model.vocab");
    if (m == t.vocab_.end()) {
      throw TokenizerError("tokenizer.merge_not_in_vocab", {{"field", where}, {"token", left + right}},
                           where + ": the merged token " + quote(left + right) + " is not in model.vocab");
    }
    t.merges_[pair_key(l->second, r->second)] = Merge{int32_t(i), m->second};
  }

  // added_tokens: matched in the text before pre-tokenization.
  const json* added = optional_field(root, "added_tokens");
  if (added && !added->is_array())
    throw TokenizerError("tokenizer.not_an_array", {{"field", "added_tokens"}, {"type", type_name(*added)}},
                         "added_tokens must be an array, got " + type_name(*added));
  for (size_t i = 0; added && i < added->size(); ++i) {
    const json& a = (*added)[i];
    std::string where = "added_tokens[" + std::to_string(i) + "]";
    if (!a.is_object())
      throw TokenizerError("tokenizer.not_an_object", {{"field", where}, {"type", type_name(a)}},
                           where + " must be an object, got " + type_name(a));
    const json* content = optional_field(a, "content");
    if (!content)
      throw TokenizerError("tokenizer.missing_field", {{"field", where + ".content"}}, where + ".content is missing");
    if (!content->is_string())
      throw TokenizerError("tokenizer.not_a_string", {{"field", where + ".content"}, {"type", type_name(*content)}},
                           where + ".content must be a string, got " + type_name(*content));
    if (content->get_ref<const std::string&>().empty())
      throw TokenizerError("tokenizer.empty_content", {{"field", where + ".content"}}, where + ".content is empty");
    const std::string& text = content->get_ref<const std::string&>();
    if (text.size() > kMaxPieceBytes) {
      throw TokenizerError("tokenizer.piece_too_long",
                           {{"field", where + ".content"}, {"limit", int64_t(kMaxPieceBytes)}},
                           where + ".content is longer than the limit of " + std::to_string(kMaxPieceBytes) + " bytes");
    }
    where += " " + quote(text);
    int32_t id;
    const json* id_value = optional_field(a, "id");
    if (!id_value || !read_id(*id_value, id)) {
      throw TokenizerError(
          "tokenizer.bad_id",
          {{"field", where + ".id"}, {"limit", int64_t(kMaxVocab)}, {"value", id_value ? shown(*id_value) : "null"}},
          where + ".id must be an id in [0, " + std::to_string(kMaxVocab) + ")");
    }
    for (const char* key : {"lstrip", "rstrip", "single_word"}) {
      if (flag(a, key, where))
        throw TokenizerError("tokenizer.unsupported_option", {{"field", where + "." + key}, {"value", "true"}},
                             where + "." + key + " true is not supported");
    }
    const bool special = flag(a, "special", where);
    if (size_t(id) >= t.pieces_.size()) t.pieces_.resize(size_t(id) + 1);
    Piece& p = t.pieces_[size_t(id)];
    if (p.present && p.token != text) {
      throw TokenizerError("tokenizer.id_taken", {{"id", int64_t(id)}, {"first", p.token}, {"second", text}},
                           where + ": id " + std::to_string(id) + " is already " + quote(p.token));
    }
    // Hugging Face would keep the vocabulary's id and only warn: refuse instead.
    const auto known = t.vocab_.find(text);
    if (known != t.vocab_.end() && known->second != id) {
      throw TokenizerError(
          "tokenizer.added_id_conflict", {{"token", text}, {"id", int64_t(id)}, {"vocab_id", int64_t(known->second)}},
          where + ": id " + std::to_string(id) + ", but the vocabulary has it as id " + std::to_string(known->second));
    }
    p.token = text;
    p.bytes = byte_level::piece_to_bytes(text);  // Hugging Face decodes added tokens as pieces too
    p.present = p.added = true;
    p.special = special;
    t.vocab_[text] = id;
    t.added_by_first_byte_[uint8_t(text[0])].push_back(id);
  }
  for (auto& ids : t.added_by_first_byte_) {
    std::stable_sort(ids.begin(), ids.end(), [&](int32_t a, int32_t b) {
      return t.pieces_[size_t(a)].token.size() > t.pieces_[size_t(b)].token.size();
    });
  }
  return t;
}

// ---- encode ----------------------------------------------------------------

std::vector<int32_t> Tokenizer::encode(const std::string& utf8_text) const {
  const std::string text = byte_level::to_valid_utf8(utf8_text);
  std::vector<int32_t> ids;
  std::unordered_map<std::string_view, std::vector<int32_t>> cache;  // word -> ids, for this call
  // Added tokens, leftmost then longest (Hugging Face's AddedVocabulary);
  // the text between them is encoded word by word. Matching bytes is matching
  // characters: both sides are valid UTF-8.
  const std::string_view view(text);
  size_t start = 0, pos = 0;
  while (pos < text.size()) {
    const int32_t id = added_token_at(view, pos);
    if (id < 0) {
      ++pos;
      continue;
    }
    encode_words(view.substr(start, pos - start), ids, cache);
    ids.push_back(id);
    pos += pieces_[size_t(id)].token.size();
    start = pos;
  }
  encode_words(view.substr(start), ids, cache);
  return ids;
}

int32_t Tokenizer::added_token_at(std::string_view text, size_t pos) const {
  for (int32_t id : added_by_first_byte_[uint8_t(text[pos])]) {  // longest first
    const std::string& token = pieces_[size_t(id)].token;
    if (text.compare(pos, token.size(), token) == 0) return id;
  }
  return -1;
}

void Tokenizer::encode_words(std::string_view text, std::vector<int32_t>& out,
                             std::unordered_map<std::string_view, std::vector<int32_t>>& cache) const {
  const size_t kMaxCachedWord = 256;
  std::vector<int32_t> word_ids;
  for (const auto& [begin, end] : byte_level::split_words(text)) {
    const std::string_view word = text.substr(begin, end - begin);
    if (word.size() <= kMaxCachedWord) {
      const auto hit = cache.find(word);
      if (hit != cache.end()) {
        out.insert(out.end(), hit->second.begin(), hit->second.end());
        continue;
      }
    }
    word_ids.clear();
    bpe(word, word_ids);
    out.insert(out.end(), word_ids.begin(), word_ids.end());
    if (word.size() <= kMaxCachedWord) cache.emplace(word, word_ids);
  }
}

// One word's bytes to ids: Hugging Face's BPE Word::merge_all. Symbols start as
// one per byte; a queue holds every adjacent pair that has a merge, lowest rank
// first and leftmost among equal ranks; popped entries whose pair has changed
// since they were queued are skipped.
void Tokenizer::bpe(std::string_view word, std::vector<int32_t>& out) const {
  if (ignore_merges_) {
    const auto whole = vocab_.find(byte_level::bytes_to_piece(word));
    if (whole != vocab_.end()) {
      out.push_back(whole->second);
      return;
    }
  }
  struct Symbol {
    int32_t id;
    int32_t prev, next;  // neighbours still alive, -1 at the ends
    bool alive;
  };
  std::vector<Symbol> symbols;
  symbols.reserve(word.size());
  bool previous_unknown = false;
  for (char c : word) {
    int32_t id = byte_ids_[uint8_t(c)];
    if (id < 0) {
      // A byte missing from the vocab: the unknown token (one per run with
      // fuse_unk), or nothing when there is none, as Hugging Face does.
      if (unk_id_ < 0 || (fuse_unk_ && previous_unknown)) continue;
      id = unk_id_;
      previous_unknown = true;
    } else {
      previous_unknown = false;
    }
    const int32_t index = int32_t(symbols.size());
    symbols.push_back({id, index - 1, -1, true});
    if (index > 0) symbols[size_t(index) - 1].next = index;
  }

  struct Candidate {
    int32_t rank, pos, id;
    bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> queue;
  auto push_pair = [&](int32_t pos) {
    const Symbol& s = symbols[size_t(pos)];
    if (s.next < 0) return;
    const auto m = merges_.find(pair_key(s.id, symbols[size_t(s.next)].id));
    if (m != merges_.end()) queue.push({m->second.rank, pos, m->second.id});
  };
  for (int32_t i = 0; i + 1 < int32_t(symbols.size()); ++i) push_pair(i);

  while (!queue.empty()) {
    const Candidate top = queue.top();
    queue.pop();
    Symbol& s = symbols[size_t(top.pos)];
    if (!s.alive || s.next < 0) continue;
    Symbol& right = symbols[size_t(s.next)];
    const auto m = merges_.find(pair_key(s.id, right.id));
    if (m == merges_.end() || m->second.id != top.id) continue;  // stale
    s.id = top.id;
    right.alive = false;
    s.next = right.next;
    if (s.next >= 0) symbols[size_t(s.next)].prev = top.pos;
    if (s.prev >= 0) push_pair(s.prev);
    push_pair(top.pos);
  }
  for (const Symbol& s : symbols) {
    if (s.alive) out.push_back(s.id);
  }
}

// ---- decode and display ------------------------------------------------------

void Tokenizer::check_id(int32_t id, const char* where) const {
  if (!has_id(id)) {
    throw TokenizerError("token_id.out_of_range", {{"id", int64_t(id)}, {"last", int64_t(pieces_.size()) - 1}},
                         std::string(where) + ": id " + std::to_string(id) + " is not in the vocabulary (ids 0.." +
                             std::to_string(int64_t(pieces_.size()) - 1) + ")");
  }
}

std::string Tokenizer::id_to_token(int32_t id) const {
  check_id(id, "id_to_token");
  return pieces_[size_t(id)].token;
}

int32_t Tokenizer::token_to_id(const std::string& token) const {
  const auto it = vocab_.find(token);
  return it == vocab_.end() ? -1 : it->second;
}

std::string Tokenizer::decode(const std::vector<int32_t>& ids, bool skip_special_tokens) const {
  std::string bytes;
  for (int32_t id : ids) {
    check_id(id, "decode");
    const Piece& p = pieces_[size_t(id)];
    if (skip_special_tokens && p.special) continue;
    bytes += p.bytes;
  }
  return byte_level::to_valid_utf8(bytes);  // String::from_utf8_lossy in the ByteLevel decoder
}

namespace {

// Bytes as text: complete characters as themselves, every byte of an
// incomplete or invalid sequence as <0xE4>.
std::string readable(std::string_view bytes, bool& partial) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  partial = false;
  for (size_t pos = 0; pos < bytes.size();) {
    const byte_level::Utf8Char c = byte_level::decode_utf8(bytes, pos);
    if (c.valid) {
      out.append(bytes.data() + pos, size_t(c.length));
    } else {
      partial = true;
      for (int i = 0; i < c.length; ++i) {
        const uint8_t b = uint8_t(bytes[pos + size_t(i)]);
        out += std::string("<0x") + kHex[b >> 4] + kHex[b & 15] + ">";
      }
    }
    pos += size_t(c.length);
  }
  return out;
}

}  // namespace

Tokenizer::TokenDisplay Tokenizer::display(int32_t id) const {
  check_id(id, "display");
  const Piece& p = pieces_[size_t(id)];
  TokenDisplay d;
  d.special = p.special;
  d.bytes.assign(p.bytes.begin(), p.bytes.end());
  d.text = p.added ? p.token : readable(p.bytes, d.partial_utf8);
  return d;
}

std::vector<Tokenizer::SequenceToken> Tokenizer::display_sequence(const std::vector<int32_t>& ids) const {
  const size_t n = ids.size();
  std::vector<SequenceToken> out;
  std::string stream;         // the bytes of all tokens, as decode() joins them
  std::vector<size_t> start;  // [n + 1]: where each token's bytes begin in stream
  for (int32_t id : ids) {
    out.push_back({display(id), 0, {}});
    start.push_back(stream.size());
    stream += pieces_[size_t(id)].bytes;
  }
  start.push_back(stream.size());
  // joined[k]: a complete character has bytes in both token k and token k + 1.
  std::vector<bool> joined(n, false);
  size_t k = 0;
  for (size_t pos = 0; pos < stream.size();) {
    const byte_level::Utf8Char c = byte_level::decode_utf8(stream, pos);
    const size_t end = pos + size_t(c.length);
    if (c.valid) {
      while (start[k + 1] <= pos) ++k;
      for (size_t j = k; start[j + 1] < end; ++j) joined[j] = true;
    }
    pos = end;
  }
  int32_t group = 0;
  for (size_t first = 0; first < n; ++group) {
    size_t last = first;
    while (joined[last]) ++last;
    bool partial;
    const std::string text =
        readable(std::string_view(stream).substr(start[first], start[last + 1] - start[first]), partial);
    for (size_t j = first; j <= last; ++j) {
      out[j].group = group;
      out[j].group_text = text;
    }
    first = last + 1;
  }
  return out;
}

}  // namespace minimind
