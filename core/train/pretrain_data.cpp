#include "train/pretrain_data.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "tokenizer/tokenizer.h"
#include "util/error.h"
#include "util/random.h"

namespace minimind {

namespace {

using nlohmann::json;

constexpr int64_t kMaxId = std::numeric_limits<int32_t>::max();  // ids are int32: [0, 2^31)

// A problem of one line of the data: its kind, the line and the values.
[[noreturn]] void fail(int64_t line, const char* kind, ErrorValues values, const std::string& problem) {
  values.insert(values.begin(), {"line", line});
  throw Error(kind, std::move(values), "line " + std::to_string(line) + ": " + problem);
}

bool is_blank(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; });
}

// nlohmann's what() reads "[json.exception.parse_error.101] parse error at
// line 1, column 5: ..."; the line is always 1 here (we parse one line), so
// keep only the column and the reason.
std::string json_reason(const json::parse_error& e) {
  std::string s = e.what();
  const size_t close = s.find("] ");
  if (close != std::string::npos) s = s.substr(close + 2);
  const std::string prefix = "parse error at line 1, ";
  if (s.compare(0, prefix.size(), prefix) == 0) s = "at " + s.substr(prefix.size());
  return s;
}

std::string short_dump(const json& value) {
  std::string s = value.dump();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

void check_options(const DataOptions& options) {
  if (options.max_seq_len < 2) {
    throw Error("pretrain.max_seq_len", {{"value", int64_t(options.max_seq_len)}},
                "max_seq_len must be at least 2 (room for bos and eos), got " + std::to_string(options.max_seq_len));
  }
}

// PretrainDataset.__getitem__: tokenizer(text, add_special_tokens=False,
// max_length=max_length - 2, truncation=True).input_ids, then bos + tokens + eos.
std::vector<int32_t> text_sequence(const std::string& text, const Tokenizer* tokenizer, const DataOptions& options,
                                   int64_t line) {
  if (tokenizer == nullptr) {
    fail(line, "pretrain.needs_tokenizer", {},
         "\"text\" needs a tokenizer (pass --tokenizer or a model folder with tokenizer.json)");
  }
  std::vector<int32_t> tokens;
  try {
    tokens = tokenizer->encode(text);
  } catch (const std::exception& e) {
    fail(line, "pretrain.tokenize_failed", {}, std::string("cannot tokenize the text (") + e.what() + ")");
  }
  // Hugging Face truncation keeps the first max_length ids of the full encoding.
  const size_t keep = std::min(tokens.size(), size_t(options.max_seq_len - 2));
  std::vector<int32_t> sequence;
  sequence.reserve(keep + 2);
  sequence.push_back(options.bos_id);
  sequence.insert(sequence.end(), tokens.begin(), tokens.begin() + std::ptrdiff_t(keep));
  sequence.push_back(options.eos_id);
  return sequence;
}

std::vector<int32_t> ids_sequence(const json& ids, const DataOptions& options, int64_t line) {
  if (!ids.is_array())
    fail(line, "pretrain.ids_not_array", {{"type", std::string(ids.type_name())}},
         "\"ids\" is not an array (got " + std::string(ids.type_name()) + ")");
  if (ids.empty()) fail(line, "pretrain.ids_empty", {}, "\"ids\" is empty");
  std::vector<int32_t> sequence;
  sequence.reserve(std::min(ids.size(), size_t(options.max_seq_len)));
  for (size_t k = 0; k < ids.size(); ++k) {
    const json& id = ids[k];
    bool ok = false;
    int64_t value = 0;
    if (id.is_number_unsigned()) {
      const uint64_t u = id.get<uint64_t>();
      ok = u <= uint64_t(kMaxId);
      value = int64_t(u);
    } else if (id.is_number_integer()) {
      value = id.get<int64_t>();
      ok = value >= 0 && value <= kMaxId;
    }
    if (!ok) {
      fail(line, "pretrain.bad_id", {{"index", int64_t(k)}, {"value", short_dump(id)}},
           "\"ids\"[" + std::to_string(k) + "] is " + short_dump(id) + ", not an integer in [0, 2^31)");
    }
    // Every id is checked; only the first max_seq_len are kept.
    if (int64_t(sequence.size()) < options.max_seq_len) sequence.push_back(int32_t(value));
  }
  return sequence;
}

std::vector<int32_t> jsonl_sequence(std::string_view text, const Tokenizer* tokenizer, const DataOptions& options,
                                    int64_t line) {
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    fail(line, "pretrain.not_json", {}, "not valid JSON (" + json_reason(e) + ")");
  }
  if (!j.is_object())
    fail(line, "pretrain.not_object", {{"type", std::string(j.type_name())}},
         "not a JSON object (got " + std::string(j.type_name()) + ")");
  const auto text_it = j.find("text");
  const auto ids_it = j.find("ids");
  const bool has_text = text_it != j.end(), has_ids = ids_it != j.end();
  if (has_text && has_ids)
    fail(line, "pretrain.text_and_ids", {}, "an object with both \"text\" and \"ids\" (give one)");
  if (!has_text && !has_ids) fail(line, "pretrain.no_text_or_ids", {}, "an object with neither \"text\" nor \"ids\"");
  if (has_ids) return ids_sequence(*ids_it, options, line);
  if (!text_it->is_string())
    fail(line, "pretrain.text_not_string", {{"type", std::string(text_it->type_name())}},
         "\"text\" is not a string (got " + std::string(text_it->type_name()) + ")");
  return text_sequence(text_it->get_ref<const std::string&>(), tokenizer, options, line);
}

}  // namespace

