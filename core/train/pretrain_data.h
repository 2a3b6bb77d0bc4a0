// Pretraining data as MiniMind's PretrainDataset reads it
// (dataset/lm_dataset.py), from JSONL or plain text:
//   {"text": "..."}  -> [bos] + tokenize(text)[:max_seq_len - 2] + [eos]
//   {"ids": [...]}   -> the ids as the whole sequence (no bos/eos added),
//                       truncated to max_seq_len
//   .txt             -> one text per non-empty line, as {"text": line}
// then padded with the pad id to max_seq_len; labels are the ids with -100
// wherever the input id is the pad id (so an id 0 inside an "ids" line is
// ignored by the loss too, as in MiniMind).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace minimind {

class Tokenizer;

constexpr int32_t kIgnoreIndex = -100;  // F.cross_entropy's ignore_index

enum class DataFormat { Jsonl, Text };

struct DataOptions {
  int64_t max_seq_len = 340;  // --max_seq_len: every sample's length
  int32_t bos_id = 1;         // <|im_start|>
  int32_t eos_id = 2;         // <|im_end|>
  int32_t pad_id = 0;         // <|endoftext|>
};

class PretrainDataset {
 public:
  // Parses the whole file. tokenizer may be nullptr when every line is an
  // "ids" line. Throws minimind::Error naming the line (1-based) and
  // what is wrong: not JSON, not an object, neither "text" nor "ids" (or
  // both), a "text" that is not a string, a text with no tokenizer, "ids"
  // not an array or empty, an id that is not an integer in [0, 2^31); and
  // when no sample remains (an empty file). max_seq_len must be at least 2.
  // Lines are split at "\n"; a trailing "\r" (CRLF) and a UTF-8 BOM at the
  // start of the file are dropped; lines of only whitespace are skipped.
  static PretrainDataset parse(const std::string& contents, DataFormat format, const Tokenizer* tokenizer,
                               const DataOptions& options = {});
  // From ready token sequences (each taken as an "ids" line: not empty, ids
  // non-negative, truncated to max_seq_len).
  static PretrainDataset from_sequences(std::vector<std::vector<int32_t>> sequences, const DataOptions& options = {});

  int64_t size() const { return int64_t(sequences_.size()); }
  const DataOptions& options() const { return options_; }
  // Sample i's unpadded tokens, already truncated: [<= max_seq_len].
  const std::vector<int32_t>& sequence(int64_t i) const { return sequences_[size_t(i)]; }
  // The largest id in any sample (checked against a model's vocabulary),
  // the pad id included when some sample is padded.
  int32_t max_id() const { return max_id_; }

  // Sample i padded: input_ids [max_seq_len] and labels [max_seq_len].
  void sample(int64_t i, int32_t* input_ids, int32_t* labels) const;

 private:
  DataOptions options_;
  std::vector<std::vector<int32_t>> sequences_;
  int32_t max_id_ = -1;
};

// The order of one epoch's samples. shuffle: a permutation of 0..n-1 drawn
// from the project's own RNG, the same on every platform (uint64_t
// arithmetic only, 32-bit Wasm included); NOT torch.randperm's order:
//   rng = SplitMix64(SplitMix64(seed ^ (0x9E3779B97F4A7C15 * (epoch + 1))).next())
//   order = 0..n-1; for i = n-1 down to 1: swap(order[i], order[draw(i + 1)])
// where draw(b) takes rng.next() until r >= 2^64 mod b, then returns r % b
// (rejection, no modulo bias). Without shuffle: 0..n-1 (file order).
// Writes order[n]; n and epoch must be non-negative.
void epoch_order(int64_t n, uint64_t seed, int64_t epoch, bool shuffle, int64_t* order);

}  // namespace minimind