PretrainDataset PretrainDataset::parse(const std::string& contents, DataFormat format, const Tokenizer* tokenizer,
                                       const DataOptions& options) {
  check_options(options);
  std::string_view rest(contents);
  const std::string_view bom = "\xEF\xBB\xBF";
  if (rest.substr(0, bom.size()) == bom) rest.remove_prefix(bom.size());

  std::vector<std::vector<int32_t>> sequences;
  int64_t line = 0;
  while (!rest.empty()) {
    ++line;
    const size_t newline = rest.find('\n');
    std::string_view text = rest.substr(0, newline);
    rest.remove_prefix(newline == std::string_view::npos ? rest.size() : newline + 1);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);  // CRLF files
    if (is_blank(text)) continue;
    if (format == DataFormat::Jsonl) {
      sequences.push_back(jsonl_sequence(text, tokenizer, options, line));
    } else {
      sequences.push_back(text_sequence(std::string(text), tokenizer, options, line));
    }
  }
  if (sequences.empty()) throw Error("pretrain.no_lines", {}, "no training samples: the file has no non-empty line");
  return from_sequences(std::move(sequences), options);
}

PretrainDataset PretrainDataset::from_sequences(std::vector<std::vector<int32_t>> sequences,
                                                const DataOptions& options) {
  check_options(options);
  if (sequences.empty()) throw Error("train.no_samples", {}, "no training samples: no sequence given");
  PretrainDataset data;
  data.options_ = options;
  for (size_t k = 0; k < sequences.size(); ++k) {
    std::vector<int32_t>& s = sequences[k];
    if (s.empty())
      throw Error("pretrain.empty_sequence", {{"index", int64_t(k)}}, "sequences[" + std::to_string(k) + "] is empty");
    for (int32_t id : s) {
      if (id < 0) {
        throw Error(
            "pretrain.negative_id", {{"index", int64_t(k)}, {"id", int64_t(id)}},
            "sequences[" + std::to_string(k) + "] holds " + std::to_string(id) + ", not an integer in [0, 2^31)");
      }
    }
    if (int64_t(s.size()) > options.max_seq_len) s.resize(size_t(options.max_seq_len));
    for (int32_t id : s) data.max_id_ = std::max(data.max_id_, id);
    // A padded sample feeds the pad id to the embedding too.
    if (int64_t(s.size()) < options.max_seq_len) data.max_id_ = std::max(data.max_id_, options.pad_id);
  }
  data.sequences_ = std::move(sequences);
  return data;
}

void PretrainDataset::sample(int64_t i, int32_t* input_ids, int32_t* labels) const {
  if (i < 0 || i >= size()) {
    throw Error("train.sample_out_of_range", {{"sample", i}, {"last", size() - 1}},
                "sample " + std::to_string(i) + " of a dataset of " + std::to_string(size()));
  }
  const std::vector<int32_t>& s = sequences_[size_t(i)];
  const int64_t n = int64_t(s.size()), len = options_.max_seq_len;
  // input_ids = tokens + [pad_token_id] * (max_length - len(tokens))
  for (int64_t t = 0; t < len; ++t) input_ids[t] = t < n ? s[size_t(t)] : options_.pad_id;
  // labels = input_ids.clone(); labels[input_ids == pad_token_id] = -100
  for (int64_t t = 0; t < len; ++t) labels[t] = input_ids[t] == options_.pad_id ? kIgnoreIndex : input_ids[t];
}

namespace {

// Uniform in [0, bound), bound >= 1, without modulo bias: the 2^64 mod bound
// lowest outputs are rejected, so the ones kept are a whole multiple of bound.
uint64_t bounded(SplitMix64& rng, uint64_t bound) {
  const uint64_t rejected = (uint64_t(0) - bound) % bound;  // 2^64 mod bound
  for (;;) {
    const uint64_t r = rng.next();
    if (r >= rejected) return r % bound;
  }
}

}  // namespace

void epoch_order(int64_t n, uint64_t seed, int64_t epoch, bool shuffle, int64_t* order) {
  if (n < 0 || epoch < 0)
    throw Error("train.epoch_order", {{"n", n}, {"epoch", epoch}}, "epoch_order: n and epoch must be non-negative");
  for (int64_t i = 0; i < n; ++i) order[i] = i;
  if (!shuffle) return;
  // The seed state mixes seed and epoch, then goes through one SplitMix64
  // output: states that differ by a multiple of SplitMix64's increment would
  // otherwise be the same stream shifted, and two epochs' draws would overlap.
  const uint64_t mixed = seed ^ (0x9E3779B97F4A7C15ull * (uint64_t(epoch) + 1));
  SplitMix64 rng(SplitMix64(mixed).next());
  for (int64_t i = n - 1; i > 0; --i) {
    const int64_t j = int64_t(bounded(rng, uint64_t(i) + 1));
    std::swap(order[i], order[j]);
  }
}

}  // namespace minimind
